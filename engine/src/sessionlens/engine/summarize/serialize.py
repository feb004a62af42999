"""Turning transcript entries into the text a summarizer reads (transcript-format.md §1.5, §3.5).

Two steps, as pi does them: entries become model messages (a bash run, a custom message and
the two kinds of summary all become user messages), then those messages are flattened into
one plain-text conversation with role tags. Flattening keeps the summarizer from treating
the history as a live chat it should answer. Tool results are cut at 2000 characters and
``toolResult.details`` never appears (the model never saw it either).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from sessionlens.engine.model import (
    ContentBlock,
    Entry,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
)

__all__ = [
    "BRANCH_SUMMARY_PREFIX", "COMPACTION_SUMMARY_PREFIX", "TOOL_RESULT_MAX_CHARS", "LlmMessage",
    "entries_to_llm_messages", "entry_to_llm_message", "serialize_conversation",
    "serialize_entries", "truncate_tool_result",
]

TOOL_RESULT_MAX_CHARS = 2000
COMPACTION_SUMMARY_PREFIX = ("The conversation history before this point was compacted into the "
                             "following summary:\n\n<summary>\n")
BRANCH_SUMMARY_PREFIX = ("The following is a summary of a branch that this conversation came "
                         "back from:\n\n<summary>\n")


@dataclass(frozen=True, slots=True)
class LlmMessage:
    """A message as a model would receive it, remembering which entry it came from."""

    role: Literal["user", "assistant", "toolResult"]
    content: tuple[ContentBlock, ...]
    entry_id: str
    #: The role before conversion ("bashExecution", "custom", "compactionSummary", ...).
    source_role: str
    tool_name: str | None = None
    is_error: bool = False

    @property
    def text(self) -> str:
        return "\n".join(b.text for b in self.content if isinstance(b, TextBlock))


def _user(text: str, entry: Entry, source_role: str) -> LlmMessage:
    return LlmMessage("user", (TextBlock(text),), entry.id, source_role)


def _bash_text(msg: Message) -> str:
    parts = [f"Ran `{msg.command or ''}`"]
    out = msg.output or ""
    parts.append(f"```\n{out}\n```" if out else "(no output)")
    if msg.cancelled:
        parts.append("(command cancelled)")
    elif msg.exit_code not in (None, 0):
        parts.append(f"Command exited with code {msg.exit_code}")
    if msg.truncated and msg.full_output_path:
        parts.append(f"[Output truncated. Full output: {msg.full_output_path}]")
    return "\n".join(parts)


def entry_to_llm_message(entry: Entry) -> LlmMessage | None:
    """The model message an entry stands for, or None when the model never sees it."""
    if entry.type == "compaction" and entry.summary:
        return _user(COMPACTION_SUMMARY_PREFIX + entry.summary + "\n</summary>", entry,
                     "compactionSummary")
    if entry.type == "branch_summary" and entry.summary:
        return _user(BRANCH_SUMMARY_PREFIX + entry.summary + "</summary>", entry, "branchSummary")
    if entry.type == "custom_message":
        blocks = tuple(b for b in entry.content if not isinstance(b, ToolCallBlock))
        return LlmMessage("user", blocks, entry.id, "custom") if blocks else None
    msg = entry.message
    if entry.type != "message" or msg is None:
        return None
    if msg.role == "bashExecution":
        return None if msg.exclude_from_context else _user(_bash_text(msg), entry, "bashExecution")
    if msg.role in ("custom", "hookMessage", "user"):
        return LlmMessage("user", msg.content, entry.id, msg.role)
    if msg.role == "assistant":
        return LlmMessage("assistant", msg.content, entry.id, "assistant")
    if msg.role == "toolResult":
        return LlmMessage("toolResult", msg.content, entry.id, "toolResult",
                          tool_name=msg.tool_name, is_error=msg.is_error)
    if msg.role in ("compactionSummary", "branchSummary"):
        return LlmMessage("user", msg.content, entry.id, msg.role)
    return None


def entries_to_llm_messages(entries: Iterable[Entry]) -> list[LlmMessage]:
    return [m for m in (entry_to_llm_message(e) for e in entries) if m is not None]


def truncate_tool_result(text: str, limit: int = TOOL_RESULT_MAX_CHARS) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n\n[... {len(text) - limit} more characters truncated]"


def _args(arguments: object) -> str:
    if isinstance(arguments, dict):
        return ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in arguments.items())
    return json.dumps(arguments, ensure_ascii=False) if arguments is not None else ""


def _serialize_one(msg: LlmMessage) -> list[str]:
    if msg.role == "user":
        text = msg.text
        return [f"[User]: {text}"] if text else []
    if msg.role == "toolResult":
        text = msg.text
        return [f"[Tool result]: {truncate_tool_result(text)}"] if text else []
    out: list[str] = []
    thinking = [b.thinking for b in msg.content if isinstance(b, ThinkingBlock) and not b.redacted]
    if thinking:
        out.append("[Assistant thinking]: " + "\n".join(thinking))
    text = msg.text
    if text:
        out.append(f"[Assistant]: {text}")
    calls = [b for b in msg.content if isinstance(b, ToolCallBlock)]
    if calls:
        out.append("[Assistant tool calls]: " + "; ".join(f"{c.name}({_args(c.arguments)})"
                                                          for c in calls))
    return out


def serialize_conversation(messages: Sequence[LlmMessage]) -> str:
    """The §3.5 plain-text form: one tagged paragraph per part, blank lines between."""
    return "\n\n".join(part for m in messages for part in _serialize_one(m))


def serialize_entries(entries: Iterable[Entry]) -> str:
    return serialize_conversation(entries_to_llm_messages(entries))
