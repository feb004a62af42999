"""Crush (``<project>/.crush/crush.db``) and the Go OpenCode it grew from
(``<project>/.opencode/opencode.db``): one SQLite schema, read one session at a time.

``sessions`` rows (title, parent, token counts, cost, ``summary_message_id`` in Crush) and
``messages`` rows whose ``parts`` column is JSON: ``text``, ``reasoning``, ``tool_call``,
``tool_result``, ``binary``, ``image_url`` and ``finish`` (reason, time, error message). The
database is opened read-only through ``sqlite_open`` (WAL rows included, nothing written).
Mapping decisions:

- ``<db>/<session id>`` opens that session; the database alone opens the newest top-level
  session, with a warning naming how many there are. A subagent's session (its id is the
  tool call that started it, ``call_...``) links to its parent through
  ``parent_session_id`` (``header.extra``); the parent's tool result for that call carries
  the child's id in ``extra["subagent_session_id"]``.
- Rows are in ``created_at`` order (then insertion order); an entry's ``line`` is the row's
  position in its session. Times are seconds in the files seen (the schema says
  milliseconds); both are read.
- A ``tool`` row holds one result per ``tool_result`` part: one ``toolResult`` entry each.
- ``finish`` gives the stop reason: ``error`` (with its message and details) and
  ``canceled`` become pi's ``error`` and ``aborted``.
- The message ``summary_message_id`` names (an assistant "## Summary" Crush wrote when it
  summarized) is a ``compaction``: Crush sends that summary, then what follows it, and
  nothing before. It records no token count from before the summary.
- Usage is kept per session, not per message: ``prompt_tokens + completion_tokens`` is the
  context of the latest model call (Crush overwrites them after each call), so it is the
  usage of the last assistant message that did not fail; no other message has usage.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from sessionlens.engine.model import (
    ContentBlock,
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
from .catalog import agent_name
from .entry_chain import Chain, arguments_of, as_dict, epoch_ms, freeze, iso_from_ms, json_text
from .field_errors import read_guarded
from .sqlite_open import Opened, table_columns
from .sqlite_sessions import list_or_refuse, pick_session, row_tick

__all__ = ["DbSession", "list_sessions", "parse_db", "project_of"]

_STOP = {"end_turn": "stop", "stop": "stop", "tool_use": "toolUse", "max_tokens": "length",
         "canceled": "aborted", "cancelled": "aborted", "permission_denied": "aborted",
         "error": "error"}
_SESSION_COLS = ("id", "parent_session_id", "title", "message_count", "prompt_tokens",
                 "completion_tokens", "cost", "updated_at", "created_at", "summary_message_id")


@dataclass(frozen=True, slots=True)
class DbSession:
    """One ``sessions`` row, as a session list needs it."""

    id: str
    title: str
    parent_id: str | None
    messages: int
    created_ms: int | None
    updated_ms: int | None
    summary_message_id: str | None
    prompt_tokens: int
    completion_tokens: int
    cost: float | None
    size: int = 0


def project_of(db_path: Path) -> str | None:
    """The project folder of ``<project>/.crush/crush.db`` (or ``.opencode/``), else None."""
    return str(db_path.parent.parent) if db_path.parent.name.startswith(".") else None


def list_sessions(db: sqlite3.Connection) -> list[DbSession]:
    """Every session, newest first, with its message count and the bytes of its parts."""
    cols = table_columns(db)
    if "messages" not in cols:
        raise sqlite3.DatabaseError("no 'messages' table")
    sizes = {str(sid): (int(n), int(b or 0)) for sid, n, b in db.execute(
        "SELECT session_id, count(*), sum(length(parts)) FROM messages GROUP BY session_id")}
    out: list[DbSession] = []
    if "sessions" in cols:
        have = [c if c in cols["sessions"] else f"NULL AS {c}" for c in _SESSION_COLS]
        for row in db.execute(f"SELECT {', '.join(have)} FROM sessions"):
            r = dict(zip(_SESSION_COLS, row, strict=True))
            n, size = sizes.pop(str(r["id"]), (0, 0))
            out.append(DbSession(
                str(r["id"]), str(r["title"] or ""), r["parent_session_id"] or None, n,
                epoch_ms(r["created_at"]), epoch_ms(r["updated_at"]),
                r["summary_message_id"] or None, int(r["prompt_tokens"] or 0),
                int(r["completion_tokens"] or 0),
                float(r["cost"]) if r["cost"] is not None else None, size))
    for sid, (n, size) in sizes.items():  # messages whose session row is gone
        out.append(DbSession(sid, "", None, n, None, None, None, 0, 0, None, size))
    out.sort(key=lambda s: (s.updated_ms or s.created_ms or 0), reverse=True)
    return out


def _blocks(parts: list[Any], names: dict[str, str]) -> tuple[list[ContentBlock], dict[str, Any]]:
    """Content blocks of a user or assistant row, and what its ``finish`` part says."""
    blocks: list[ContentBlock] = []
    finish: dict[str, Any] = {}
    for part in parts:
        if not isinstance(part, dict) or not isinstance(part.get("data"), dict):
            continue
        ptype, d = part.get("type"), part["data"]
        if ptype == "text":
            blocks.append(TextBlock(str(d.get("text") or "")))
        elif ptype == "reasoning":
            blocks.append(ThinkingBlock(str(d.get("thinking") or "")))
        elif ptype == "tool_call":
            args, partial = arguments_of(d.get("input"))
            call_id = str(d.get("id") or "")
            names[call_id] = str(d.get("name") or "")
            blocks.append(ToolCallBlock(call_id, names[call_id], args, partial))
        elif ptype == "binary" and str(d.get("mime_type") or "").startswith("image/") \
                and isinstance(d.get("data"), str):
            blocks.append(ImageBlock(str(d["mime_type"]), d["data"]))
        elif ptype in ("binary", "image_url"):
            blocks.append(TextBlock(f"[{ptype}: {d.get('path') or d.get('url') or ''}]"))
        elif ptype == "finish":
            finish = d
        else:
            blocks.append(TextBlock(f"[{ptype}] {json_text(d)[:200]}"))
    return blocks, finish


class _Session:
    """The rows of one session turned into entries."""

    def __init__(self, path: Path, fmt: Format, session: DbSession, children: set[str]) -> None:
        self.chain = Chain(path, fmt)
        self.session = session
        self.children = children
        self.names: dict[str, str] = {}
        self.last_ok_assistant: int | None = None

    def row(self, n: int, mid: str, role: str, parts_raw: Any, model: str | None,
            provider: str | None, created: Any) -> None:
        ms = epoch_ms(created)
        try:
            parts = orjson.loads(parts_raw) if isinstance(parts_raw, (str, bytes)) else parts_raw
        except orjson.JSONDecodeError as exc:
            self.chain.error(n, f"message {mid!r}: 'parts' is not JSON ({exc}); skipped")
            return
        if not isinstance(parts, list):
            self.chain.error(n, f"message {mid!r}: 'parts' is not a list; skipped")
            return
        extra: dict[str, Any] = {"row": n}
        ts = iso_from_ms(ms)
        if role == "tool":
            self._results(n, mid, parts, ms, ts)
            return
        blocks, finish = _blocks(parts, self.names)
        if role == "user":
            self.chain.add("message", mid, line=n, timestamp=ts, extra=extra,
                           message=Message("user", tuple(blocks), timestamp_ms=ms))
            return
        if role != "assistant":
            self.chain.add("message", mid, line=n, timestamp=ts, extra=extra, message=Message(
                "custom", tuple(blocks), timestamp_ms=ms, custom_type=f"crush.{role}"))
            return
        reason = finish.get("reason")
        stop = _STOP.get(reason, reason) if isinstance(reason, str) else None
        error = None
        if stop == "error":
            error = ": ".join(str(finish[k]) for k in ("message", "details") if finish.get(k))
        if mid == self.session.summary_message_id:
            text = "\n".join(b.text for b in blocks if isinstance(b, TextBlock))
            self.chain.add("compaction", mid, line=n, timestamp=ts, summary=text,
                           first_kept_entry_id=mid, extra={**extra, "source":
                                                            "summary_message_id"})
            return
        self.chain.add("message", mid, line=n, timestamp=ts, extra=extra, message=Message(
            "assistant", tuple(blocks), timestamp_ms=ms, provider=provider or None,
            model=model or None, stop_reason=stop, error_message=error or None))
        if stop not in ("error", "aborted"):
            self.last_ok_assistant = len(self.chain.entries) - 1

    def _results(self, n: int, mid: str, parts: list[Any], ms: int | None,
                 ts: str | None) -> None:
        k = 0
        for part in parts:
            if not isinstance(part, dict) or part.get("type") != "tool_result":
                continue
            d = as_dict(part.get("data"))
            call_id = str(d.get("tool_call_id") or "")
            extra: dict[str, Any] = {"row": n}
            if call_id in self.children:
                extra["subagent_session_id"] = call_id
            content = d.get("content")
            msg = Message("toolResult", (TextBlock(json_text(content)),) if content else (),
                          timestamp_ms=ms, tool_call_id=call_id,
                          tool_name=str(d.get("name") or self.names.get(call_id) or ""),
                          is_error=d.get("is_error") is True)
            self.chain.add("message", mid if k == 0 else f"{mid}:{k}", line=n, timestamp=ts,
                           extra=extra, message=msg)
            k += 1

    def finish(self, db_path: Path) -> None:
        s = self.session
        if self.last_ok_assistant is not None and (s.prompt_tokens or s.completion_tokens):
            at = self.last_ok_assistant
            total = s.prompt_tokens + s.completion_tokens
            self.chain.update_message(at, usage=Usage(input=s.prompt_tokens,
                                                      output=s.completion_tokens,
                                                      total_tokens=total, cost_total=s.cost))
            entry = self.chain.entries[at]
            self.chain.update(at, extra=freeze({**entry.extra,
                                                "usage_source": "sessions row (latest call)"}))


def _id_of(s: DbSession) -> str:
    return s.id


def parse_db(opened: Opened, path: Path, fmt: Format, session: str | None, *,
             on_progress: Callable[[int, int], None] | None = None,
             cancel: Callable[[], bool] | None = None) -> ParsedFile:
    """Read one session of a Crush / Go OpenCode database; never raises for a bad row."""
    db = opened.db
    sessions = list_or_refuse(path, list_sessions, db, f"a {agent_name(fmt)} database")
    chosen, note = pick_session(path, sessions, session, _id_of,
                                [s for s in sessions if s.parent_id is None] or sessions,
                                where="database", which="newest top-level one",
                                held=len(sessions))
    children = {s.id for s in sessions if s.parent_id == chosen.id}
    reader = _Session(path, fmt, chosen, children)
    if note is not None:
        reader.chain.warn(None, note)
    if "sessions" not in table_columns(db):
        reader.chain.warn(None, "no 'sessions' table: sessions are told apart by the messages' "
                          "session_id, without titles or token counts")
    if chosen.title:
        reader.chain.add("session_info", "title", line=0, name=chosen.title)
    cols = table_columns(db)["messages"]
    have = [c if c in cols else f"NULL AS {c}" for c in
            ("id", "role", "parts", "model", "provider", "created_at")]
    rows = db.execute(f"SELECT {', '.join(have)} FROM messages WHERE session_id = ? "
                      "ORDER BY created_at, rowid", (chosen.id,))
    for n, (mid, role, parts, model, provider, created) in enumerate(rows, 1):
        row_tick(path, n, chosen.messages, 1000, "row", on_progress, cancel)
        read_guarded(reader.chain.diags, str(path), n, reader.row, n, str(mid), str(role),
                     parts, model, provider, created)
    reader.finish(path)
    if on_progress is not None:
        on_progress(chosen.messages, chosen.messages)
    extra: dict[str, Any] = {"agent": fmt.removesuffix("-sqlite"), "database": str(path),
                             "opened": opened.how, "title": chosen.title,
                             "cost": chosen.cost}
    if chosen.parent_id:
        extra["parent_session_id"] = chosen.parent_id
    if children:
        extra["subagent_sessions"] = sorted(children)
    model = next((e.message.model for e in reader.chain.entries
                  if e.message is not None and e.message.model), None)
    header = SessionHeader(id=chosen.id, version=0, timestamp=iso_from_ms(chosen.created_ms),
                           cwd=project_of(path), model_id=model, line=0, extra=freeze(extra))
    gaps = FormatGaps(agent_name(fmt), ("usage",), (
        "usage is kept per session: it is given to the last assistant message",
        "an entry's line is its row's position in the session"))
    return reader.chain.parsed(header, gaps)
