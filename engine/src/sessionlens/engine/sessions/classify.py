"""What a file in a sessions folder is, by its name alone (transcript-format.md §2.3).

OpenClaw keeps archives, checkpoint copies, sidecars and locks beside the live
transcripts; a session list must show the live ones and may offer the archives as history.
"""

from __future__ import annotations

import re

__all__ = ["classify_session_file", "SESSION_FILE_KINDS"]

#: Every kind ``classify_session_file`` returns.
SESSION_FILE_KINDS = frozenset({
    "primary", "checkpoint", "archive-reset", "archive-deleted", "archive-bak", "trajectory",
    "lock", "corrupt", "temp", "store", "other",
})

_CHECKPOINT = re.compile(r"\.checkpoint\.[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-"
                         r"[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\.jsonl$")
_ARCHIVE = re.compile(r"\.(reset|deleted|bak)\.[^/\\]+$")
_CORRUPT = re.compile(r"\.corrupt-[^/\\]*\.jsonl$")


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
    if name.endswith(".jsonl"):
        return "primary"
    return "other"
