"""The replayed context as the model reads it: one ``{role, text}`` per message, in order.

``Transcript.context`` points at entries; this spells out what each one says, so anyone can
hold it against a request the agent sent: a compaction's ``systemMessage`` (pi 1.6) comes
first, then its summary; a ``context_edit``'s replacement stands in for the content of the
entry it edits (entries it hides are not in the context at all); a stored system message
reads as its content followed by its sections (pi ``getSystemMessageText``). Pure.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sessionlens.engine.model import ContentBlock, Message, TextBlock, ToolCallBlock, Transcript

__all__ = ["ContextMessage", "context_json", "context_messages"]


@dataclass(frozen=True, slots=True)
class ContextMessage:
    """One message of the replayed context."""

    role: str
    text: str
    #: The entry it comes from (a compaction gives its system message and its summary).
    entry_id: str
    #: Names of the tool calls an assistant message makes.
    calls: tuple[str, ...] = ()


def _text(blocks: tuple[ContentBlock, ...]) -> str:
    return "\n".join(b.text for b in blocks if isinstance(b, TextBlock))


def _system_text(msg: Message) -> str:
    parts = [_text(msg.content), *(v for v in (msg.sections or {}).values() if v is not None)]
    return "\n\n".join(p for p in parts if p)


def _message(msg: Message, entry_id: str, content: tuple[ContentBlock, ...]) -> ContextMessage:
    if msg.role == "system":
        return ContextMessage("system", _system_text(msg), entry_id)
    if msg.role == "bashExecution":
        return ContextMessage(msg.role, f"{msg.command or ''}\n{msg.output or ''}", entry_id)
    calls = tuple(b.name for b in content if isinstance(b, ToolCallBlock)) \
        if msg.role == "assistant" else ()
    return ContextMessage(msg.role, _text(content), entry_id, calls)


def context_messages(t: Transcript) -> tuple[ContextMessage, ...]:
    """What the model sees after replay, message by message (see the module docstring)."""
    out: list[ContextMessage] = []
    for item in t.context:
        entry = t.entry(item.entry_id)
        edit = t.get(item.edit_id) if item.edit_id is not None else None
        replacement = edit.replacement if edit is not None else None
        if entry.type == "compaction":
            if entry.system_message is not None:
                out.append(ContextMessage("system", _system_text(entry.system_message), entry.id))
            out.append(ContextMessage("compactionSummary", entry.summary or "", entry.id))
        elif entry.type == "branch_summary":
            out.append(ContextMessage("branchSummary", entry.summary or "", entry.id))
        elif entry.type == "custom_message":
            content = replacement if replacement is not None else entry.content
            out.append(ContextMessage("custom", _text(content), entry.id))
        elif entry.message is not None:
            content = replacement if replacement is not None else entry.message.content
            out.append(_message(entry.message, entry.id, content))
    return tuple(out)


def context_json(t: Transcript) -> list[dict[str, Any]]:
    """``inspect --json``'s ``context``: ``{role, text}`` per message (plus the entry id and,
    for an assistant that calls tools, their names)."""
    out: list[dict[str, Any]] = []
    for m in context_messages(t):
        row: dict[str, Any] = {"role": m.role, "text": m.text, "entry_id": m.entry_id}
        if m.calls:
            row["calls"] = list(m.calls)
        out.append(row)
    return out
