"""Following one session of OpenClaw's SQLite store as OpenClaw appends rows to it.

A session of the store (``<db>/<session id>``, as the reader addresses it) is the rows of
``transcript_events`` with its ``session_id``, in ``seq`` order. OpenClaw appends a row per
entry, so ``StoreMark`` remembers the last ``seq`` read and how many rows there were up to
it; ``follow_store`` reads only the rows after it (decoding ``event_zstd`` as the reader
does), or says the session must be read again (rows gone or replaced below the mark) or is
gone (its window removed). Each look opens the database read-only as the reader does
(``open_readonly``: no write lock, no checkpoint, nothing created beside it), so OpenClaw's
gateway is never stalled. The session's header row (``seq`` 0) comes with the new rows, so
they parse as a full load would parse them.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

import zstandard

from sessionlens.engine.agents.openclaw.openclaw_store import STORE_NAME, decode_event
from sessionlens.engine.errors import LoadError, NotATranscriptError
from sessionlens.engine.load.formats.sqlite_open import open_readonly
from sessionlens.engine.model import Diagnostic

from .tail import ChangeKind

__all__ = ["StoreChange", "StoreMark", "follow_store", "live_windows", "mark_store",
           "split_store_key", "store_db_of", "store_key"]

#: A row as the reader turns it into a line: its ``seq`` and its event's JSON bytes.
Row = tuple[int, bytes]


@dataclass(frozen=True, slots=True)
class StoreMark:
    """How far a session was read: rows up to ``last_seq`` (``rows`` of them)."""

    last_seq: int
    rows: int


@dataclass(frozen=True, slots=True)
class StoreChange:
    """What ``follow_store`` found. For ``appended``: the new rows in ``seq`` order and the
    session's header row (``seq`` 0) to parse them after."""

    kind: ChangeKind
    mark: StoreMark | None
    rows: tuple[Row, ...] = ()
    header: bytes = b""
    diagnostics: tuple[Diagnostic, ...] = ()


def store_db_of(path: Path) -> Path | None:
    """The store a changed path belongs to: the database itself or its ``-wal`` file (the
    ``-shm`` index changes when anyone reads, so it says nothing)."""
    if path.name == STORE_NAME:
        return path
    if path.name == STORE_NAME + "-wal":
        return path.with_name(STORE_NAME)
    return None


def store_key(db: Path, session_id: str) -> Path:
    """The path a store session is addressed by (``<db>/<session id>``)."""
    return db / session_id


def split_store_key(path: Path) -> tuple[Path, str] | None:
    """(database, session id) for ``<db>/<session id>``; None for any other path."""
    if path.parent.name == STORE_NAME and path.parent.is_file():
        return path.parent, path.name
    return None


def live_windows(db_path: Path) -> dict[str, float | None]:
    """The store's live windows (``session_windows``; archived generations are elsewhere):
    session id -> when it was last updated (seconds since the epoch; None when the store
    does not say). One small query: nothing counts the events, so it is cheap on every
    change."""
    try:
        with open_readonly(db_path) as opened:
            found = opened.db.execute(
                "SELECT session_id, updated_at FROM session_windows").fetchall()
    except sqlite3.Error as exc:
        raise NotATranscriptError(db_path, f"not an OpenClaw session store: {exc}") from exc
    return {str(sid): at / 1000 if isinstance(at, int) else None for sid, at in found}


def _extent(db: sqlite3.Connection, session_id: str) -> tuple[int, int]:
    last, count = db.execute("SELECT coalesce(max(seq), -1), count(*) FROM transcript_events "
                             "WHERE session_id = ?", (session_id,)).fetchone()
    return int(last), int(count)


def mark_store(db_path: Path, session_id: str) -> StoreMark:
    """A mark for the session as it is now: every row counted as read."""
    with open_readonly(db_path) as opened:
        return StoreMark(*_extent(opened.db, session_id))


def _decoded(db_path: Path, session_id: str, found: list[tuple[int, str | None, bytes | None,
             int | None]]) -> tuple[list[Row], list[Diagnostic]]:
    rows: list[Row] = []
    diags: list[Diagnostic] = []
    for seq, text, blob, size in found:
        try:
            rows.append((int(seq), decode_event(text, blob, size)))
        except (zstandard.ZstdError, UnicodeError) as exc:
            diags.append(Diagnostic(str(store_key(db_path, session_id)), int(seq) + 1,
                                    f"row seq {seq}: its event_zstd does not decompress "
                                    f"({exc}); skipped"))
    return rows, diags


def follow_store(db_path: Path, session_id: str, mark: StoreMark) -> StoreChange:
    """What changed in the session since ``mark``: nothing, appended rows, a rewrite (rows
    gone or replaced at or below the mark), or a removal (the store or the window gone)."""
    if not db_path.exists():
        return StoreChange("removed", None)
    try:
        with open_readonly(db_path) as opened:
            db = opened.db
            if db.execute("SELECT 1 FROM session_windows WHERE session_id = ?",
                          (session_id,)).fetchone() is None:
                return StoreChange("removed", None)
            last, count = _extent(db, session_id)
            if last == mark.last_seq and count == mark.rows:
                return StoreChange("none", mark)
            found = db.execute(
                "SELECT seq, event_json, event_zstd, event_utf8_bytes FROM transcript_events "
                "WHERE session_id = ? AND (seq = 0 OR seq > ?) ORDER BY seq",
                (session_id, mark.last_seq)).fetchall()
    except (LoadError, sqlite3.Error):
        return StoreChange("rewritten", None)
    fresh = [r for r in found if int(r[0]) > mark.last_seq]
    if last < mark.last_seq or count - len(fresh) != mark.rows:
        return StoreChange("rewritten", None)
    rows, diags = _decoded(db_path, session_id, found)
    header = rows[0][1] if rows and rows[0][0] == 0 and mark.last_seq >= 0 else b""
    new = tuple(r for r in rows if r[0] > mark.last_seq)
    return StoreChange("appended", StoreMark(last, count), new, header, tuple(diags))
