"""The ``systemMessage`` a compaction SessionLens writes into a pi 1.6 file carries.

pi 1.6 stores its system prompt as ``role: "system"`` messages (``sections`` patched by
name, ``toolsAdded`` / ``toolsRemoved``) and every compaction it writes snapshots the
current one (``SessionManager.appendCompaction``: ``getCurrentSystemMessage`` over the
context it held), because its replay starts with that snapshot and leaves the stored
system messages before the compaction out. A compaction without it resumes with no system
prompt in its context: pi 1.6.0 then writes its whole prompt again as a new system row
after the compaction (seen resuming a successor of a pi 1.6 file), and the context
SessionLens showed for the successor lacked the prompt pi sends first.

``current_system_message`` is pi-ai's ``getCurrentSystemMessage`` (1.6.0,
``utils/transcript.js``) over the replayed context: the texts of every system message
joined by blank lines, sections patched in order (null deletes), tools by name (removed,
then added; a re-added tool keeps its place), the first one's timestamp. None when the
context holds no system message (OpenClaw files, pi before 1.6): nothing is written then.
Pure.
"""

from __future__ import annotations

import contextlib
from datetime import datetime
from typing import Any

from sessionlens.engine.model import Message, TextBlock, Transcript

__all__ = ["current_system_message", "with_system_message"]


def _context_system_messages(t: Transcript) -> list[Message]:
    out: list[Message] = []
    for item in t.context:
        entry = t.entry(item.entry_id)
        if entry.type == "compaction":
            if entry.system_message is not None:
                out.append(entry.system_message)
        elif entry.message is not None and entry.message.role == "system":
            out.append(entry.message)
    return out


def _content_text(msg: Message) -> str:
    return "\n".join(b.text for b in msg.content if isinstance(b, TextBlock))


def current_system_message(t: Transcript) -> dict[str, Any] | None:
    """The system message pi 1.6 would snapshot into a compaction of ``t``'s active path
    (see the module docstring), as a JSON object; None when there is none."""
    messages = _context_system_messages(t)
    if not messages:
        return None
    texts = [text for m in messages if (text := _content_text(m))]
    sections: dict[str, str] = {}
    tools: dict[str, Any] = {}
    for m in messages:
        for name, value in (m.sections or {}).items():
            if value is None:
                sections.pop(name, None)
            else:
                sections[name] = str(value)
        for removed in m.tools_removed:
            tools.pop(removed, None)
        for tool in m.tools_added:
            tool_name = tool.get("name") if isinstance(tool, dict) else None
            if isinstance(tool_name, str):
                tools[tool_name] = tool
    out: dict[str, Any] = {"role": "system", "content": "\n\n".join(texts)}
    if sections:
        out["sections"] = sections
    if tools:
        out["toolsAdded"] = list(tools.values())
    out["timestamp"] = messages[0].timestamp_ms or 0
    return out


def with_system_message(entry: dict[str, Any], t: Transcript) -> dict[str, Any]:
    """The compaction ``entry`` written into (or beside) ``t``, with the ``systemMessage``
    pi 1.6 would give it (stamped with the compaction's time, as pi stamps it); ``entry``
    itself when ``t``'s context holds no system message."""
    current = current_system_message(t)
    if current is None:
        return entry
    stamp = entry.get("timestamp")
    if isinstance(stamp, str):
        with contextlib.suppress(ValueError):  # an unreadable stamp keeps the first one's
            current["timestamp"] = int(datetime.fromisoformat(stamp).timestamp() * 1000)
    return {**entry, "systemMessage": current}
