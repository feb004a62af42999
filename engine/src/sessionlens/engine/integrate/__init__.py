"""SessionLens inside the agents' own automatic compactions (issue 36).

The channel is one CLI call per compaction, reading a JSON request on stdin and answering
JSON on stdout: ``sessionlens compact-for-agent`` (pi, OpenClaw) and ``sessionlens hook
claude-code pre-compact|post-compact`` (Claude Code runs hook commands that way already).
Why not a ``sessionlens serve`` on a socket: a compaction is rare (minutes apart at most)
and takes seconds of model time, so a process start (~0.3 s) costs nothing that matters;
there is no server to be down, to restart after an upgrade, to authenticate (the command
runs as the user, with the user's own files: no token to mint, store or leak); and every
agent can already run a command (Claude Code's hooks can do nothing else). The agent side
holds the deadline: it kills the call after ``deadline_s`` + a margin and compacts with its
own summarizer; the engine stops itself at ``deadline_s`` (``preferences``), shorter than
the agent's own (Claude Code's hook timeout is 60 s).
"""
