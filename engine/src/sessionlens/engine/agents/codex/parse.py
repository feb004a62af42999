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
- ``session_meta``'s ``base_instructions`` is what Codex sends first on every request (a
  developer message): the header's ``sent_first`` (the replayed ``context`` list opens with
  it; it is no entry, so it is counted with what lies outside the transcript).
- ``compacted`` is a ``compaction`` whose ``first_kept_entry_id`` is itself; its summary is
  the ``message`` and each other item of ``replacement_history`` (kept user messages, the
  initial context) a message entry after it (``codex_compacted``), so the replay is what
  Codex sends next. ``tokens_before`` is the context before the compaction's own summarizing
  call (whose answer, ``metadata.compaction_output``, never reaches the context and whose
  usage is the compaction's ``summarizer_usage``). The trigger is ``manual`` when the
  compaction's turn holds no user message (``thread/compact/start``, ``/compact``), else
  ``auto`` (before the turn's message, or inside the turn).
- ``model_context_window`` (``task_started``, ``token_count``) is the entry's
  ``context_window``; ``task_complete`` with an ``error`` is a failed assistant turn;
  ``world_state``, ``token_usage_record``, ``thread_settings_applied`` and ``item_completed``
  are entries of their own (never in the context); record kinds this reader does not know are
  named once per kind in the diagnostics. ``model_auto_compact_token_limit`` of the Codex
  home's ``config.toml`` (four folders up) is the header's ``auto_compact_token_limit``.
"""

from __future__ import annotations

import dataclasses
import re
import tomllib
from collections import Counter
from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

from sessionlens.engine.agents.codex.compacted import read_replacement
from sessionlens.engine.agents.codex.items import item_message, usage_parts
from sessionlens.engine.load.formats import ParsedFile
from sessionlens.engine.load.formats.claude_code_blocks import iso_to_ms
from sessionlens.engine.load.formats.jsonl import JsonLine, parse_with
from sessionlens.engine.model import (
    Diagnostic,
    Entry,
    Format,
    Message,
    SessionHeader,
    Usage,
)

__all__ = ["FORMAT", "codex_config_limit", "parse", "rollout_session_id"]

FORMAT: Format = "codex"
_ROLLOUT_ID = re.compile(
    r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$", re.I)
_META_KEYS = ("cli_version", "originator", "source", "model_provider", "instructions")


_EVENT_KINDS = frozenset({
    "user_message", "agent_message", "agent_reasoning", "agent_reasoning_raw_content",
    "token_count", "error", "turn_aborted", "task_started", "task_complete",
    "thread_settings_applied", "item_completed", "context_compacted", "warning",
    "exec_command_end", "patch_apply_end", "web_search_end", "thread_rolled_back",
    "entered_review_mode", "exited_review_mode", "mcp_tool_call_end", "view_image_tool_call",
    "background_event", "stream_error", "turn_context"})


def rollout_session_id(path: Path) -> str | None:
    """The uuid at the end of a ``rollout-<ts>-<uuid>.jsonl`` name, else None."""
    m = _ROLLOUT_ID.search(path.name)
    return m.group(1) if m else None


#: Sections of the base instructions Codex 0.17x leaves out of what it sends when it offers
#: no ``update_plan`` tool (it offered none in every request 0.171.0 sent here; the rollout
#: records the instructions whole and not the tools).
_PLAN_SECTIONS = ("## Planning", "## `update_plan`")


def _as_sent(text: str, cli_version: str) -> str:
    """The base instructions as Codex sends them: 0.17x drops the ``update_plan`` sections
    (a heading to the next heading of the same or a higher level)."""
    if not cli_version.startswith("0.17"):
        return text
    for heading in _PLAN_SECTIONS:
        at = text.find("\n" + heading + "\n")
        if at < 0:
            continue
        level = len(heading) - len(heading.lstrip("#"))
        end = len(text)
        for m in re.finditer(r"^(#+) ", text[at + 1 + len(heading):], re.M):
            if len(m.group(1)) <= level:
                end = at + 1 + len(heading) + m.start()
                break
        text = text[:at + 1] + text[end:]
    return text


def codex_config_limit(path: Path) -> tuple[int, str] | None:
    """``model_auto_compact_token_limit`` of the ``config.toml`` of the Codex home a rollout
    lies in (``<home>/sessions/YYYY/MM/DD/rollout-*.jsonl``), with where it was read."""
    parents = path.parents
    if len(parents) < 5 or parents[3].name not in ("sessions", "archived_sessions"):
        return None
    config = parents[4] / "config.toml"
    try:
        data = tomllib.loads(config.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    limit = data.get("model_auto_compact_token_limit")
    if isinstance(limit, int) and not isinstance(limit, bool) and limit > 0:
        return limit, f"model_auto_compact_token_limit in {config}"
    return None


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
        self.turn = 0                            # task_started count
        self.user_turns: set[int] = set()        # turns holding a user message
        self.compactions: list[tuple[int, int]] = []   # (entry index, turn)
        self.summarizing: int | None = None      # context frozen at the summarizer's answer
        self.summarizer_usage: dict[str, int] | None = None
        self.unknown: Counter[str] = Counter()
        self.unknown_line: dict[str, int] = {}

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
        elif ltype == "world_state":
            state = payload.get("state")
            self._append(jl, ltype, ts, extra=_freeze({
                "codex_type": ltype, "full": bool(payload.get("full")),
                "keys": sorted(state) if isinstance(state, dict) else []}))
        elif ltype == "token_usage_record":
            extra: dict[str, Any] = {"codex_type": ltype}
            parts = usage_parts(payload.get("usage"))
            if parts is not None:
                extra["usage"] = parts
            if isinstance(payload.get("response_id"), str):
                extra["response_id"] = payload["response_id"]
            self._append(jl, ltype, ts, extra=_freeze(extra))
        else:
            self._unknown(jl, ltype)
            self._append(jl, ltype, ts, extra=_freeze({"codex_type": ltype}))

    def _unknown(self, jl: JsonLine, kind: str) -> None:
        self.unknown[kind] += 1
        self.unknown_line.setdefault(kind, jl.line)

    def _meta(self, jl: JsonLine, p: dict[str, Any], ts: str | None) -> None:
        extra: dict[str, Any] = {"agent": "codex"}
        for key in _META_KEYS:
            if isinstance(p.get(key), str):
                extra[key] = p[key]
        if isinstance(p.get("git"), dict):
            extra["git"] = p["git"]
        base = p.get("base_instructions")
        instructions = base.get("text") if isinstance(base, dict) else None
        sid = p.get("id")
        if not isinstance(sid, str) or not sid:
            self.diags.append(Diagnostic(self.spath, jl.line, "session_meta has no string "
                                         "'id'; the file name's id is used", "warning"))
            sid = rollout_session_id(self.path) or self.path.stem
        self.provider = p.get("model_provider") if isinstance(
            p.get("model_provider"), str) else None
        stamp = p.get("timestamp") if isinstance(p.get("timestamp"), str) else ts
        cwd = p.get("cwd") if isinstance(p.get("cwd"), str) else None
        limit = codex_config_limit(self.path)
        if limit is not None:
            extra["auto_compact_token_limit"], extra["auto_compact_token_limit_source"] = limit
        if isinstance(instructions, str):
            extra["base_instructions_chars"] = len(instructions)
            extra["sent_first"] = {"role": "developer", "text": _as_sent(
                instructions, str(p.get("cli_version") or ""))}
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
        meta = jl.obj.get("metadata")
        if isinstance(meta, dict) and meta.get("compaction_output") is True:
            # the summarizing call's answer: Codex keeps it only inside the `compacted` item
            extra["compaction_output"] = True
            msg = dataclasses.replace(msg, exclude_from_context=True)
            self._append(jl, "message", ts, message=msg, extra=_freeze(extra))
            self.summarizing = self.last_context
            self.open_assistant = None
            return
        if msg.role == "user":
            self.user_turns.add(self.turn)
        self._append(jl, "message", ts, message=msg, extra=_freeze(extra))
        if msg.role == "assistant":
            self.open_assistant = len(self.entries) - 1

    def _event(self, jl: JsonLine, p: dict[str, Any], ts: str | None) -> None:
        etype = p["type"] if isinstance(p.get("type"), str) and p["type"] else "event_msg"
        extra: dict[str, Any] = {"codex_type": f"event_msg.{etype}"}
        error = p.get("error") if etype == "task_complete" else None
        if etype == "error" or isinstance(error, dict):
            text = str((error or p).get("message") or "error")
            if isinstance(error, dict) and isinstance(error.get("codex_error_info"), str):
                extra["codex_error_info"] = error["codex_error_info"]
            msg = Message("assistant", (), timestamp_ms=iso_to_ms(ts), api="openai-responses",
                          provider=self.provider, model=self.model, stop_reason="error",
                          error_message=text)
            self._append(jl, "message", ts, message=msg, extra=_freeze(extra))
            return
        if etype not in _EVENT_KINDS:
            self._unknown(jl, f"event_msg {etype}")
        if etype == "task_started":
            self.turn += 1
        window = p.get("model_context_window")
        if isinstance(window, int) and window > 0:
            extra["context_window"] = window
        if etype == "token_count":
            self._token_count(p, extra)
        if etype == "thread_settings_applied":
            settings = p.get("thread_settings")
            if isinstance(settings, dict):
                extra.update({k: settings[k] for k in ("model", "model_provider_id")
                              if isinstance(settings.get(k), str)})
        if etype == "item_completed":
            item = p.get("item")
            if isinstance(item, dict) and isinstance(item.get("type"), str):
                extra["item_type"] = item["type"]
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
            extra["context_window"] = info["model_context_window"]
        if parts is None:
            return
        extra["usage"] = parts
        if self.summarizing is not None and self.summarizer_usage is None:
            self.summarizer_usage = parts       # the summarizing call's own usage
            extra["summarizer"] = True
            return
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
        ms = iso_to_ms(ts)
        got = read_replacement(p, ms, self.model, self.provider)
        before = self.summarizing if self.summarizing is not None else self.last_context
        extra: dict[str, Any] = {
            "codex_type": "compacted", "message_chars": len(got.summary),
            "summary_source": got.source, "summary_body_chars": len(got.summary_body),
            "kept_items": len(got.kept), "kept_user_messages": len(got.kept_user_texts)}
        if got.encrypted_chars:
            extra["encrypted_chars"] = got.encrypted_chars
        if before is not None:
            extra["tokens_before_source"] = ("context before the summarizing call"
                                             if self.summarizing is not None
                                             else "last token_count")
        if self.summarizer_usage is not None:
            extra["summarizer_usage"] = self.summarizer_usage
        eid = f"{jl.line:08x}"
        ids = [f"{eid}.k{k:03d}" for k in range(len(got.kept))]
        extra["summary_after"] = ids[got.summary_after] if got.summary_after >= 0 else None
        self._append(jl, "compaction", ts, summary=got.summary, first_kept_entry_id=eid,
                     tokens_before=before, extra=_freeze(extra))
        self.compactions.append((len(self.entries) - 1, self.turn))
        for kid, msg in zip(ids, got.kept, strict=True):
            entry = Entry(type="message", id=kid, parent_id=self.prev, timestamp=ts,
                          line=jl.line, offset=jl.offset, length=jl.length, message=msg,
                          extra=_freeze({"codex_type": "compacted.replacement_history"}))
            self.entries.append(entry)
            self.prev = kid
        self.open_assistant = None
        self.summarizing = None
        self.summarizer_usage = None

    def _triggers(self) -> None:
        """Each compaction's trigger, now that every turn's user messages are known."""
        for at, turn in self.compactions:
            entry = self.entries[at]
            trigger = "auto" if turn in self.user_turns else "manual"
            extra = dict(entry.extra) | {"trigger": trigger, "trigger_source": (
                "a user message in the compaction's turn" if trigger == "auto"
                else "no user message in the compaction's turn")}
            self.entries[at] = dataclasses.replace(entry, extra=_freeze(extra))

    def finish(self) -> ParsedFile:
        self._triggers()
        for kind, n in sorted(self.unknown.items()):
            self.diags.append(Diagnostic(
                self.spath, self.unknown_line[kind], f"{kind}: a record kind this reader does "
                f"not know ({n} line(s)); kept as entries, not read", "warning"))
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
