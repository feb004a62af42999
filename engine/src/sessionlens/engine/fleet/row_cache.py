"""Rows of sessions audited before, kept in SQLite so a rerun audits only what changed.

A row is used again only when the session is the same bytes as far as its stamp can tell
(machine, path, size, mtime, the mtime of the ``sessions.json`` beside it) and the row was
made by the same row version and engine version. Failures are not kept: a broken file is
tried again next time. The database lives in SessionLens's state folder (``--basedir``
redirects it); one that cannot be opened or read only means every session is audited.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Iterable
from pathlib import Path

from .rows import ROW_VERSION, SessionRow, SessionStamp, row_from_dict, row_to_dict

__all__ = ["CACHE_FILE", "RowCache"]

#: The database's name in the state folder.
CACHE_FILE = "fleet-rows.sqlite3"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS rows (
    host TEXT NOT NULL, path TEXT NOT NULL, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
    store_mtime_ns INTEGER NOT NULL, version TEXT NOT NULL, row TEXT NOT NULL,
    PRIMARY KEY (host, path))
"""


def _engine_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"{ROW_VERSION}:{version('sessionlens-engine')}"
    except PackageNotFoundError:
        return f"{ROW_VERSION}:unknown"


class RowCache:
    """The kept rows in ``state_dir/fleet-rows.sqlite3``."""

    def __init__(self, state_dir: Path) -> None:
        self.path = Path(state_dir) / CACHE_FILE
        self._version = _engine_version()
        self._db: sqlite3.Connection | None = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(self.path, check_same_thread=False)
            db.execute(_SCHEMA)
            db.commit()
            self._db = db
        except sqlite3.Error:
            self._db = None  # no cache: every session is audited

    def get(self, stamp: SessionStamp) -> SessionRow | None:
        """The kept row of this very session, or None."""
        if self._db is None:
            return None
        try:
            found = self._db.execute(
                "SELECT size, mtime_ns, store_mtime_ns, version, row FROM rows "
                "WHERE host = ? AND path = ?", (stamp.host, stamp.path)).fetchone()
        except sqlite3.Error:
            return None
        if found is None or tuple(found[:4]) != (stamp.size, stamp.mtime_ns,
                                                 stamp.store_mtime_ns, self._version):
            return None
        try:
            return row_from_dict(json.loads(found[4]))
        except (ValueError, KeyError, TypeError):
            return None

    def put_many(self, kept: Iterable[tuple[SessionStamp, SessionRow]]) -> None:
        """Keep rows (replacing older ones of the same sessions); never raises."""
        if self._db is None:
            return
        with contextlib.suppress(sqlite3.Error):  # a row not kept is only audited again
            self._db.executemany(
                "INSERT OR REPLACE INTO rows VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(s.host, s.path, s.size, s.mtime_ns, s.store_mtime_ns, self._version,
                  json.dumps(row_to_dict(r), ensure_ascii=False)) for s, r in kept])
            self._db.commit()

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None
