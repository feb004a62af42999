"""GitHub Copilot CLI's older ``~/.copilot/history-session-state/session_<uuid>_<ms>.json``.

One object: ``sessionId``, ``startTime``, ``chatMessages`` (what the model saw, OpenAI chat
shape, without ids or times) and ``timeline`` (what the user saw: typed prompts, replies,
finished tool calls, info and error lines, each with an id and a time). Entries follow
``chatMessages``, the model's view; the timeline is walked alongside to lend each message
its id and time (a prompt to the next ``user`` message, a reply to the next assistant
message with text, a finished tool call to the ``tool`` message answering it), and its
``error`` items (sign-in, rate limits) become failed assistant turns where they happened.
Assistant messages that only call tools have no timeline item, so no time. Neither part
records a model or token usage.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from sessionlens.engine.model import (
    ContentBlock,
    Diagnostic,
    FormatGaps,
    Message,
    SessionHeader,
    TextBlock,
    ToolCallBlock,
)

from . import ParsedFile
from .claude_code_blocks import iso_to_ms
from .entry_chain import (
    Chain,
    arguments_of,
    as_dict,
    as_list,
    as_str,
    freeze,
    json_text,
    text_message,
)
from .field_errors import read_guarded
from .jsondoc import Record, read_document

__all__ = ["parse"]

GAPS = FormatGaps("GitHub Copilot CLI", ("usage", "model"), (
    "assistant messages that only call tools have no time: the timeline lists only replies",
    "ids of messages without a timeline item are their position in chatMessages",
))


def _message(m: dict[str, Any], ms: int | None) -> Message | None:
    role = m.get("role")
    content = m.get("content")
    text = content if isinstance(content, str) else json_text(content) if content else ""
    if role == "user":
        return text_message("user", text, ms)
    if role == "system":
        return text_message("custom", text, ms, custom_type="copilot.system")
    if role == "tool":
        return text_message("toolResult", text, ms, tool_call_id=str(m.get("tool_call_id") or ""))
    if role != "assistant":
        return None
    blocks: list[ContentBlock] = [TextBlock(text)] if text else []
    calls = [c for c in as_list(m.get("tool_calls")) if isinstance(c, dict)]
    for c in calls:
        fn = as_dict(c.get("function"))
        args, partial = arguments_of(fn.get("arguments"))
        blocks.append(ToolCallBlock(str(c.get("id") or ""), str(fn.get("name") or ""), args,
                                    partial))
    return Message("assistant", tuple(blocks), timestamp_ms=ms, api="openai-completions",
                   provider="github-copilot", stop_reason="toolUse" if calls else "stop")


def _matches(item: dict[str, Any], m: dict[str, Any]) -> bool:
    """Whether timeline ``item`` is the one shown for chat message ``m``."""
    kind, role = item.get("type"), m.get("role")
    if kind == "user":
        return role == "user"
    if kind == "copilot":
        return role == "assistant" and bool(m.get("content"))
    if kind == "tool_call_completed":
        return role == "tool" and m.get("tool_call_id") == item.get("callId")
    return False


class _Merge:
    """Chat messages in order, each given the id and time of its timeline item."""

    def __init__(self, path: Path, chat: list[Record]) -> None:
        self.chain = Chain(path, "copilot-legacy")
        self.chat = chat
        self.next = 0

    def emit(self, rec: Record, item: dict[str, Any] | None) -> None:
        read_guarded(self.chain.diags, self.chain.spath, rec.line, self._emit, rec, item)

    def _emit(self, rec: Record, item: dict[str, Any] | None) -> None:
        m = rec.value
        if not isinstance(m, dict):
            self.chain.error(rec.line, f"chatMessages[{rec.index}] is not an object; skipped")
            return
        ts = item.get("timestamp") if item is not None else None
        ts = as_str(ts)
        msg = _message(m, iso_to_ms(ts))
        if msg is None:
            self.chain.warn(rec.line, f"chatMessages[{rec.index}] has unknown role "
                            f"{m.get('role')!r}; skipped")
            return
        eid = (as_str(item.get("id")) if item is not None else None) or f"m{rec.index:04d}"
        extra: dict[str, Any] = {"chat_index": rec.index}
        if item is not None and isinstance(item.get("intentionSummary"), str):
            extra["intention"] = item["intentionSummary"]
        if item is not None and isinstance(item.get("result"), dict):
            extra["result_type"] = item["result"].get("type")
            if item["result"].get("type") == "failure" and msg.role == "toolResult":
                msg = Message(msg.role, msg.content, timestamp_ms=msg.timestamp_ms,
                              tool_call_id=msg.tool_call_id, tool_name=item.get("name"),
                              is_error=True)
        self.chain.add("message", eid, line=rec.line, offset=rec.offset, length=rec.length,
                       timestamp=ts, message=msg, extra=extra)

    def timeline_item(self, rec: Record) -> None:
        item = rec.value
        if not isinstance(item, dict):
            self.chain.error(rec.line, f"timeline[{rec.index}] is not an object; skipped")
            return
        kind = item.get("type")
        ts = as_str(item.get("timestamp"))
        eid = str(item.get("id") or f"t{rec.index:04d}")
        if kind == "error":
            self.chain.add("message", eid, line=rec.line, offset=rec.offset, length=rec.length,
                           timestamp=ts, extra={"timeline_type": "error"}, message=Message(
                               "assistant", (), timestamp_ms=iso_to_ms(ts), stop_reason="error",
                               error_message=str(item.get("text") or "error")))
            return
        if kind not in ("user", "copilot", "tool_call_completed"):
            self.chain.add("notice", eid, line=rec.line, offset=rec.offset, length=rec.length,
                           timestamp=ts, extra={"timeline_type": kind,
                                                "text": str(item.get("text") or "")})
            return
        for k in range(self.next, len(self.chat)):
            m = self.chat[k].value
            if isinstance(m, dict) and _matches(item, m):
                for rec_k in self.chat[self.next:k]:
                    self.emit(rec_k, None)
                self.emit(self.chat[k], item)
                self.next = k + 1
                return
        self.chain.warn(rec.line, f"timeline[{rec.index}] ({kind}) matches no chat message "
                        "after the ones already placed; its time is not used")

    def finish(self) -> None:
        for rec in self.chat[self.next:]:
            self.emit(rec, None)


def parse(data: bytes, path: Path, *, on_progress: Callable[[int, int], None] | None = None,
          cancel: Callable[[], bool] | None = None) -> ParsedFile:
    """Read a history-session-state file; never raises for a bad record."""
    path = Path(path)
    diags: list[Diagnostic] = []
    doc = read_document(data, path, diags, arrays=("chatMessages", "timeline"))
    top = doc.top or {}
    merge = _Merge(path, doc.arrays.get("chatMessages", []))
    for rec in doc.arrays.get("timeline", []):
        read_guarded(merge.chain.diags, str(path), rec.line, merge.timeline_item, rec)
    merge.finish()
    if on_progress is not None:
        on_progress(len(data), len(data))
    sid = as_str(top.get("sessionId")) or path.stem
    start = as_str(top.get("startTime"))
    header = SessionHeader(id=sid, version=0, timestamp=start, provider="github-copilot",
                           line=1, extra=freeze({"agent": "copilot-cli", "layout": "legacy"}))
    return merge.chain.parsed(header, GAPS, diags)
