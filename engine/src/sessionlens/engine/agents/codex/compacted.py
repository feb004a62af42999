"""A Codex ``compacted`` item read as what the model sees after it (Codex 0.16x-0.17x).

Codex's local compaction (codex-rs ``compact.rs``) asks the model to summarize the whole
history with its compact prompt, then replaces the history with ``replacement_history``: the
recent user messages it keeps (up to a token budget), the initial context (developer and
environment messages) put back before the latest of them, and last the summary, the model's
answer behind a handoff prefix. The ``message`` field is that summary message's text.

So the summary is the ``message`` (never the kept messages around it), and each other item of
``replacement_history`` is a kept message of its own, in order, after the compaction entry;
``summary_after`` names the kept item the summary follows (None: it comes first). A remote
compaction (OpenAI's own endpoint) leaves ``message`` empty and an encrypted ``compaction``
item where the summary goes: its text cannot be read.

The prompt and the prefix are the ones Codex 0.171.0 sent (recorded by the driver in
``tests/agents/drivers/codex.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sessionlens.engine.agents.codex.items import item_message
from sessionlens.engine.model import Message

__all__ = ["COMPACT_PROMPT", "SUMMARY_PREFIX", "Replacement", "is_summary_text",
           "read_replacement"]

#: The user message Codex appends to the history to ask for the summary.
COMPACT_PROMPT = (
    "You are performing a CONTEXT CHECKPOINT COMPACTION. Create a handoff summary for another "
    "LLM that will resume the task.\n\nInclude:\n- Current progress and key decisions made\n"
    "- Important context, constraints, or user preferences\n- What remains to be done (clear "
    "next steps)\n- Any critical data, examples, or references needed to continue\n\nBe "
    "concise, structured, and focused on helping the next LLM seamlessly continue the work.\n")
#: What Codex puts before the model's summary (then a newline, then the summary).
SUMMARY_PREFIX = (
    "Another language model started to solve this problem and produced a summary of its "
    "thinking process. You also have access to the state of the tools that were used by that "
    "language model. Use this to build on the work that has already been done and avoid "
    "duplicating work. Here is the summary produced by the other language model, use the "
    "information in this summary to assist with your own analysis:")


def is_summary_text(text: str) -> bool:
    """A user message that is an earlier compaction's summary (Codex never keeps those)."""
    return text.startswith(SUMMARY_PREFIX + "\n")


@dataclass(frozen=True)
class Replacement:
    """A ``compacted`` item, read."""

    summary: str
    #: The kept items, in order, as messages (the summary item left out).
    kept: tuple[Message, ...]
    #: Index into ``kept`` of the item the summary follows; -1 when it comes first.
    summary_after: int
    #: Where the summary came from: ``message``, ``encrypted`` (remote compaction) or ``none``.
    source: str
    encrypted_chars: int = 0

    @property
    def summary_body(self) -> str:
        """The model's own summary, without the handoff prefix."""
        head = SUMMARY_PREFIX + "\n"
        return self.summary[len(head):] if self.summary.startswith(head) else self.summary

    @property
    def kept_user_texts(self) -> tuple[str, ...]:
        return tuple(m.text for m in self.kept if m.role == "user")


def _text_of(item: dict[str, Any]) -> str:
    content = item.get("content")
    if not isinstance(content, list):
        return ""
    return "\n".join(str(c.get("text") or "") for c in content
                     if isinstance(c, dict) and c.get("type") in ("input_text", "output_text"))


def read_replacement(payload: dict[str, Any], ms: int | None, model: str | None,
                     provider: str | None) -> Replacement:
    """``message`` and ``replacement_history`` as a summary plus the kept messages."""
    raw = payload.get("message")
    message = raw if isinstance(raw, str) else ""
    history = payload.get("replacement_history")
    items = [h for h in history if isinstance(h, dict)] if isinstance(history, list) else []
    kept: list[Message] = []
    names: dict[str, str] = {}
    after = -2          # not found yet
    encrypted = 0
    for item in items:
        text = _text_of(item)
        is_summary = item.get("type") == "message" and (
            (message and text == message) or (not message and is_summary_text(text)))
        if after == -2 and (is_summary or item.get("type") == "compaction"):
            after = len(kept) - 1
            if item.get("type") == "compaction":
                enc = item.get("encrypted_content")
                encrypted = len(enc) if isinstance(enc, str) else 0
            elif not message:
                message = text
            continue
        msg = item_message(item, ms, names, model, provider)
        if msg is not None:
            kept.append(msg)
    if after == -2:                 # no summary item: Codex's older files, or message only
        after = len(kept) - 1
    source = "message" if message else "encrypted" if encrypted else "none"
    summary = message or (f"[compaction: encrypted summary, {encrypted} chars]"
                          if encrypted else "")
    return Replacement(summary, tuple(kept), after, source, encrypted)

