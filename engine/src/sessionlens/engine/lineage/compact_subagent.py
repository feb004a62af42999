"""Claude Code's compaction subagent files, tied back to the compaction they wrote.

Claude Code (up to 2.1.9x at least; 2.1.332 writes none in ``-p`` runs) ran its compaction as
a sidechain agent whose transcript lands in ``<project>/<session-uuid>/subagents/
agent-acompact-<hex>.jsonl``: the whole conversation sent again, then the summarizing reply
(``<analysis>`` and ``<summary>``) as its last message. Such a file is not a session of its
own: it belongs to one compaction of the session beside its folder. This finds which: the
parent's compaction whose summary message holds that ``<summary>`` text, else the first one
written after the subagent's last line.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from sessionlens.engine.agents.claude_code.parse import subagent_parent_id
from sessionlens.engine.model import TextBlock, Transcript

__all__ = ["CompactionSubagent", "compaction_subagent_of", "is_compaction_subagent"]

_SUMMARY = re.compile(r"<summary>(.*?)(?:</summary>|$)", re.S)


@dataclass(frozen=True, slots=True)
class CompactionSubagent:
    """Which session and which of its compactions a compaction subagent file belongs to."""

    path: Path
    parent_session_id: str
    #: The parent session's file, None when it is not beside the subagent's folder.
    parent_path: Path | None
    compaction_id: str | None = None
    compaction_line: int | None = None
    #: How the compaction was found: "summary text", "time", or "" when it was not.
    matched_by: str = ""


def is_compaction_subagent(path: Path) -> bool:
    return path.name.startswith("agent-acompact-") and subagent_parent_id(path) is not None


def _last_reply(t: Transcript) -> tuple[str, str | None]:
    for entry in reversed(t.entries):
        msg = entry.message
        if msg is not None and msg.role == "assistant":
            text = "\n".join(b.text for b in msg.content if isinstance(b, TextBlock))
            if text.strip():
                return text, entry.timestamp
    return "", None


def compaction_subagent_of(t: Transcript, load: Callable[[Path], Transcript]
                           ) -> CompactionSubagent | None:
    """The compaction ``t`` (a subagent file) wrote, read from its parent with ``load``; None
    when ``t`` is not a compaction subagent file."""
    if not is_compaction_subagent(t.path):
        return None
    parent_id = str((t.header.extra.get("parent_session_id") if t.header else None)
                    or subagent_parent_id(t.path))
    parent_path = t.path.parent.parent.parent / f"{subagent_parent_id(t.path)}.jsonl"
    if not parent_path.is_file():
        return CompactionSubagent(t.path, parent_id, None)
    reply, at = _last_reply(t)
    found = _SUMMARY.search(reply)
    body = " ".join((found.group(1) if found else reply).split())
    parent = load(parent_path)
    compactions = [e for e in parent.entries if e.type == "compaction"]
    for e in compactions:
        if body and body[:400] in " ".join((e.summary or "").split()):
            return CompactionSubagent(t.path, parent_id, parent_path, e.id, e.line,
                                      "summary text")
    for e in compactions:
        if at is not None and e.timestamp is not None and e.timestamp >= at:
            return CompactionSubagent(t.path, parent_id, parent_path, e.id, e.line, "time")
    return CompactionSubagent(t.path, parent_id, parent_path)
