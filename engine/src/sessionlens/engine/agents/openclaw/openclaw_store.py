"""OpenClaw 2026.8+'s per-agent SQLite store
(``~/.openclaw/agents/<agent>/agent/openclaw-agent.sqlite``, openclaw#98236), read-only.

The live transcripts are rows of ``transcript_events(session_id, seq, event_json,
created_at, event_zstd, event_utf8_bytes, navigation_json)``: the same pi-shaped entries
the JSONL files held, one per row in ``seq`` order (``seq`` 0 is the ``session`` header,
``"version": 4`` in 2026.9). A row holds its JSON either as text (``event_json``) or
zstd-compressed (``event_zstd``, with its decoded size in ``event_utf8_bytes``; OpenClaw
compresses its large events, compactions among them). The rows are decoded and read by the
very parser of the JSONL files (``pi.parse_lines``), so a session of the store is the same
entries, tree, active path and replayed context as the same events dumped to a file.

Around the events (schema version 23, read as found in the pinned 2026.9.6):

- ``session_windows``: one row per transcript generation (``session_id``), with its
  ``session_key``, the ``previous_session_id`` it followed and why it began (``reason``:
  initial, reset, rollover, fork, rewind, switch, recovery, compaction).
- ``session_nodes``: one row per session key, ``current_session_id`` and ``entry_json`` (the
  session row OpenClaw keeps: ``compactionCount``, ``memoryFlush``, ``contextTokens``,
  ``contextBudgetStatus`` with the budget and reserve it decided on, ...).
- ``session_transcript_archives``: reset and deleted generations as whole JSONL blobs
  (``encoding`` identity or zstd), named like the old ``.jsonl.reset.<ts>`` files.

Addressing is the other databases': ``<db>/<session id>`` opens that window,
``<db>/<archive name>`` an archived generation; the database alone opens the most recently
updated window, with a warning naming how many there are. An entry's ``line`` is its row's
``seq`` + 1 (the line it has in the dumped JSONL), ``offset`` its ``seq`` and ``length`` its
JSON's UTF-8 bytes (what OpenClaw's size guard adds up); ``raw_line`` reads the row back.
"""

from __future__ import annotations

import dataclasses
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import zstandard

from sessionlens.engine.agents.pi.parse import parse_lines
from sessionlens.engine.errors import LoadCancelled, LoadError, NotATranscriptError
from sessionlens.engine.load.formats import ParsedFile
from sessionlens.engine.load.formats.entry_chain import as_dict, freeze
from sessionlens.engine.load.formats.jsonl import LineView, iter_raw_lines
from sessionlens.engine.load.formats.sqlite_open import Opened, open_readonly, table_columns
from sessionlens.engine.load.formats.sqlite_sessions import list_or_refuse, pick_session
from sessionlens.engine.model import Diagnostic, Format, SessionHeader

__all__ = ["STORE_NAME", "StoreSession", "StoreWindow", "decode_event", "event_bytes", "is_store",
           "list_sessions", "parse_db", "session_row"]

STORE_NAME = "openclaw-agent.sqlite"
#: The largest event OpenClaw stores (its CHECK constraint on ``event_utf8_bytes``).
MAX_EVENT_BYTES = 4 * 1024 * 1024
#: Session-row keys carried into the header (what the flush, window and threshold read).
ROW_KEYS = ("compactionCount", "memoryFlush", "memoryFlushAt", "memoryFlushCompactionCount",
            "contextTokens", "contextTokensSource", "contextBudgetStatus", "model",
            "modelProvider", "agentHarnessId", "inputTokens", "outputTokens", "totalTokens",
            "transcriptByteCompactionLatch")


@dataclass(frozen=True, slots=True)
class StoreWindow:
    """One ``session_windows`` row: a transcript generation and why it began."""

    session_id: str
    session_key: str
    previous_session_id: str | None
    reason: str | None
    created_ms: int | None
    updated_ms: int | None
    model: str | None


@dataclass(frozen=True, slots=True)
class StoreSession:
    """A window or an archived generation, as a session list needs it."""

    id: str
    window: StoreWindow | None
    events: int
    size: int
    current: bool
    #: "deleted" / "reset" for an archived generation, None for a live window.
    archived: str | None = None
    archive_of: str | None = None
    #: The header's ``cwd`` (the agent's workspace).
    cwd: str | None = None


def is_store(db: sqlite3.Connection) -> bool:
    cols = table_columns(db)
    return "transcript_events" in cols and "session_windows" in cols


def _windows(db: sqlite3.Connection) -> dict[str, StoreWindow]:
    out: dict[str, StoreWindow] = {}
    for sid, key, prev, reason, created, updated, model in db.execute(
            "SELECT session_id, session_key, previous_session_id, reason, created_at, "
            "updated_at, model FROM session_windows"):
        out[str(sid)] = StoreWindow(str(sid), str(key), prev or None, reason or None,
                                    created, updated, model or None)
    return out


def list_sessions(db: sqlite3.Connection) -> list[StoreSession]:
    """Every window (newest first), then every archived generation."""
    if not is_store(db):
        raise sqlite3.DatabaseError("no 'transcript_events' / 'session_windows' tables")
    windows = _windows(db)
    current = {str(r[0]) for r in db.execute("SELECT current_session_id FROM session_nodes")} \
        if "session_nodes" in table_columns(db) else set()
    counts = {str(sid): (int(n), int(b or 0)) for sid, n, b in db.execute(
        "SELECT session_id, count(*), sum(coalesce(event_utf8_bytes, length(event_json))) "
        "FROM transcript_events GROUP BY session_id")}
    cwds: dict[str, str] = {}
    for sid, text in db.execute("SELECT session_id, event_json FROM transcript_events "
                                "WHERE seq = 0 AND event_json IS NOT NULL"):
        try:
            cwd = as_dict(orjson.loads(text)).get("cwd")
        except orjson.JSONDecodeError:
            continue
        if isinstance(cwd, str):
            cwds[str(sid)] = cwd
    out = [StoreSession(sid, w, *counts.get(sid, (0, 0)), current=sid in current,
                        cwd=cwds.get(sid)) for sid, w in windows.items()]
    out.sort(key=lambda s: (s.window.updated_ms or 0) if s.window else 0, reverse=True)
    if "session_transcript_archives" in table_columns(db):
        for sid, name, reason, size in db.execute(
                "SELECT session_id, archive_name, reason, length(archive_blob) "
                "FROM session_transcript_archives ORDER BY created_at"):
            out.append(StoreSession(str(name), windows.get(str(sid)), 0, int(size or 0),
                                    False, str(reason), str(sid)))
    return out


def session_row(db: sqlite3.Connection, session_key: str) -> dict[str, Any]:
    """The session row (``session_nodes.entry_json``) of a key; empty when absent."""
    if "session_nodes" not in table_columns(db):
        return {}
    row = db.execute("SELECT entry_json FROM session_nodes WHERE session_key = ?",
                     (session_key,)).fetchone()
    try:
        value = orjson.loads(row[0]) if row and row[0] else {}
    except orjson.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def decode_event(event_json: str | None, event_zstd: bytes | None, size: int | None) -> bytes:
    """A row's event JSON: ``event_json`` as UTF-8, or ``event_zstd`` decompressed."""
    if event_zstd is None:
        return (event_json or "").encode("utf-8")
    limit = size if isinstance(size, int) and 0 < size <= MAX_EVENT_BYTES else MAX_EVENT_BYTES
    return zstandard.ZstdDecompressor().decompress(bytes(event_zstd), max_output_size=limit)


def _rows(db: sqlite3.Connection, path: Path, session_id: str, diags: list[Diagnostic],
          cancel: Callable[[], bool] | None) -> Iterator[tuple[int, bytes]]:
    for n, (seq, text, blob, size) in enumerate(db.execute(
            "SELECT seq, event_json, event_zstd, event_utf8_bytes FROM transcript_events "
            "WHERE session_id = ? ORDER BY seq", (session_id,)), 1):
        if n % 1000 == 0 and cancel is not None and cancel():
            raise LoadCancelled(path, f"cancelled at row {n}")
        try:
            yield int(seq), decode_event(text, blob, size)
        except (zstandard.ZstdError, UnicodeError) as exc:
            diags.append(Diagnostic(str(path), int(seq) + 1, f"row seq {seq}: its "
                                    f"event_zstd does not decompress ({exc}); skipped"))


def _lines(rows: list[tuple[int, bytes]]) -> Iterator[LineView]:
    """The rows as the lines of the dumped JSONL (line number = seq + 1)."""
    for seq, data in rows:
        yield seq + 1, 0, len(data), data, True


def event_bytes(db_path: Path, session_id: str, seq: int) -> bytes:
    """One event's JSON, read back from the store (for ``Transcript.raw_line``)."""
    try:
        with open_readonly(db_path) as opened:
            row = opened.db.execute(
                "SELECT event_json, event_zstd, event_utf8_bytes FROM transcript_events "
                "WHERE session_id = ? AND seq = ?", (session_id, seq)).fetchone()
            return decode_event(*row) if row else b""
    except (LoadError, zstandard.ZstdError):
        return b""


def _archive(db: sqlite3.Connection, name: str) -> bytes:
    blob, encoding = db.execute("SELECT archive_blob, encoding FROM "
                                "session_transcript_archives WHERE archive_name = ?",
                                (name,)).fetchone()
    data = bytes(blob)
    if encoding == "zstd":
        data = zstandard.ZstdDecompressor().stream_reader(data).read()
    return data


def _chain(windows: dict[str, StoreWindow], start: StoreWindow) -> list[dict[str, Any]]:
    """The windows this one follows, newest first (``previous_session_id`` links)."""
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    w: StoreWindow | None = start
    while w is not None and w.session_id not in seen:
        seen.add(w.session_id)
        out.append({"session_id": w.session_id, "reason": w.reason,
                    "previous_session_id": w.previous_session_id, "created_ms": w.created_ms})
        w = windows.get(w.previous_session_id or "")
    return out


def _id_of(s: StoreSession) -> str:
    return s.id


def parse_db(opened: Opened, path: Path, fmt: Format, session: str | None, *,
             on_progress: Callable[[int, int], None] | None = None,
             cancel: Callable[[], bool] | None = None) -> ParsedFile:
    """Read one session of the store; never raises for a bad row."""
    db = opened.db
    sessions = list_or_refuse(path, list_sessions, db, "an OpenClaw session store")
    live = [s for s in sessions if s.archived is None]
    chosen, note = pick_session(path, sessions, session, _id_of, live, where="store",
                                which="most recently updated one", held=len(live))
    diags: list[Diagnostic] = [] if note is None else [Diagnostic(str(path), None, note,
                                                                   "warning")]
    if chosen.archived is not None:
        data = _archive(db, chosen.id)
        parsed = parse_lines(iter_raw_lines(data), len(data), path / chosen.id)
        rows: list[tuple[int, bytes]] = []
    else:
        rows = list(_rows(db, path, chosen.id, diags, cancel))
        total = sum(len(b) for _, b in rows)
        parsed = parse_lines(_lines(rows), total, path / chosen.id, on_progress=on_progress,
                             cancel=cancel)
        size = {seq + 1: (seq, len(b)) for seq, b in rows}
        parsed = dataclasses.replace(parsed, entries=tuple(
            dataclasses.replace(e, offset=size[e.line][0], length=size[e.line][1])
            if e.line in size else e for e in parsed.entries))
    windows = {s.id: s.window for s in sessions if s.window is not None and s.archived is None}
    extra: dict[str, Any] = dict(parsed.header.extra) if parsed.header is not None else {}
    extra.update({"agent": "openclaw", "database": str(path), "opened": opened.how,
                  "store_schema_version": _schema_version(db)})
    w = chosen.window
    if w is not None:
        row = session_row(db, w.session_key)
        extra.update({"session_key": w.session_key, "window_reason": w.reason,
                      "previous_session_id": w.previous_session_id,
                      "current": chosen.current, "windows": _chain(windows, w),
                      "session_row": {k: row[k] for k in ROW_KEYS if k in row}})
        extra["archives"] = [s.id for s in sessions if s.archive_of == w.session_id]
    if chosen.archived is not None:
        extra["archived"] = chosen.archived
    header = parsed.header or SessionHeader(id=chosen.id, version=4, line=0)
    header = dataclasses.replace(header, extra=freeze(extra))
    return dataclasses.replace(parsed, format="openclaw-sqlite" if chosen.archived is None
                               else parsed.format, header=header,
                               diagnostics=tuple(diags) + parsed.diagnostics)


def _schema_version(db: sqlite3.Connection) -> int | None:
    if "schema_meta" not in table_columns(db):
        return None
    row = db.execute("SELECT schema_version FROM schema_meta WHERE role = 'agent'").fetchone()
    return int(row[0]) if row else None


def read_store_sessions(path: Path) -> list[StoreSession]:
    """Every session of the store at ``path`` (opened read-only as ``parse_db`` does)."""
    with open_readonly(path) as opened:
        try:
            return list_sessions(opened.db)
        except sqlite3.DatabaseError as exc:
            raise NotATranscriptError(path, f"not an OpenClaw session store: {exc}") from exc
