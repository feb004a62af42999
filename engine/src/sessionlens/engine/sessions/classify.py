"""What a file in a sessions folder is, by its name alone (transcript-format.md §2.3).

OpenClaw keeps archives, checkpoint copies, sidecars and locks beside the live
transcripts; a session list must show the live ones and may offer the archives as history.
Other agents' files that are not JSON lines count as transcripts only under the names those
agents give them (Gemini's ``session-*.json``, Amp's ``T-*.json``, Cline's
``ui_messages.json``, a Crush or OpenCode database...), so the many other JSON files in their
folders are never opened; Kimi's ``wire.jsonl`` is a sidecar of its ``context.jsonl`` and its
``context_<n>.jsonl`` are the contexts it rotated away at a compaction or revert.
"""

from __future__ import annotations

import re

__all__ = ["classify_session_file", "SESSION_FILE_KINDS"]

#: Every kind ``classify_session_file`` returns.
SESSION_FILE_KINDS = frozenset({
    "primary", "checkpoint", "archive-reset", "archive-deleted", "archive-bak",
    "archive-rotated", "trajectory", "lock", "corrupt", "temp", "store", "other",
})

_CHECKPOINT = re.compile(r"\.checkpoint\.[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-"
                         r"[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\.jsonl$")
_ARCHIVE = re.compile(r"\.(reset|deleted|bak)\.[^/\\]+$")
_CORRUPT = re.compile(r"\.corrupt-[^/\\]*\.jsonl$")
_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
#: Other agents' transcripts that are not ``.jsonl``, by the names those agents write.
_AGENT_FILES = re.compile(
    r"^(session-.+\.json"                       # Gemini CLI (older chats)
    rf"|session_{_UUID}_\d+\.json"              # Copilot CLI history-session-state
    rf"|T-{_UUID}\.json"                         # Amp threads
    rf"|{_UUID}\.json"                           # Continue sessions
    rf"|{_UUID}\.txt"                            # Cursor plain-text transcripts
    r"|ui_messages\.json"                        # Cline / Roo Code tasks
    r"|crush\.db|opencode\.db"                  # Crush, OpenCode (SQLite)
    r"|openclaw-agent\.sqlite"                   # OpenClaw 2026.8+ (SQLite store)
    r"|\.aider\.chat\.history\.md)$")           # Aider
_ROTATED = re.compile(r"^context_\d+\.jsonl$")


def classify_session_file(name: str) -> str:
    """The kind of a sessions-folder file: "primary" for a live transcript, else what it is.

    Primary names include ``<uuid>.jsonl``, ``<uuid>-topic-<thread>.jsonl`` and
    ``<ISO-ts>_<uuid>.jsonl``; every ``.jsonl`` that is no artifact counts as primary.
    """
    if name == "sessions.json":
        return "store"
    if name.endswith(".jsonl.lock") or name.endswith(".lock"):
        return "lock"
    if name.endswith(".truncate-tmp"):
        return "temp"
    if name.endswith(".trajectory.jsonl") or name.endswith(".trajectory-path.json"):
        return "trajectory"
    if _CHECKPOINT.search(name):
        return "checkpoint"
    if _CORRUPT.search(name):
        return "corrupt"
    archive = _ARCHIVE.search(name)
    if archive:
        return f"archive-{archive.group(1)}"
    if name == "wire.jsonl":
        return "other"
    if _ROTATED.match(name):
        return "archive-rotated"
    if name.endswith(".jsonl") or _AGENT_FILES.match(name):
        return "primary"
    return "other"
