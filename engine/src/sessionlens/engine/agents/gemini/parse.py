"""Gemini CLI chats (``~/.gemini/tmp/<project>/chats/``) read into the model.

Two shapes, one reading:

- ``session-*.jsonl`` is an update log. Line 1 holds the metadata (``sessionId``,
  ``projectHash``, ``startTime``, ``kind``); then message records keyed by ``id``. Gemini
  appends a message again, whole, when its tool calls finish or its token counts arrive:
  the last write wins and the message keeps the place of its first write (Gemini keeps
  them in a JavaScript ``Map``). ``{"$set": {...}}`` patches the metadata; a ``$set`` with
  ``messages`` replaces the message list (Gemini writes one after compressing or masking
  history). ``{"$rewindTo": id}`` drops that message and everything after it (all of them
  when the id is unknown, as Gemini does).
- ``session-*.json`` (older) is one object with ``messages``, read the same way.
- Subagent chats sit in ``chats/<parent session id>/``; ``kind`` is ``"subagent"``.

How the log becomes a tree: messages hang off the previous message, so the file reads as
one path. A rewind starts a branch: the next message hangs off the one before the rewound
message, and the rewound ones stay visible off the path. A ``$set`` of the list is a
``compaction`` only when it brings a new ``<state_snapshot>`` message (Gemini CLI 0.61's
compression: the snapshot is the summary; the list's other messages replay after it, in
order, as entries of their own); any other ``$set`` of the list (Gemini rewrites it on every
resume) is a list rewrite: the conversation becomes that list. The notice "Context compressed from 68% to 3%." (what Gemini records when it
compresses) is a compaction too, with the percentages in ``extra`` and ``tokens_before``
the context Gemini last reported before it; Gemini records neither its summary nor which
messages it kept, so the transcript says so (``FormatGaps``) and shows none kept. The
top-level ``summary`` is a title (``session_info``), not a compaction. Token estimates use
Gemini CLI's own rule (``tokens.agent_rules``: 0.25 tokens per ASCII character, 1.3 per
other character).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from sessionlens.engine.agents.gemini.records import COMPRESSED, record_pieces
from sessionlens.engine.agents.gemini.trigger import mark_triggers
from sessionlens.engine.load.formats import ParsedFile
from sessionlens.engine.load.formats.entry_chain import Chain, as_str, freeze
from sessionlens.engine.load.formats.field_errors import read_guarded
from sessionlens.engine.load.formats.jsondoc import read_document
from sessionlens.engine.load.formats.jsonl import iter_objects
from sessionlens.engine.model import (
    Diagnostic,
    Entry,
    Format,
    FormatGaps,
    SessionHeader,
)

__all__ = ["parse", "parent_session_of"]

_TYPES = frozenset({"user", "gemini", "info", "error", "warning"})
#: How Gemini CLI's compression summary opens (the user message it puts in the new list).
SNAPSHOT = "<state_snapshot>"


@dataclass(slots=True)
class _Write:
    obj: dict[str, Any]
    line: int
    offset: int
    length: int


@dataclass(frozen=True, slots=True)
class _Op:
    kind: str          # "msg" | "rewind" | "replace"
    line: int
    ident: str = ""
    ids: tuple[str, ...] = ()


def parent_session_of(path: Path) -> str | None:
    """The parent session id of a subagent chat (``chats/<parent>/<id>.jsonl``), else None."""
    if path.parent.parent.name == "chats" and path.parent.name:
        return path.parent.name
    return None


class _Log:
    """Pass one: what was written, in the order Gemini would replay it."""

    def __init__(self, spath: str, diags: list[Diagnostic]) -> None:
        self.spath = spath
        self.diags = diags
        self.meta: dict[str, Any] = {}
        self.meta_line = 0
        self.writes: dict[str, _Write] = {}
        self.ops: list[_Op] = []

    def message(self, obj: dict[str, Any], line: int, offset: int, length: int) -> None:
        ident = obj.get("id")
        rtype = obj.get("type")
        if not isinstance(ident, str) or not ident:
            self.diags.append(Diagnostic(self.spath, line, "message record has no string "
                                         "'id'; skipped"))
            return
        if not isinstance(rtype, str) or rtype not in _TYPES:
            self.diags.append(Diagnostic(self.spath, line, f"message {ident!r} has unknown "
                                         f"type {rtype!r}; kept as a notice", "warning"))
        if ident not in self.writes:
            self.ops.append(_Op("msg", line, ident))
        self.writes[ident] = _Write(obj, line, offset, length)

    def line(self, obj: dict[str, Any], line: int, offset: int, length: int) -> None:
        if isinstance(obj.get("$rewindTo"), str):
            self.ops.append(_Op("rewind", line, obj["$rewindTo"]))
        elif isinstance(obj.get("$set"), dict):
            patch = obj["$set"]
            messages = patch.get("messages")
            self.meta.update({k: v for k, v in patch.items() if k != "messages"})
            if isinstance(messages, list):
                ids = []
                for m in messages:
                    if isinstance(m, dict) and isinstance(m.get("id"), str):
                        self.writes[m["id"]] = _Write(m, line, offset, length)
                        ids.append(m["id"])
                self.ops.append(_Op("replace", line, ids=tuple(ids)))
        elif isinstance(obj.get("id"), str) or "type" in obj or "content" in obj:
            self.message(obj, line, offset, length)
        elif "sessionId" in obj:
            self.meta.update(obj)
            self.meta_line = self.meta_line or line
        else:
            self.diags.append(Diagnostic(self.spath, line, "a line that is neither a message, "
                                         "'$set', '$rewindTo' nor metadata; skipped"))


class _Builder:
    """Pass two: entries, with rewinds as branches and replacements as compactions."""

    def __init__(self, log: _Log, path: Path, fmt: Format) -> None:
        self.log = log
        self.chain = Chain(path, fmt)
        self.current: list[str] = []          # message ids Gemini would send, in order
        self.tail: dict[str, str] = {}        # message id -> id of its last entry
        self.first: dict[str, str] = {}       # message id -> id of its first entry
        self.absorbed: set[str] = set()       # ids that only exist inside a summary
        self.last_context: int | None = None
        self.open_compaction: int | None = None  # compaction with no message after it yet
        self.unrecorded = False
        self.root: str | None = None          # the title entry, when there is one

    def build(self) -> None:
        for op in self.log.ops:
            if op.kind == "msg" and op.ident not in self.absorbed:
                self._message(op.ident)
            elif op.kind == "rewind":
                self._rewind(op)
            elif op.kind == "replace":
                self._replace(op)

    def _tip(self) -> str | None:
        return self.tail[self.current[-1]] if self.current else self.root

    def _message(self, ident: str) -> None:
        w = self.log.writes[ident]
        rtype = str(w.obj.get("type"))
        text = w.obj.get("content")
        if rtype == "info" and isinstance(text, str) and COMPRESSED.search(text):
            self._compressed(ident, w, text)
            return
        parent = self._tip()
        first: str | None = None
        for piece in record_pieces(w.obj, rtype):
            entry = self.chain.add(
                piece.etype, ident + piece.suffix, line=w.line, offset=w.offset,
                length=w.length, timestamp=_ts(w.obj), parent=parent, message=piece.message,
                extra={"gemini_type": rtype, **({"text": piece.notice} if piece.notice
                                                   is not None else {})})
            parent = entry.id
            first = first or entry.id
            msg = piece.message
            if msg is not None and msg.usage is not None and msg.stop_reason != "error":
                self.last_context = msg.usage.context_tokens or self.last_context
        if first is None:
            return
        self.first[ident], self.tail[ident] = first, parent or first
        self.current.append(ident)
        if rtype in ("user", "gemini"):
            self.open_compaction = None

    def _compressed(self, ident: str, w: _Write, text: str) -> None:
        m = COMPRESSED.search(text)
        assert m is not None
        pct = {"percent_before": int(m.group(1)), "percent_after": int(m.group(2)),
               "notice": text}
        if self.open_compaction is not None:  # the $set of the same compression came first
            entry = self.chain.entries[self.open_compaction]
            self.chain.update(self.open_compaction, extra=freeze({**entry.extra, **pct}))
            return
        self.unrecorded = True
        entry = self._compaction(ident, w.line, w.offset, w.length, _ts(w.obj), "", None,
                                 {"source": "compression notice", **pct,
                                  "kept_window": "not recorded"})
        self.current.append(ident)
        self.tail[ident] = self.first[ident] = entry.id

    def _compaction(self, eid: str, line: int, offset: int, length: int, ts: str | None,
                    summary: str, first_kept: str | None, extra: dict[str, Any]) -> Entry:
        entry = self.chain.add("compaction", eid, line=line, offset=offset, length=length,
                               timestamp=ts, parent=self._tip(), summary=summary,
                               first_kept_entry_id=first_kept or self.chain.unique(eid),
                               tokens_before=self.last_context, extra=extra)
        self.open_compaction = len(self.chain.entries) - 1
        return entry

    def _rewind(self, op: _Op) -> None:
        if op.ident in self.current:
            del self.current[self.current.index(op.ident):]
            return
        self.chain.warn(op.line, f"$rewindTo {op.ident!r}: no such message in the "
                        "conversation; every message is dropped, as Gemini does")
        self.current = []

    def _replace(self, op: _Op) -> None:
        """A ``$set`` of the message list. Gemini 0.61 rewrites the list on every resume (a
        list rewrite: the conversation becomes that list, nothing is summarized); only a
        list that brings a new ``<state_snapshot>`` message is a compression."""
        fresh = [i for i in op.ids if i not in self.first and i not in self.absorbed]
        snapshot = next((i for i in fresh if _text(self.log.writes[i].obj).lstrip()
                         .startswith(SNAPSHOT)), None)
        if snapshot is None:
            self.current = [i for i in op.ids if i in self.first]
            for ident in fresh:
                self._message(ident)
            return
        dropped = [i for i in self.current if i not in set(op.ids)]
        self.absorbed.add(snapshot)
        entry = self._compaction(
            f"set-{op.line:08x}", op.line, 0, 0, None, _text(self.log.writes[snapshot].obj),
            None, {"source": "$set messages", "summary_source": "<state_snapshot> message",
                   "dropped_messages": len(dropped), "summary_after": None})
        at = self.chain.entries.index(entry)
        self.current = [entry.id]
        self.tail[entry.id] = self.first[entry.id] = entry.id
        before: str | None = None       # the entry the summary follows in the new list
        for ident in op.ids:
            if ident == snapshot:
                before = self._tip() if len(self.current) > 1 else None
                continue
            self._message(ident)        # the new list, in order, after the compaction
        self.chain.update(at, extra=freeze({**entry.extra, "summary_after": before}))


def _ts(obj: dict[str, Any]) -> str | None:
    ts = obj.get("timestamp")
    return as_str(ts)


def _text(obj: dict[str, Any]) -> str:
    content = obj.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text")) for p in content
                         if isinstance(p, dict) and isinstance(p.get("text"), str))
    return ""


def _shape(data: bytes) -> Format:
    """JSON lines when the first line is a whole object without ``messages``; else the older
    single document (pretty-printed, or on one line with ``messages``)."""
    first = data.lstrip(b"\xef\xbb\xbf \t\r\n").split(b"\n", 1)[0]
    try:
        obj = orjson.loads(first)
    except orjson.JSONDecodeError:
        return "gemini-json"
    return "gemini-json" if isinstance(obj, dict) and "messages" in obj else "gemini-jsonl"


def _objects(data: bytes, path: Path, fmt: Format, diags: list[Diagnostic],
             on_progress: Callable[[int, int], None] | None,
             cancel: Callable[[], bool] | None) -> Iterator[tuple[dict[str, Any], int, int, int]]:
    if fmt == "gemini-jsonl":
        for jl in iter_objects(data, path, diags, on_progress=on_progress, cancel=cancel):
            yield jl.obj, jl.line, jl.offset, jl.length
        return
    doc = read_document(data, path, diags, arrays=("messages",))
    top = doc.top or {}
    yield {k: v for k, v in top.items() if k != "messages"} | {"sessionId": top.get(
        "sessionId", "")}, 1, 0, 0
    for rec in doc.arrays.get("messages", []):
        if isinstance(rec.value, dict):
            yield rec.value, rec.line, rec.offset, rec.length
        else:
            diags.append(Diagnostic(str(path), rec.line, f"messages[{rec.index}] is not an "
                                    "object; skipped"))


def parse(data: bytes, path: Path, *, on_progress: Callable[[int, int], None] | None = None,
          cancel: Callable[[], bool] | None = None, fmt: Format | None = None) -> ParsedFile:
    """Read a Gemini CLI chat (either shape); never raises for a bad record."""
    path = Path(path)
    fmt = fmt or _shape(data)
    diags: list[Diagnostic] = []
    log = _Log(str(path), diags)
    for obj, line, offset, length in _objects(data, path, fmt, diags, on_progress, cancel):
        read_guarded(diags, str(path), line, log.line, obj, line, offset, length)
    builder = _Builder(log, path, fmt)
    meta = log.meta
    title = meta.get("summary")
    if isinstance(title, str) and title:
        builder.root = builder.chain.add("session_info", "title", line=log.meta_line or 1,
                                         name=title, extra={"gemini_field": "summary"}).id
    builder.build()
    dirs = meta.get("directories")
    mark_triggers(builder.chain, path, dirs[0] if isinstance(dirs, list) and dirs
                  and isinstance(dirs[0], str) else None)  # gemini_trigger: auto or manual
    return builder.chain.parsed(_header(meta, path, log.meta_line, builder.chain.entries),
                                _gaps(builder.unrecorded), diags)


def _header(meta: dict[str, Any], path: Path, line: int,
            entries: list[Entry]) -> SessionHeader:
    sid = meta.get("sessionId") if isinstance(meta.get("sessionId"), str) else ""
    extra: dict[str, Any] = {"agent": "gemini-cli"}
    for key, name in (("projectHash", "project_hash"), ("kind", "kind"),
                      ("lastUpdated", "last_updated"), ("directories", "directories")):
        if meta.get(key) is not None:
            extra[name] = meta[key]
    parent = parent_session_of(path)
    if parent is not None or meta.get("kind") == "subagent":
        extra["parent_session_id"] = parent
    model = next((e.message.model for e in entries if e.message is not None
                  and e.message.model), None)
    dirs = meta.get("directories")
    cwd = dirs[0] if isinstance(dirs, list) and dirs and isinstance(dirs[0], str) else None
    start = as_str(meta.get("startTime"))
    return SessionHeader(id=sid or path.stem, version=0, timestamp=start, cwd=cwd,
                         provider="google", model_id=model, line=line, extra=freeze(extra))


def _gaps(unrecorded: bool) -> FormatGaps:
    if not unrecorded:
        return FormatGaps("Gemini CLI")
    return FormatGaps("Gemini CLI", ("compaction_summary", "kept_window"), (
        "a compression notice is a compaction with an empty summary: Gemini CLI keeps its "
        "summary only in memory",))
