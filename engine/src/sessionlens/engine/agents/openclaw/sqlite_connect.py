"""A read-write connection to OpenClaw's store, as its own schema needs it.

The store's CHECK constraints call ``octet_length`` (SQLite 3.43+); on an older SQLite the
same function is registered in Python (UTF-8 bytes of a text, the length of a blob), so
writes are checked exactly as OpenClaw's own SQLite checks them.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sessionlens.engine.errors import PersistError

__all__ = ["connect_store"]

_NATIVE_OCTET_LENGTH = sqlite3.sqlite_version_info >= (3, 43, 0)


def _octet_length(value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, bytes | bytearray | memoryview):
        return len(bytes(value))
    return len(str(value).encode("utf-8"))


def connect_store(db: Path, timeout_s: float = 5.0) -> sqlite3.Connection:
    """A read-write connection in autocommit mode (transactions are explicit)."""
    if not db.is_file():
        raise PersistError(db, "the OpenClaw store does not exist; nothing was written")
    con = sqlite3.connect(f"{db.absolute().as_uri()}?mode=rw", uri=True, timeout=timeout_s,
                          isolation_level=None)
    if not _NATIVE_OCTET_LENGTH:
        con.create_function("octet_length", 1, _octet_length, deterministic=True)
    con.execute("PRAGMA foreign_keys = ON")
    return con
