"""Cline and Roo Code task logs (``.../globalStorage/<extension>/tasks/<id>/ui_messages.json``).

The file is Cline's UI message list: ``{ts, type: "say" | "ask", say | ask, text, ...}``
records (Roo Code, a fork, writes the same list). It is what the user saw, not the API
conversation (``api_conversation_history.json`` beside it), so tool results are only there
for commands and MCP calls. Mapping decisions:

- ``task``, ``user_feedback`` (and a ``text`` record carrying ``images`` / ``files``,
  which is how newer Cline writes the task) are user messages; ``text``,
  ``completion_result``, ``reasoning`` and the ``followup`` question are assistant
  messages; a ``tool`` record (its JSON text names the tool) and ``command`` /
  ``use_mcp_server`` are assistant tool calls, answered by ``command_output`` /
  ``mcp_server_response``. Ids are the records' ``ts`` (epoch ms, also their time); the
  model is ``modelInfo.modelId``.
- ``api_req_started`` carries the request's usage (``tokensIn``, ``tokensOut``,
  ``cacheReads``, ``cacheWrites``, ``cost``): it becomes the usage of the last assistant
  message of that request.
- Errors: ``api_req_failed`` and ``error`` are assistant messages with stop reason
  ``error``; each ``error_retry`` (a failed attempt Cline retried) is a notice marked as an
  error.
- ``deleted_api_reqs`` is not a compaction: Cline writes it when a checkpoint restore or a
  retry deleted the messages after a point, with their token totals. It is an entry of type
  ``rewind`` (out of the context) holding those totals.
- Compactions: Cline's ``condense`` / ``summarize_task`` asks (the summary is their text),
  Roo Code's ``condense_context`` (``contextCondense.summary``, ``prevContextTokens``) and
  ``sliding_window_truncation`` (messages dropped without a summary; ``messagesRemoved``).
  The log does not say which messages stayed, so none are shown kept.

A file with Roo Code's markers (or under ``rooveterinaryinc.roo-cline``) reads as
``roo-code``. Neither agent estimates tokens itself: the exact count is the one to use.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from sessionlens.engine.model import (
    ContentBlock,
    Diagnostic,
    Format,
    FormatGaps,
    ImageBlock,
    Message,
    SessionHeader,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    Usage,
)

from . import ParsedFile
from .entry_chain import (
    Chain,
    as_dict,
    as_list,
    as_str,
    epoch_ms,
    freeze,
    iso_from_ms,
    text_message,
)
from .field_errors import read_guarded
from .jsondoc import Record, read_document
from .jsonl import usage_count

__all__ = ["parse", "task_id_of"]

_USER = frozenset({"task", "user_feedback", "user_feedback_diff"})
_SAID = frozenset({"text", "completion_result"})
_ROO = frozenset({"condense_context", "sliding_window_truncation", "condense_context_error"})
_COMPACT_ASKS = frozenset({"condense", "summarize_task"})
_NOTICE_SAYS = frozenset({"api_req_retried", "task_progress", "info", "shell_integration_warning",
                          "diff_error", "clineignore_error", "checkpoint_created",
                          "api_req_finished"})


def task_id_of(path: Path) -> str:
    """The task id: the folder ``ui_messages.json`` sits in."""
    return path.parent.name if path.name == "ui_messages.json" else path.stem


def _json(text: Any) -> dict[str, Any]:
    if not isinstance(text, str) or not text.strip().startswith("{"):
        return {}
    try:
        obj = orjson.loads(text)
    except orjson.JSONDecodeError:
        return {}
    return as_dict(obj)


def _images(rec: dict[str, Any]) -> list[ContentBlock]:
    out: list[ContentBlock] = []
    for url in as_list(rec.get("images")):
        if isinstance(url, str) and url.startswith("data:") and "," in url:
            head, data = url.split(",", 1)
            out.append(ImageBlock(head[5:].split(";", 1)[0], data))
    return out


class _Reader:
    def __init__(self, path: Path) -> None:
        self.chain = Chain(path, "cline")
        self.roo = "roo-cline" in str(path).lower()
        self.pending: dict[str, Any] | None = None    # usage of the request in progress
        self.answered: int | None = None              # last assistant entry of that request
        self.open_call: str | None = None             # command / MCP call awaiting output
        self.last_context: int | None = None
        self.model: str | None = None

    def record(self, rec: Record) -> None:
        r = rec.value
        if not isinstance(r, dict):
            self.chain.error(rec.line, f"record {rec.index} is not an object; skipped")
            return
        kind = r.get("say") if r.get("type") == "say" else r.get("ask")
        if not isinstance(kind, str):
            self.chain.error(rec.line, f"record {rec.index} has no 'say' or 'ask' name; skipped")
            return
        ms = epoch_ms(r.get("ts"))
        info = as_dict(r.get("modelInfo"))
        if isinstance(info.get("modelId"), str):
            self.model = info["modelId"]
        self.roo = self.roo or kind in _ROO
        span: dict[str, Any] = {"line": rec.line, "offset": rec.offset, "length": rec.length,
                "timestamp": iso_from_ms(ms)}
        eid = str(r.get("ts") or f"r{rec.index}")
        extra: dict[str, Any] = {"cline": f"{r.get('type')}.{kind}", "record": rec.index}
        if r.get("partial") is True:
            extra["partial"] = True
        text = as_str(r.get("text")) or ""
        self._dispatch(kind, r, text, ms, eid, span, extra, info)

    def _assistant(self, eid: str, span: dict[str, Any], extra: dict[str, Any],
                   blocks: list[ContentBlock], ms: int | None, provider: Any,
                   stop: str = "stop", error: str | None = None) -> None:
        self.chain.add("message", eid, extra=extra, message=Message(
            "assistant", tuple(blocks), timestamp_ms=ms, provider=provider, model=self.model,
            stop_reason=stop, error_message=error), **span)
        if stop != "error":
            self.answered = len(self.chain.entries) - 1

    def _dispatch(self, kind: str, r: dict[str, Any], text: str, ms: int | None, eid: str,
                  span: dict[str, Any], extra: dict[str, Any], info: dict[str, Any]) -> None:
        provider = info.get("providerId")
        if kind in _USER or (kind == "text" and ("images" in r or "files" in r)):
            blocks: list[ContentBlock] = [TextBlock(text)] if text else []
            self.chain.add("message", eid, extra=extra, message=Message(
                "user", tuple(blocks + _images(r)), timestamp_ms=ms), **span)
        elif kind in _SAID or (r.get("type") == "ask" and kind == "followup"):
            body = _json(text).get("question", text) if kind == "followup" else text
            if body:
                self._assistant(eid, span, extra, [TextBlock(str(body))], ms, provider)
        elif kind == "reasoning":
            self._assistant(eid, span, extra, [ThinkingBlock(text)], ms, provider)
        elif kind in ("tool", "command", "use_mcp_server", "browser_action_launch"):
            args: Any = _json(text) or {"text": text}
            name = str(args.get("tool") or {"command": "execute_command",
                                             "use_mcp_server": "use_mcp_tool"}.get(kind, kind))
            if kind == "command":
                args = {"command": text}
            self._assistant(eid, span, extra, [ToolCallBlock(eid, name, args)], ms, provider,
                            "toolUse")
            if kind != "tool":
                self.open_call = eid
        elif kind in ("command_output", "mcp_server_response", "browser_action_result"):
            call, self.open_call = self.open_call, None
            self.chain.add("message", eid, extra=extra, message=text_message(
                "toolResult", text, ms, tool_call_id=call or "", tool_name=kind), **span)
        elif kind == "api_req_started":
            self._request(eid, span, extra, _json(text))
        elif kind in ("api_req_failed", "error", "mistake_limit_reached"):
            message = str(_json(text).get("message") or text or kind)
            self._assistant(eid, span, extra, [], ms, provider, "error", message)
        elif kind == "error_retry":
            self.chain.add("notice", eid, extra={**extra, "error": True, "text": text}, **span)
        elif kind == "deleted_api_reqs":
            self.chain.add("rewind", eid, extra={**extra, **_json(text)}, **span)
        elif kind in _COMPACT_ASKS and r.get("type") == "ask" and text:
            self._compaction(eid, span, extra, text, None, {"source": kind})
        elif kind == "condense_context":
            cc = as_dict(r.get("contextCondense"))
            self._compaction(eid, span, extra, str(cc.get("summary") or ""),
                             cc.get("prevContextTokens"), {
                                 "source": kind, "new_context_tokens": cc.get("newContextTokens"),
                                 "cost": cc.get("cost")})
        elif kind == "sliding_window_truncation":
            ct = as_dict(r.get("contextTruncation"))
            self._compaction(eid, span, extra, "", ct.get("prevContextTokens"), {
                "source": kind, "messages_removed": ct.get("messagesRemoved"),
                "new_context_tokens": ct.get("newContextTokens")})
        else:
            kept = {"text": text} if kind in _NOTICE_SAYS or text else {}
            self.chain.add("notice" if kind in _NOTICE_SAYS else kind, eid,
                           extra={**extra, **kept}, **span)

    def _request(self, eid: str, span: dict[str, Any], extra: dict[str, Any],
                 req: dict[str, Any]) -> None:
        self._settle()
        usage: dict[str, Any] = {k: req[k] for k in ("tokensIn", "tokensOut", "cacheReads", "cacheWrites",
                                     "cost", "cancelReason", "streamingFailedMessage")
                 if k in req}
        if isinstance(req.get("request"), str):
            usage["request_chars"] = len(req["request"])
        self.chain.add("api_req_started", eid, extra={**extra, **usage}, **span)
        self.pending = req

    def _settle(self) -> None:
        """Give the request in progress its usage (on its last assistant message)."""
        req, at = self.pending, self.answered
        self.pending = self.answered = None
        if req is None or at is None:
            return
        inp, out = usage_count(req.get("tokensIn")), usage_count(req.get("tokensOut"))
        c_read, c_write = usage_count(req.get("cacheReads")), usage_count(req.get("cacheWrites"))
        if not (inp or out or c_read or c_write):
            return
        cost = req.get("cost")
        usage = Usage(input=inp, output=out, cache_read=c_read, cache_write=c_write,
                      total_tokens=inp + out + c_read + c_write,
                      cost_total=float(cost) if isinstance(cost, (int, float)) else None)
        self.chain.update_message(at, usage=usage)
        self.last_context = usage.total_tokens

    def _compaction(self, eid: str, span: dict[str, Any], extra: dict[str, Any], summary: str,
                    before: Any, facts: dict[str, Any]) -> None:
        self._settle()
        entry = self.chain.add("compaction", eid, summary=summary,
                               tokens_before=before if type(before) is int else self.last_context,
                               extra={**extra, **facts, "kept_window": "not recorded"}, **span)
        self.chain.update(len(self.chain.entries) - 1, first_kept_entry_id=entry.id)


def parse(data: bytes, path: Path, *, on_progress: Callable[[int, int], None] | None = None,
          cancel: Callable[[], bool] | None = None) -> ParsedFile:
    """Read a Cline / Roo Code ``ui_messages.json``; never raises for a bad record."""
    path = Path(path)
    diags: list[Diagnostic] = []
    doc = read_document(data, path, diags)
    reader = _Reader(path)
    if doc.top is not None:
        diags.append(Diagnostic(str(path), 1, "expected a JSON array of UI messages, found an "
                                "object; nothing read"))
    for rec in doc.arrays.get("", []):
        read_guarded(reader.chain.diags, str(path), rec.line, reader.record, rec)
    reader._settle()
    if on_progress is not None:
        on_progress(len(data), len(data))
    fmt: Format = "roo-code" if reader.roo else "cline"
    reader.chain.format = fmt
    first = next((e.timestamp for e in reader.chain.entries if e.timestamp), None)
    header = SessionHeader(id=task_id_of(path), version=0, timestamp=first, model_id=next(
        (e.message.model for e in reader.chain.entries if e.message and e.message.model), None),
        line=0, extra=freeze({"agent": fmt}))
    compactions = any(e.type == "compaction" for e in reader.chain.entries)
    gaps = FormatGaps("Roo Code" if reader.roo else "Cline", (
        "tool_results", "kept_window") if compactions else ("tool_results",), (
        "ui_messages.json is what the user saw: only command and MCP output is recorded",))
    return reader.chain.parsed(header, gaps, diags)
