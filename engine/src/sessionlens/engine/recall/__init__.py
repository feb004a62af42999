"""Recall for agents: read-only answers about the user's sessions, for ``sessionlens mcp``.

``Recall`` (``recall_service``) holds the tools as plain methods returning small redacted
records (``results``); ``mcp_adapter`` serves them over stdio with the official ``mcp`` SDK
(the optional ``mcp`` extra), and ``registration`` says how to register the server with an
agent. Importing this package imports none of them.
"""
