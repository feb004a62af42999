"""The replayed context as ``{role, text}`` items: what the agent's model sees, in order.

One function for every face (``inspect --json``'s ``context``), with the view of each agent
held against what that agent sends: pi and OpenClaw files as ``load.context_messages``
spells them (pi 1.6's system message and context edits included, as pi's own
``buildSessionContext`` has them), OpenClaw's SQLite store as the summarizer's conversion
gives them (OpenClaw's own reader agrees), and every other agent's file (Codex, Claude Code,
Gemini CLI, ...) as below, checked against Codex's and Gemini's requests.

For those:
``inspect --json`` gives this list as ``context`` so that anyone can hold it against a request
the agent sent. Roles are the ones the agent sends them under: ``user``, ``assistant``,
``developer`` / ``system`` (Codex's instructions and injected developer messages), ``tool_call``
(one per call: ``NAME ARGS``, the arguments as compact sorted JSON) and ``tool_result``.
A message's text blocks are joined by newlines; thinking is left out (agents send it back,
if at all, as opaque items); a compaction summary is a ``user`` item holding its text, unless
the reader says the agent sends it otherwise (OpenCode: the request turn's text as a ``user``
item, ``extra["asked"]``, then the summary as the ``assistant``'s answer). What
the header says the agent sends ahead of every request (``sent_first``: Codex's base
instructions) opens the list.
"""

from __future__ import annotations

import json
from typing import TypedDict, cast

from sessionlens.engine.model import (
    ContextItem,
    Entry,
    Message,
    TextBlock,
    ToolCallBlock,
    Transcript,
)

__all__ = ["ContextText", "context_texts"]


class ContextText(TypedDict):
    role: str
    text: str


#: custom_type -> the role the agent sends that message under
_CUSTOM_ROLES = {"codex.developer": "developer",
                 "codex.system": "system", "codex.context": "user"}


def _message_items(msg: Message) -> list[ContextText]:
    if msg.role == "toolResult":
        return [{"role": "tool_result", "text": msg.text}]
    role = _CUSTOM_ROLES.get(msg.custom_type or "", "user") if msg.role == "custom" else msg.role
    out: list[ContextText] = []
    texts = [b.text for b in msg.content if isinstance(b, TextBlock)]
    if texts:
        out.append({"role": role, "text": "\n".join(texts)})
    for call in msg.tool_calls:
        out.append({"role": "tool_call", "text": _call_text(call)})
    if not out and msg.role == "user":
        out.append({"role": role, "text": ""})
    return out


def _call_text(call: ToolCallBlock) -> str:
    args = call.partial_json if call.partial_json is not None else json.dumps(
        call.arguments, sort_keys=True, separators=(",", ":"))
    return f"{call.name} {args}"


def _item_texts(item: ContextItem, entry: Entry) -> list[ContextText]:
    if item.kind in ("compaction_summary", "branch_summary"):
        asked = entry.extra.get("asked")
        role = entry.extra.get("summary_role")
        summary: ContextText = {"role": role if isinstance(role, str) else "user",
                                "text": entry.summary or ""}
        return [{"role": "user", "text": asked}, summary] if isinstance(asked, str) else [summary]
    if entry.message is not None:
        return _message_items(entry.message)
    return []


def _llm_texts(t: Transcript) -> list[ContextText]:
    """OpenClaw's store: each item as the summarizer's own conversion gives it (a summary
    with the agent's prefix), as OpenClaw's own reader builds it (the store's fidelity test)."""
    # imported here: reading a transcript imports no summarize module
    from sessionlens.engine.summarize.serialize import entry_to_llm_message

    out: list[ContextText] = []
    for item in t.context:
        msg = entry_to_llm_message(t.entry(item.entry_id))
        if msg is not None:
            out.append({"role": msg.role, "text": msg.text})
    return out


def context_texts(transcript: Transcript) -> list[ContextText]:
    """The replayed context of ``transcript`` as ``{role, text}`` items, in order, in the
    roles and texts its agent sends them (each view checked against that agent's requests)."""
    if transcript.format == "openclaw-sqlite":
        return _llm_texts(transcript)
    if transcript.format in ("openclaw-v3", "pi-v1", "pi-v2"):  # pi and OpenClaw files
        from .context_messages import context_json

        return cast(list[ContextText], context_json(transcript))
    out: list[ContextText] = []
    first = transcript.header.extra.get("sent_first") if transcript.header else None
    if isinstance(first, dict) and isinstance(first.get("text"), str):
        out.append({"role": str(first.get("role") or "system"), "text": first["text"]})
    for item in transcript.context:
        entry = transcript.get(item.entry_id)
        if entry is not None:
            out += _item_texts(item, entry)
    return out
