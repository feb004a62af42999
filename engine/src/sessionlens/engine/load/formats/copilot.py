"""GitHub Copilot CLI event logs (``~/.copilot/session-state/<uuid>/events.jsonl``, and the
older flat ``session-state/<uuid>.jsonl``) read into the model.

Every line is ``{type, data, id, parentId, timestamp}``. Copilot's ``parentId`` often names
events it never writes (streaming deltas), so entries form one chain in file order; the
raw ``parentId`` is kept in ``extra`` when it differs. Mapping decisions:

- ``session.start`` is the header (session id, start time, cwd, Copilot version).
- ``user.message`` is a user message with what the user typed (``content``); the text
  Copilot actually sent (``transformedContent``, with reminders added) is only measured.
- ``assistant.message`` is an assistant message: reasoning, text, one tool call per
  ``toolRequests`` item. Copilot records no model on it; the model named by the
  ``tool.execution_complete`` events of the same interaction is filled in.
- ``tool.execution_complete`` is the ``toolResult`` (``result.content``, or the error).
- Messages of a subagent (they carry ``parentToolCallId``) sit beside the path: they were
  another context window, so they never count toward this one.
- ``session.compaction_complete`` (when ``success``) is a ``compaction``: its
  ``summaryContent``, ``tokens_before`` = ``preCompactionTokens``, checkpoint number and path
  in ``extra``. Copilot compacts in the background while the conversation goes on, so the
  messages written between ``session.compaction_start`` and the completion are kept: the
  first of them is ``first_kept_entry_id``.
- ``session.error`` is an assistant message with stop reason ``error``;
  ``system.notification`` texts are sent to the model, so they are ``custom`` messages;
  warnings, hooks, turns, mode changes, subagent starts and the rest keep their own type.
- Copilot reports output tokens per message only. The context sizes it does report
  (``session.compaction_start``: system + conversation + tool definitions;
  ``session.shutdown``: ``currentTokens``) become the usage of the last assistant message
  before them; per-call input usage is listed as missing.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sessionlens.engine.model import (
    ContentBlock,
    FormatGaps,
    Message,
    SessionHeader,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    Usage,
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
from .jsonl import JsonLine, parse_with, usage_count

__all__ = ["parse"]

API = "github-copilot"
_NOTICES = frozenset({"session.warning", "session.info"})
GAPS = FormatGaps("GitHub Copilot CLI", ("usage",), (
    "context sizes come from compaction and shutdown events, not from each model call",))


class _Reader:
    """State of one pass over an events file."""

    def __init__(self, path: Path) -> None:
        self.chain = Chain(path, "copilot-events")
        self.diags = self.chain.diags
        self.header: SessionHeader | None = None
        self.by_interaction: dict[str, list[int]] = {}   # interaction id -> assistant entries
        self.last_assistant: int | None = None
        self.compaction_start: int | None = None         # entry count at compaction_start
        self.start_tokens: dict[str, int] = {}

    def _add(self, jl: JsonLine, etype: str, side: bool = False, **fields: Any) -> int:
        obj = jl.obj
        eid = as_str(obj.get("id")) or f"{jl.line:08x}"
        extra = dict(fields.pop("extra", {}))
        extra["copilot_type"] = obj.get("type")
        raw_parent = obj.get("parentId")
        if raw_parent is not None and raw_parent != self.chain.prev:
            extra["parent_event_id"] = raw_parent
        ts = as_str(obj.get("timestamp"))
        self.chain.add(etype, eid, line=jl.line, offset=jl.offset, length=jl.length,
                       timestamp=ts, extra=extra, moves_leaf=not side, **fields)
        return len(self.chain.entries) - 1

    def line(self, jl: JsonLine, etype: str) -> None:
        data = jl.obj.get("data")
        if not isinstance(data, dict):
            self.chain.error(jl.line, f"{etype!r} event has no 'data' object; skipped")
            return
        ms = iso_to_ms(jl.obj.get("timestamp"))
        side = isinstance(data.get("parentToolCallId"), str)
        if etype == "session.start" and self.header is None:
            self._start(jl, data)
        elif etype == "user.message":
            self._user(jl, data, ms)
        elif etype == "assistant.message":
            self._assistant(jl, data, ms, side)
        elif etype == "tool.execution_complete":
            self._tool_done(jl, data, ms, side)
        elif etype == "session.compaction_start":
            self.compaction_start = len(self.chain.entries)
            self.start_tokens = {k: usage_count(data.get(k)) for k in
                                 ("systemTokens", "conversationTokens", "toolDefinitionsTokens")}
            self._context_size(sum(self.start_tokens.values()), "session.compaction_start")
            self._add(jl, etype, extra=self.start_tokens)
        elif etype == "session.compaction_complete":
            self._compacted(jl, data)
        elif etype == "session.error":
            text = str(data.get("message") or data.get("errorType") or "error")
            self._add(jl, "message", message=Message(
                "assistant", (), timestamp_ms=ms, api=API, stop_reason="error",
                error_message=text), extra={"error_type": data.get("errorType")})
        elif etype == "system.notification":
            self._add(jl, "message", message=text_message(
                "custom", str(data.get("content") or ""), ms, custom_type="copilot.notification"))
        elif etype in _NOTICES:
            self._add(jl, "notice", extra={"text": str(data.get("message") or ""),
                                           "kind": data.get("warningType") or data.get("infoType")})
        elif etype == "session.shutdown":
            current = usage_count(data.get("currentTokens"))
            if current:
                self._context_size(current, "session.shutdown")
            self._add(jl, etype, extra={k: data[k] for k in (
                "shutdownType", "currentModel", "currentTokens", "modelMetrics",
                "totalPremiumRequests") if k in data})
        else:
            self._add(jl, etype, side=side, extra=_summary(data))

    def _start(self, jl: JsonLine, data: dict[str, Any]) -> None:
        ctx = as_dict(data.get("context"))
        extra = {"agent": "copilot-cli"}
        for key, name in (("copilotVersion", "copilot_version"), ("producer", "producer")):
            if isinstance(data.get(key), str):
                extra[name] = data[key]
        for key in ("branch", "repository", "gitRoot"):
            if isinstance(ctx.get(key), str):
                extra[key] = ctx[key]
        sid = as_str(data.get("sessionId"))
        start = as_str(data.get("startTime"))
        self.header = SessionHeader(
            id=sid or self.chain.path.parent.name, version=0,
            timestamp=start or jl.obj.get("timestamp"), provider="github-copilot",
            cwd=as_str(ctx.get("cwd")), line=jl.line,
            extra=freeze(extra))

    def _user(self, jl: JsonLine, data: dict[str, Any], ms: int | None) -> None:
        content = data.get("content")
        extra: dict[str, Any] = {}
        if isinstance(data.get("transformedContent"), str):
            extra["sent_chars"] = len(data["transformedContent"])
        if isinstance(data.get("agentMode"), str):
            extra["agent_mode"] = data["agentMode"]
        self._add(jl, "message", extra=extra, message=text_message(
            "user", content if isinstance(content, str) else json_text(content), ms))

    def _assistant(self, jl: JsonLine, data: dict[str, Any], ms: int | None,
                   side: bool) -> None:
        blocks: list[ContentBlock] = []
        if isinstance(data.get("reasoningText"), str) and data["reasoningText"]:
            blocks.append(ThinkingBlock(data["reasoningText"]))
        elif isinstance(data.get("reasoningOpaque"), str):
            blocks.append(ThinkingBlock("", redacted=True))
        if isinstance(data.get("content"), str) and data["content"].strip():
            blocks.append(TextBlock(data["content"]))
        calls = [r for r in as_list(data.get("toolRequests")) if isinstance(r, dict)]
        for r in calls:
            args, partial = arguments_of(r.get("arguments"))
            blocks.append(ToolCallBlock(str(r.get("toolCallId") or ""), str(r.get("name") or ""),
                                        args, partial))
        extra: dict[str, Any] = {"output_tokens": data.get("outputTokens")}
        if side:
            extra["parent_tool_call_id"] = data["parentToolCallId"]
        at = self._add(jl, "message", side=side, extra=extra, message=Message(
            "assistant", tuple(blocks), timestamp_ms=ms, api=API, provider="github-copilot",
            stop_reason="toolUse" if calls else "stop"))
        interaction = data.get("interactionId")
        if isinstance(interaction, str):
            self.by_interaction.setdefault(interaction, []).append(at)
        if not side:
            self.last_assistant = at

    def _tool_done(self, jl: JsonLine, data: dict[str, Any], ms: int | None,
                   side: bool) -> None:
        result = data.get("result")
        error = data.get("error")
        failed = data.get("success") is False or error is not None
        if isinstance(result, dict):
            text = result.get("content")
            text = text if isinstance(text, str) else json_text(result)
        elif isinstance(error, dict):
            text = str(error.get("message") or error.get("code") or json_text(error))
        else:
            text = json_text(result if result is not None else error)
        self._add(jl, "message", side=side, message=text_message(
            "toolResult", text, ms, tool_call_id=str(data.get("toolCallId") or ""),
            is_error=failed))
        model, interaction = data.get("model"), data.get("interactionId")
        if isinstance(model, str) and isinstance(interaction, str):
            for at in self.by_interaction.get(interaction, []):
                msg = self.chain.entries[at].message
                if msg is not None and msg.model is None:
                    self.chain.update_message(at, model=model)

    def _context_size(self, tokens: int, source: str) -> None:
        at = self.last_assistant
        if at is None or not tokens:
            return
        entry = self.chain.entries[at]
        self.chain.update(at, extra=freeze({**entry.extra, "usage_source": source}))
        self.chain.update_message(at, usage=Usage(total_tokens=tokens))
        self.last_assistant = None

    def _compacted(self, jl: JsonLine, data: dict[str, Any]) -> None:
        extra: dict[str, Any] = {k: data[k] for k in ("checkpointNumber", "checkpointPath",
                                      "compactionTokensUsed", "preCompactionMessagesLength",
                                      "success") if k in data}
        if data.get("success") is False:
            self._add(jl, "compaction_failed", extra=extra)
            return
        first_kept = None
        if self.compaction_start is not None:
            first_kept = next((e.id for e in self.chain.entries[self.compaction_start:]
                               if e.message is not None and e.append_mode is None), None)
        extra.update(self.start_tokens)
        pre = data.get("preCompactionTokens")
        at = self._add(jl, "compaction", summary=str(data.get("summaryContent") or ""),
                       tokens_before=pre if type(pre) is int else None, extra=extra)
        entry = self.chain.entries[at]
        self.chain.update(at, first_kept_entry_id=first_kept or entry.id)
        self.compaction_start = None
        self.last_assistant = None

    def finish(self) -> ParsedFile:
        header = self.header or SessionHeader(
            id=self.chain.path.parent.name if self.chain.path.name == "events.jsonl"
            else self.chain.path.stem, version=0, line=0,
            extra=freeze({"agent": "copilot-cli", "synthesized": True}))
        if self.header is None:
            self.chain.warn(None, "no session.start event; the session id comes from the "
                            "folder name")
        model = next((e.message.model for e in self.chain.entries
                      if e.message is not None and e.message.model), None)
        return self.chain.parsed(dataclasses.replace(header, model_id=model), GAPS)


def _summary(data: dict[str, Any]) -> dict[str, Any]:
    """The small scalar fields of an event (for the timeline), without bulky ones."""
    return {k: v for k, v in data.items() if isinstance(v, (str, int, float, bool))
            and not (isinstance(v, str) and len(v) > 500)}


def parse(data: bytes, path: Path, *, on_progress: Callable[[int, int], None] | None = None,
          cancel: Callable[[], bool] | None = None) -> ParsedFile:
    """Read a Copilot CLI events file; never raises for a bad line."""
    reader = _Reader(Path(path))
    return parse_with(reader, data, path, on_progress=on_progress, cancel=cancel)
