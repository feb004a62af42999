"""Amp threads (``~/.local/share/amp/threads/T-<uuid>.json``, under ``$XDG_DATA_HOME``).

One object per thread: ``id``, ``created``, ``title``, ``messages`` and ``usageLedger``.
Messages carry Anthropic-shaped content (``text``, ``thinking``, ``tool_use``, and
``tool_result`` blocks on user messages whose ``run`` holds the status and the result).
Mapping decisions:

- Entry ids are ``m<messageId>``; a user message's ``tool_result`` blocks are one
  ``toolResult`` entry each (``m<messageId>:<k>``), an error when ``run.status`` says it failed
  or was cancelled (an ``in-progress`` one was still running when the thread was saved).
- An assistant message's ``usage`` (input, output, cache creation and read; ``credits``
  in ``extra``, they are not dollars) is its usage; ``state.stopReason`` its stop reason,
  an ``error`` or ``cancelled`` state giving pi's ``error`` / ``aborted``.
- Times: a user message's ``meta.sentAt``; an assistant message's is the time of the
  ``usageLedger`` inference event that produced it (``toMessageId``). Messages without
  either have none.

No compaction marker of Amp's is known, so none is read. Amp does not estimate tokens
itself in the thread file: the exact count is the one to use.
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
    Usage,
)

from . import ParsedFile
from .claude_code_blocks import STOP_REASONS, iso_to_ms, map_block
from .entry_chain import (
    Chain,
    as_dict,
    as_list,
    epoch_ms,
    freeze,
    iso_from_ms,
    json_text,
    path_of_uri,
)
from .field_errors import read_guarded
from .jsondoc import Record, read_document
from .jsonl import usage_count

__all__ = ["parse"]

_FAILED = frozenset({"error", "cancelled", "rejected-by-user", "failed"})
GAPS = FormatGaps("Amp", (), ("assistant times come from the thread's usage ledger",))


def _usage(raw: Any) -> Usage | None:
    if not isinstance(raw, dict):
        return None
    inp, out = usage_count(raw.get("inputTokens")), usage_count(raw.get("outputTokens"))
    c_write = usage_count(raw.get("cacheCreationInputTokens"))
    c_read = usage_count(raw.get("cacheReadInputTokens"))
    total_in = usage_count(raw.get("totalInputTokens")) or inp + c_write + c_read
    return Usage(input=inp, output=out, cache_read=c_read, cache_write=c_write,
                 total_tokens=total_in + out)


def _result(block: dict[str, Any], ms: int | None, names: dict[str, str]) -> Message:
    run = as_dict(block.get("run"))
    status = run.get("status")
    body = run.get("result") if "result" in run else run.get("error", run.get("progress"))
    text = body if isinstance(body, str) else json_text(body) if body is not None else ""
    call_id = str(block.get("toolUseID") or "")
    return Message("toolResult", (TextBlock(text),) if text else (), timestamp_ms=ms,
                   tool_call_id=call_id, tool_name=names.get(call_id),
                   is_error=isinstance(status, str) and status in _FAILED)


class _Thread:
    def __init__(self, path: Path, ledger: dict[int, str]) -> None:
        self.chain = Chain(path, "amp")
        self.ledger = ledger
        self.names: dict[str, str] = {}

    def message(self, rec: Record) -> None:
        m = rec.value
        if not isinstance(m, dict) or m.get("role") not in ("user", "assistant"):
            self.chain.error(rec.line, f"messages[{rec.index}] is not a user or assistant "
                             "message; skipped")
            return
        mid = m.get("messageId")
        eid = f"m{mid}" if isinstance(mid, int) else f"r{rec.index}"
        span: dict[str, Any] = {"line": rec.line, "offset": rec.offset, "length": rec.length}
        content = as_list(m.get("content"))
        if m["role"] == "user":
            meta = as_dict(m.get("meta"))
            ms = epoch_ms(meta.get("sentAt"))
            blocks: list[ContentBlock] = []
            k = 0
            for b in content:
                if isinstance(b, dict) and b.get("type") == "tool_result":
                    self.chain.add("message", eid if k == 0 else f"{eid}:{k}",
                                   timestamp=iso_from_ms(ms),
                                   message=_result(b, ms, self.names), **span)
                    k += 1
                else:
                    mapped = map_block(b)
                    if mapped is not None:
                        blocks.append(mapped)
            if blocks or k == 0:
                self.chain.add("message", eid if k == 0 else f"{eid}:{k}",
                               timestamp=iso_from_ms(ms), message=Message(
                                   "user", tuple(blocks), timestamp_ms=ms), **span)
            return
        ts = self.ledger.get(mid) if isinstance(mid, int) else None
        blocks = [b for b in (map_block(x) for x in content) if b is not None]
        for b in blocks:
            if isinstance(b, ToolCallBlock):
                self.names[b.id] = b.name
        state = as_dict(m.get("state"))
        usage_raw = as_dict(m.get("usage"))
        stop = state.get("stopReason")
        stop = STOP_REASONS.get(stop, stop) if isinstance(stop, str) else None
        error = None
        if state.get("type") in ("error", "cancelled"):
            stop = "error" if state["type"] == "error" else "aborted"
            error = str(state.get("error") or state.get("message") or state["type"])
        self.chain.add("message", eid, timestamp=ts, extra={
            "credits": usage_raw.get("credits"), "state": state.get("type")}, message=Message(
                "assistant", tuple(blocks), timestamp_ms=iso_to_ms(ts), api="anthropic-messages",
                provider="amp", model=usage_raw.get("model") if isinstance(
                    usage_raw.get("model"), str) else None, usage=_usage(m.get("usage")),
                stop_reason=stop, error_message=error), **span)


def _workspace(env: Any) -> str | None:
    """The first workspace folder of the thread's environment (``env.initial.trees``)."""
    initial = env.get("initial") if isinstance(env, dict) else None
    trees = initial.get("trees") if isinstance(initial, dict) else None
    uri = trees[0].get("uri") if isinstance(trees, list) and trees and isinstance(
        trees[0], dict) else None
    return path_of_uri(uri)


def parse(data: bytes, path: Path, *, on_progress: Callable[[int, int], None] | None = None,
          cancel: Callable[[], bool] | None = None) -> ParsedFile:
    """Read an Amp thread; never raises for a bad record."""
    path = Path(path)
    diags: list[Diagnostic] = []
    doc = read_document(data, path, diags, arrays=("messages",))
    top = doc.top or {}
    ledger: dict[int, str] = {}
    events = top.get("usageLedger", {}).get("events") if isinstance(
        top.get("usageLedger"), dict) else None
    for ev in as_list(events):
        if isinstance(ev, dict) and ev.get("operationType") == "inference" and \
                isinstance(ev.get("toMessageId"), int) and isinstance(ev.get("timestamp"), str):
            ledger.setdefault(ev["toMessageId"], ev["timestamp"])
    thread = _Thread(path, ledger)
    if isinstance(top.get("title"), str) and top["title"]:
        thread.chain.add("session_info", "title", line=1, name=top["title"])
    for rec in doc.arrays.get("messages", []):
        read_guarded(thread.chain.diags, str(path), rec.line, thread.message, rec)
    if on_progress is not None:
        on_progress(len(data), len(data))
    created = epoch_ms(top.get("created"))
    model = next((e.message.model for e in thread.chain.entries
                  if e.message is not None and e.message.model), None)
    header = SessionHeader(id=str(top.get("id") or path.stem), version=0,
                           timestamp=iso_from_ms(created), provider="amp", model_id=model,
                           cwd=_workspace(top.get("env")),
                           line=1, extra=freeze({"agent": "amp", "thread_version": top.get("v"),
                                                 "agent_mode": top.get("agentMode")}))
    return thread.chain.parsed(header, GAPS, diags)
