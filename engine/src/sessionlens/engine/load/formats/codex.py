"""Codex CLI rollout files (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``) read into the model.

Every line is ``{timestamp, type, payload}``. Codex lines carry no ids, so each entry gets a
deterministic 8-hex id from its line number and the entries form one linear chain in file
order (the leaf is the last line). Mapping decisions:

- ``session_meta`` (the first one) is the header; ``turn_context`` is a ``model_change``
  entry (model, cwd, effort in ``extra``).
- ``response_item`` lines become messages (see ``codex_items``); other item types are kept
  as entries of their own type.
- ``event_msg`` lines are entries of their payload type and never reach the context:
  ``user_message`` / ``agent_message`` repeat response items and would count twice.
  ``token_count`` also puts its ``last_token_usage`` on the newest assistant entry since the
  previous count (the end of that model response), so reported context tokens flow through
  ``Usage`` as for pi files. An ``error`` event is an assistant message with stop reason
  ``error`` (what pi writes for a failed turn); ``turn_aborted`` keeps its reason.
- ``compacted`` is a ``compaction`` whose ``first_kept_entry_id`` is itself (Codex keeps
  nothing from before). Its summary is what the model sees afterwards: the rendered
  ``replacement_history`` when there is one (the ``message`` field is often empty), else
  ``message``. ``tokens_before`` is the context of the last token count before it.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

from sessionlens.engine.model import Diagnostic, Entry, Format, Message, SessionHeader, Usage

from . import ParsedFile
from .claude_code_blocks import iso_to_ms
from .codex_items import item_message, render_history, usage_parts
from .jsonl import JsonLine, parse_with

__all__ = ["FORMAT", "parse", "rollout_session_id"]

FORMAT: Format = "codex"
_ROLLOUT_ID = re.compile(
    r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$", re.I)
_META_KEYS = ("cli_version", "originator", "source", "model_provider", "instructions")


def rollout_session_id(path: Path) -> str | None:
    """The uuid at the end of a ``rollout-<ts>-<uuid>.jsonl`` name, else None."""
    m = _ROLLOUT_ID.search(path.name)
    return m.group(1) if m else None


def _freeze(extra: dict[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType(extra)


class _Reader:
    """State of one pass over a rollout file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.spath = str(path)
        self.diags: list[Diagnostic] = []
        self.entries: list[Entry] = []
        self.header: SessionHeader | None = None
        self.first_ts: str | None = None
        self.prev: str | None = None
        self.model: str | None = None
        self.provider: str | None = None
        self.tool_names: dict[str, str] = {}
        self.open_assistant: int | None = None   # newest assistant entry awaiting usage
        self.last_context: int | None = None     # context tokens of the last token_count

    def _append(self, jl: JsonLine, etype: str, ts: str | None, **fields: Any) -> Entry:
        eid = f"{jl.line:08x}"
        entry = Entry(type=etype, id=eid, parent_id=self.prev, timestamp=ts, line=jl.line,
                      offset=jl.offset, length=jl.length, **fields)
        self.entries.append(entry)
        self.prev = eid
        return entry

    def line(self, jl: JsonLine, ltype: str) -> None:
        obj = jl.obj
        ts = obj.get("timestamp") if isinstance(obj.get("timestamp"), str) else None
        if self.first_ts is None:
            self.first_ts = ts
        payload = obj.get("payload")
        if not isinstance(payload, dict):
            self.diags.append(Diagnostic(self.spath, jl.line,
                                         f"{ltype!r} line has no 'payload' object; skipped"))
            return
        if ltype == "session_meta" and self.header is None:
            self._meta(jl, payload, ts)
        elif ltype == "turn_context":
            self._turn(jl, payload, ts)
        elif ltype == "response_item":
            self._item(jl, payload, ts)
        elif ltype == "event_msg":
            self._event(jl, payload, ts)
        elif ltype == "compacted":
            self._compacted(jl, payload, ts)
        else:
            self._append(jl, ltype, ts, extra=_freeze({"codex_type": ltype}))

    def _meta(self, jl: JsonLine, p: dict[str, Any], ts: str | None) -> None:
        extra: dict[str, Any] = {"agent": "codex"}
        for key in _META_KEYS:
            if isinstance(p.get(key), str):
                extra[key] = p[key]
        if isinstance(p.get("git"), dict):
            extra["git"] = p["git"]
        base = p.get("base_instructions")
        if isinstance(base, dict) and isinstance(base.get("text"), str):
            extra["base_instructions_chars"] = len(base["text"])
        sid = p.get("id")
        if not isinstance(sid, str) or not sid:
            self.diags.append(Diagnostic(self.spath, jl.line, "session_meta has no string "
                                         "'id'; the file name's id is used", "warning"))
            sid = rollout_session_id(self.path) or self.path.stem
        self.provider = p.get("model_provider") if isinstance(
            p.get("model_provider"), str) else None
        stamp = p.get("timestamp") if isinstance(p.get("timestamp"), str) else ts
        cwd = p.get("cwd") if isinstance(p.get("cwd"), str) else None
        self.header = SessionHeader(id=sid, version=0, timestamp=stamp, cwd=cwd,
                                    provider=self.provider, line=jl.line,
                                    extra=_freeze(extra))

    def _turn(self, jl: JsonLine, p: dict[str, Any], ts: str | None) -> None:
        model = p.get("model") if isinstance(p.get("model"), str) else None
        if model is not None:
            self.model = model
        extra: dict[str, Any] = {"codex_type": "turn_context"}
        for key in ("cwd", "effort", "approval_policy", "turn_id", "summary"):
            if isinstance(p.get(key), str):
                extra[key] = p[key]
        self._append(jl, "model_change", ts, provider=self.provider, model_id=model,
                     extra=_freeze(extra))

    def _item(self, jl: JsonLine, p: dict[str, Any], ts: str | None) -> None:
        ptype = p.get("type") if isinstance(p.get("type"), str) else None
        msg = item_message(p, iso_to_ms(ts), self.tool_names, self.model, self.provider)
        extra: dict[str, Any] = {"codex_type": f"response_item.{ptype}"}
        if msg is None:
            self._append(jl, ptype or "response_item", ts, extra=_freeze(extra))
            return
        if ptype == "reasoning" and isinstance(p.get("encrypted_content"), str):
            extra["encrypted_chars"] = len(p["encrypted_content"])
        if isinstance(p.get("phase"), str):
            extra["phase"] = p["phase"]
        self._append(jl, "message", ts, message=msg, extra=_freeze(extra))
        if msg.role == "assistant":
            self.open_assistant = len(self.entries) - 1

    def _event(self, jl: JsonLine, p: dict[str, Any], ts: str | None) -> None:
        etype = p["type"] if isinstance(p.get("type"), str) and p["type"] else "event_msg"
        extra: dict[str, Any] = {"codex_type": f"event_msg.{etype}"}
        if etype == "error":
            text = str(p.get("message") or "error")
            msg = Message("assistant", (), timestamp_ms=iso_to_ms(ts), api="openai-responses",
                          provider=self.provider, model=self.model, stop_reason="error",
                          error_message=text)
            self._append(jl, "message", ts, message=msg, extra=_freeze(extra))
            return
        if etype == "token_count":
            self._token_count(p, extra)
        reason = p.get("reason") if isinstance(p.get("reason"), str) else None
        if etype == "turn_aborted":
            extra["aborted"] = True
        self._append(jl, etype, ts, reason=reason, extra=_freeze(extra))

    def _token_count(self, p: dict[str, Any], extra: dict[str, Any]) -> None:
        info = p.get("info")
        if not isinstance(info, dict):
            return
        parts = usage_parts(info.get("last_token_usage"))
        if isinstance(info.get("model_context_window"), int):
            extra["model_context_window"] = info["model_context_window"]
        if parts is None:
            return
        extra["usage"] = parts
        self.last_context = parts["total_tokens"] or None
        at = self.open_assistant
        self.open_assistant = None
        if at is None:
            return
        entry = self.entries[at]
        assert entry.message is not None
        usage = Usage(**parts)
        self.entries[at] = dataclasses.replace(
            entry, message=dataclasses.replace(entry.message, usage=usage))

    def _compacted(self, jl: JsonLine, p: dict[str, Any], ts: str | None) -> None:
        raw_message = p.get("message")
        message = raw_message if isinstance(raw_message, str) else ""
        history = p.get("replacement_history")
        extra: dict[str, Any] = {"codex_type": "compacted", "message_chars": len(message)}
        if isinstance(history, list) and history:
            summary = render_history(history)
            kinds = Counter(
                str(h.get("role") or h.get("type")) for h in history if isinstance(h, dict))
            extra.update(summary_source="replacement_history",
                         replacement_items=len(history), replacement_kinds=dict(kinds))
        else:
            summary = message
            extra["summary_source"] = "message"
        if self.last_context is not None:
            extra["tokens_before_source"] = "last token_count"
        eid = f"{jl.line:08x}"
        self._append(jl, "compaction", ts, summary=summary, first_kept_entry_id=eid,
                     tokens_before=self.last_context, extra=_freeze(extra))
        self.open_assistant = None

    def finish(self) -> ParsedFile:
        header = self.header
        if header is None:
            self.diags.append(Diagnostic(self.spath, None, "no session_meta line; the "
                                         "session id comes from the file name", "warning"))
            header = SessionHeader(
                id=rollout_session_id(self.path) or self.path.stem, version=0,
                timestamp=self.first_ts, line=0,
                extra=_freeze({"agent": "codex", "synthesized": True}))
        first_model = next((e.model_id for e in self.entries if e.type == "model_change"
                            and e.model_id), None)
        if first_model is not None:
            header = dataclasses.replace(header, model_id=first_model)
        return ParsedFile(FORMAT, header, tuple(self.entries), tuple(self.diags))


def parse(data: bytes, path: Path, *, on_progress: Callable[[int, int], None] | None = None,
          cancel: Callable[[], bool] | None = None) -> ParsedFile:
    """Read a Codex rollout file; never raises for a bad line."""
    reader = _Reader(Path(path))
    return parse_with(reader, data, path, on_progress=on_progress, cancel=cancel)
