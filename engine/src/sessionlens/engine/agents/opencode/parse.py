"""Current OpenCode (``~/.local/share/opencode/opencode.db``): the project / session /
message / part tables of its published Drizzle schema, read one session at a time.

``message.data`` and ``part.data`` are JSON (OpenCode's ``MessageV2`` info and parts); rows
are read in OpenCode's own order (messages by ``time_created`` then id, parts by id).
Mapping decisions:

- ``<db>/<session id>`` opens that session; the database alone opens the newest top-level
  session (a warning says how many there are). Subagent sessions link to their parent
  through ``parent_id``.
- User text parts (``ignored`` ones left out, as OpenCode does), files (images inline) make
  a user message. An assistant message is its reasoning, text and one tool call per
  ``tool`` part; each finished tool part is a ``toolResult`` entry right after it (its
  ``output``, or its ``error``).
- Compaction: OpenCode adds a user message with a ``compaction`` part, then an assistant
  message with ``summary: true``. The request is an entry of type ``compaction_request``
  (not context); the summary message is the ``compaction`` (its text is the summary). It
  keeps the messages from the part's ``tail_start_id`` on when it names one, otherwise
  nothing before it; ``tokens_before`` is the context OpenCode last reported before it; the
  trigger is the part's own (``overflow``, ``auto``, else manual). OpenCode sends the
  request message as a user turn whose compaction part reads "What did we do so far?"
  (``toModelMessages``, 1.18.33) and the summary as the assistant's answer to it: the
  compaction's ``extra`` says so (``asked``, ``summary_role``) for the replayed context.
- The window is ``limit.context`` of the session's model in the ``opencode.json`` OpenCode
  read (the project's, else the user's beside the database), the header's ``context_window``.
- ``tokens`` and ``cost`` of each assistant message are its usage; ``error`` makes the stop
  reason ``error`` (``aborted`` for an abort). A failed turn (and its tool results) is out of
  the context, as OpenCode never sends it, except an aborted one that produced something.
- Messages after ``session.revert.messageID`` were undone in OpenCode: they stay visible
  beside the path, out of the context.

Token estimates use OpenCode's own rule (characters / 4, rounded; ``tokens.agent_rules``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from sessionlens.engine.load.formats import ParsedFile
from sessionlens.engine.load.formats.entry_chain import (
    Chain,
    as_dict,
    epoch_ms,
    freeze,
    iso_from_ms,
    json_text,
)
from sessionlens.engine.load.formats.field_errors import read_guarded
from sessionlens.engine.load.formats.jsonl import usage_count
from sessionlens.engine.load.formats.sqlite_open import Opened, table_columns
from sessionlens.engine.load.formats.sqlite_sessions import list_or_refuse, pick_session, row_tick
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

__all__ = ["list_sessions", "parse_db"]

_TABLES = ("session", "message", "part")
#: What OpenCode sends for a user message's ``compaction`` part (and a ``subtask`` part).
COMPACTION_QUESTION = "What did we do so far?"
_SUBTASK_TEXT = "The following tool was executed by the user"
GAPS = FormatGaps("OpenCode", (), ("an entry's line is its message's position in the session",))


def _loads(raw: Any) -> Any:
    try:
        return orjson.loads(raw) if isinstance(raw, (str, bytes)) else raw
    except orjson.JSONDecodeError:
        return None


def list_sessions(db: sqlite3.Connection) -> list[dict[str, Any]]:
    """Every session (id, title, parent_id, directory, created/updated ms, messages, size),
    newest first."""
    cols = table_columns(db)
    missing = [t for t in _TABLES if t not in cols]
    if missing:
        raise sqlite3.DatabaseError(f"no {', '.join(repr(t) for t in missing)} table")
    counts = {str(sid): (int(n), int(size or 0)) for sid, n, size in db.execute(
        "SELECT session_id, count(*), sum(length(data)) FROM part GROUP BY session_id")}
    msgs = {str(sid): int(n) for sid, n in db.execute(
        "SELECT session_id, count(*) FROM message GROUP BY session_id")}
    have = cols["session"]
    wanted = ("id", "title", "parent_id", "directory", "time_created", "time_updated",
              "revert")
    sel = [c if c in have else f"NULL AS {c}" for c in wanted]
    out = []
    for row in db.execute(f"SELECT {', '.join(sel)} FROM session"):
        r = dict(zip(wanted, row, strict=True))
        sid = str(r["id"])
        out.append({"id": sid, "title": str(r["title"] or ""), "parent_id": r["parent_id"],
                    "directory": r["directory"], "created_ms": epoch_ms(r["time_created"]),
                    "updated_ms": epoch_ms(r["time_updated"]), "revert": _loads(r["revert"]),
                    "messages": msgs.get(sid, 0), "size": counts.get(sid, (0, 0))[1]})
    out.sort(key=lambda s: s["updated_ms"] or s["created_ms"] or 0, reverse=True)
    return out


def _usage(info: dict[str, Any]) -> Usage | None:
    tokens = info.get("tokens")
    if not isinstance(tokens, dict):
        return None
    cache = as_dict(tokens.get("cache"))
    inp, out = usage_count(tokens.get("input")), usage_count(tokens.get("output"))
    out += usage_count(tokens.get("reasoning"))
    c_read, c_write = usage_count(cache.get("read")), usage_count(cache.get("write"))
    total = usage_count(tokens.get("total")) or inp + out + c_read + c_write
    cost = info.get("cost")
    return Usage(input=inp, output=out, cache_read=c_read, cache_write=c_write,
                 total_tokens=total, cost_total=float(cost) if isinstance(cost, (int, float))
                 and not isinstance(cost, bool) else None)


def _sent_texts(parts: list[Any]) -> list[str]:
    """The texts of a compaction request message as OpenCode sends them, in part order."""
    out: list[str] = []
    for p in parts:
        ptype = p.get("type")
        if ptype == "text" and not p.get("ignored") and p.get("text"):
            out.append(str(p["text"]))
        elif ptype == "compaction":
            out.append(COMPACTION_QUESTION)
        elif ptype == "subtask":
            out.append(_SUBTASK_TEXT)
    return out


def _file(part: dict[str, Any]) -> ContentBlock:
    mime, url = str(part.get("mime") or ""), str(part.get("url") or "")
    if mime.startswith("image/") and url.startswith("data:") and "," in url:
        return ImageBlock(mime, url.split(",", 1)[1])
    return TextBlock(f"[file: {part.get('filename') or url}]")


class _Session:
    def __init__(self, path: Path, fmt: Format, revert_from: str | None) -> None:
        self.chain = Chain(path, fmt)
        self.revert_from = revert_from
        self.reverted = False
        self.requests: dict[str, dict[str, Any]] = {}   # user message id -> compaction part
        self.asked: dict[str, str] = {}   # user message id -> its text as OpenCode sends it
        self.last_context: int | None = None

    def message(self, n: int, mid: str, info: Any, parts: list[Any]) -> None:
        if not isinstance(info, dict):
            self.chain.error(n, f"message {mid!r}: 'data' is not a JSON object; skipped")
            return
        if mid == self.revert_from:
            self.reverted = True
        ms = epoch_ms((info.get("time") or {}).get("created")) if isinstance(
            info.get("time"), dict) else None
        common: dict[str, Any] = {"line": n, "timestamp": iso_from_ms(ms),
                                  "moves_leaf": not self.reverted}
        extra: dict[str, Any] = {"reverted": True} if self.reverted else {}
        role = info.get("role")
        if role == "user":
            self._user(mid, parts, ms, common, extra)
        elif role == "assistant":
            self._assistant(mid, info, parts, ms, common, extra)
        else:
            self.chain.warn(n, f"message {mid!r} has unknown role {role!r}; skipped")

    def _user(self, mid: str, parts: list[Any], ms: int | None, common: dict[str, Any],
              extra: dict[str, Any]) -> None:
        blocks: list[ContentBlock] = []
        for p in parts:
            ptype = p.get("type")
            if ptype == "text" and not p.get("ignored"):
                blocks.append(TextBlock(str(p.get("text") or "")))
            elif ptype == "file":
                blocks.append(_file(p))
            elif ptype == "compaction":
                self.requests[mid] = p
            elif ptype in ("subtask", "agent"):
                blocks.append(TextBlock(f"[{ptype}] {p.get('description') or p.get('name') or ''}"))
        if mid in self.requests:
            req = self.requests[mid]
            self.asked[mid] = "\n".join(_sent_texts(parts))
            self.chain.add("compaction_request", mid, extra={**extra, "auto": req.get("auto"),
                                                             "overflow": req.get("overflow")},
                           **common)
            return
        self.chain.add("message", mid, extra=extra, message=Message(
            "user", tuple(blocks), timestamp_ms=ms), **common)

    def _assistant(self, mid: str, info: dict[str, Any], parts: list[Any], ms: int | None,
                   common: dict[str, Any], extra: dict[str, Any]) -> None:
        blocks: list[ContentBlock] = []
        tools: list[dict[str, Any]] = []
        for p in parts:
            ptype = p.get("type")
            if ptype == "text":
                blocks.append(TextBlock(str(p.get("text") or "")))
            elif ptype == "reasoning":
                blocks.append(ThinkingBlock(str(p.get("text") or "")))
            elif ptype == "tool":
                state = as_dict(p.get("state"))
                blocks.append(ToolCallBlock(str(p.get("callID") or ""), str(p.get("tool") or ""),
                                            state.get("input") if state.get("input")
                                            is not None else {}))
                tools.append(p)
        usage = _usage(info)
        error = info.get("error") if isinstance(info.get("error"), dict) else None
        parent = info.get("parentID")
        if info.get("summary") is True and error is None and parent in self.requests:
            req = self.requests[str(parent)]
            tail = req.get("tail_start_id")
            known = isinstance(tail, str) and any(e.id == tail for e in self.chain.entries)
            text = "\n".join(b.text for b in blocks if isinstance(b, TextBlock))
            self.chain.add("compaction", mid, summary=text, first_kept_entry_id=tail if known
                           else mid, tokens_before=self.last_context or (
                               usage.input + usage.cache_read + usage.cache_write
                               if usage else None),
                           extra={**extra, "source": "summary message", "auto": req.get("auto"),
                                  "trigger": "overflow" if req.get("overflow") else
                                  "auto" if req.get("auto") else "manual",
                                  "asked": self.asked.get(str(parent), COMPACTION_QUESTION),
                                  "summary_role": "assistant"},
                           **common)
            self.last_context = None
            return
        stop = "toolUse" if tools else "stop"
        message_text = None
        if error is not None:
            stop = "aborted" if error.get("name") == "MessageAbortedError" else "error"
            data = as_dict(error.get("data"))
            message_text = str(data.get("message") or error.get("name") or "error")
        # toModelMessages (1.18.33) never sends a failed turn, unless it was aborted after
        # producing something (a part other than step-start and reasoning)
        unsent = error is not None and not (stop == "aborted" and any(
            p.get("type") not in ("step-start", "reasoning") for p in parts))
        self.chain.add("message", mid, extra={**extra, "finish": info.get("finish")},
                       message=Message(
                           "assistant", tuple(blocks), timestamp_ms=ms, usage=usage,
                           provider=info.get("providerID"), model=info.get("modelID"),
                           stop_reason=stop, error_message=message_text,
                           exclude_from_context=unsent), **common)
        if usage is not None and error is None and usage.context_tokens:
            self.last_context = usage.context_tokens
        for p in tools:
            self._result(p, ms, common, extra, unsent)

    def _result(self, p: dict[str, Any], ms: int | None, common: dict[str, Any],
                extra: dict[str, Any], unsent: bool = False) -> None:
        state = as_dict(p.get("state"))
        status = state.get("status")
        if status not in ("completed", "error"):
            return
        text = state.get("output") if status == "completed" else state.get("error")
        self.chain.add("message", str(p.get("id") or p.get("callID")), extra={
            **extra, "title": state.get("title")}, message=Message(
                "toolResult", (TextBlock(json_text(text)),) if text else (), timestamp_ms=ms,
                tool_call_id=str(p.get("callID") or ""), tool_name=str(p.get("tool") or ""),
                is_error=status == "error", exclude_from_context=unsent), **common)


def config_window(db: Path, directory: str | None, provider: str | None,
                  model: str | None) -> tuple[int, str] | None:
    """``provider.<p>.models.<m>.limit.context`` of the ``opencode.json`` OpenCode read: the
    project's (``<directory>/opencode.json``) over the user's (``~/.config/opencode/``, the
    home the database lies in: ``<home>/.local/share/opencode/opencode.db``)."""
    if not provider or not model:
        return None
    parents = db.absolute().parents
    places = [Path(directory) / "opencode.json"] if directory else []
    if len(parents) >= 4:
        places.append(parents[3] / ".config" / "opencode" / "opencode.json")
    for place in places:
        try:
            conf = orjson.loads(place.read_bytes())
        except (OSError, ValueError):
            continue
        limit = as_dict(as_dict(as_dict(as_dict(as_dict(conf).get("provider")).get(provider))
                                .get("models")).get(model)).get("limit")
        value = as_dict(limit).get("context")
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value, f"provider.{provider}.models.{model}.limit.context in {place}"
    return None


def _id_of(s: dict[str, Any]) -> str:
    return str(s["id"])


def parse_db(opened: Opened, path: Path, fmt: Format, session: str | None, *,
             on_progress: Callable[[int, int], None] | None = None,
             cancel: Callable[[], bool] | None = None) -> ParsedFile:
    """Read one session of an OpenCode database; never raises for a bad row."""
    db = opened.db
    sessions = list_or_refuse(path, list_sessions, db, "an OpenCode database")
    chosen, note = pick_session(path, sessions, session, _id_of,
                                [s for s in sessions if not s["parent_id"]] or sessions,
                                where="database", which="newest top-level one",
                                held=len(sessions))
    revert = chosen["revert"] if isinstance(chosen["revert"], dict) else {}
    reader = _Session(path, fmt, revert.get("messageID"))
    if note is not None:
        reader.chain.warn(None, note)
    if chosen["title"]:
        reader.chain.add("session_info", "title", line=0, name=chosen["title"])
    parts: dict[str, list[Any]] = {}
    for pid, mid, raw in db.execute("SELECT id, message_id, data FROM part WHERE "
                                    "session_id = ? ORDER BY message_id, id", (chosen["id"],)):
        data = _loads(raw)
        if isinstance(data, dict):
            parts.setdefault(str(mid), []).append({**data, "id": str(pid)})
        else:
            reader.chain.error(None, f"a part of message {mid!r} is not a JSON object; skipped")
    total = chosen["messages"]
    rows = db.execute("SELECT id, data FROM message WHERE session_id = ? "
                      "ORDER BY time_created, id", (chosen["id"],))
    for n, (mid, raw) in enumerate(rows, 1):
        row_tick(path, n, total, 500, "message", on_progress, cancel)
        read_guarded(reader.chain.diags, str(path), n, reader.message, n, str(mid), _loads(raw),
                     parts.get(str(mid), []))
    if on_progress is not None:
        on_progress(total, total)
    extra: dict[str, Any] = {"agent": "opencode", "database": str(path), "opened": opened.how}
    if chosen["parent_id"]:
        extra["parent_session_id"] = chosen["parent_id"]
    model = next((e.message.model for e in reader.chain.entries
                  if e.message is not None and e.message.model), None)
    provider = next((e.message.provider for e in reader.chain.entries
                     if e.message is not None and e.message.provider), None)
    window = config_window(path, chosen["directory"], provider, model)
    if window is not None:
        extra["context_window"], extra["context_window_source"] = window
    header = SessionHeader(id=chosen["id"], version=0, timestamp=iso_from_ms(
        chosen["created_ms"]), cwd=chosen["directory"], model_id=model, line=0,
        extra=freeze(extra))
    return reader.chain.parsed(header, GAPS)
