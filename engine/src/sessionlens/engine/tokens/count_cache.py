"""Exact token counts remembered across runs: one SQLite row per (encoding, text digest).

Why by digest of the text: an entry's exact count is a pure function of the text it is
counted over and of the encoding, so a key made of nothing else can never give a stale
answer. A line that changed has another digest; a file that grew brings new digests and
finds the old ones. Line numbers, entry ids and file names are not part of the key, so the
same message in a successor transcript or a copy is counted once.

Why SQLite: one file, safe for several processes at once (WAL, busy timeout, ``INSERT OR
IGNORE`` of rows that are the same whoever writes them first), and deleting it at any time
only costs a recount. Whatever goes wrong with the file (folder not writable, read-only
media, a corrupt or locked database) the cache falls back to this process's memory and
says why in ``note``; counting never fails because of it.
"""

from __future__ import annotations

import contextlib
import hashlib
import sqlite3
import threading
import time
from collections.abc import Iterable, Mapping
from pathlib import Path

from sessionlens.engine._io.private import private_file, private_folder

__all__ = ["FILE_NAME", "CountCache", "text_key"]

#: The database's name inside the cache folder.
FILE_NAME = "token-counts.sqlite3"
#: Bumped when the table changes; a file of another version is emptied, not migrated.
SCHEMA_VERSION = 1
#: A cache that grew past this is started afresh (rows are ~60 bytes: millions of entries).
MAX_FILE_BYTES = 256 << 20
#: How long a writer waits for another process's transaction (seconds).
BUSY_TIMEOUT_S = 5.0
#: Keys per SELECT; well under SQLite's host-parameter limit on every version.
LOOKUP_BATCH = 900
#: Rows kept in memory when there is no database (or it refused a write).
MEMORY_ROWS = 500_000

_SUFFIXES = ("", "-wal", "-shm", "-journal")


def text_key(text: str) -> bytes:
    """The cache key of a text: 16 bytes of BLAKE2b over its UTF-8 (lone surrogates kept)."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


class CountCache:
    """Token counts per (encoding tag, text key), in a SQLite file or, failing that, in memory.

    Thread-safe (one connection behind a lock): the app counts on worker threads. ``hits``
    and ``stored`` count what this object served and learned, for reports and tests.
    """

    def __init__(self, path: Path | None = None) -> None:
        """``path`` is the database file; None keeps everything in this process's memory."""
        self._lock = threading.Lock()
        self._memory: dict[tuple[str, bytes], int] = {}
        self._db: sqlite3.Connection | None = None
        self._read_only = False
        self.hits = 0
        self.stored = 0
        #: Why counts are not (or no longer) written to a file; None while they are.
        self.note: str | None = None if path is not None else "in memory only"
        self.path = path
        if path is not None:
            self._open(Path(path))

    @classmethod
    def in_folder(cls, folder: Path | str) -> CountCache:
        """The cache file ``FILE_NAME`` in ``folder`` (created when possible)."""
        return cls(Path(folder) / FILE_NAME)

    @property
    def persistent(self) -> bool:
        """True when new counts reach the database file (they survive this process)."""
        return self._db is not None and not self._read_only

    # opening --------------------------------------------------------------------------------
    def _open(self, path: Path) -> None:
        try:
            private_folder(path.parent, parents=1)  # the counts are keyed by text hashes
            private_file(path)
            if path.exists() and path.stat().st_size > MAX_FILE_BYTES:
                _unlink_all(path)
        except OSError as exc:
            return self._open_read_only(path, f"cache folder not writable ({exc.strerror or exc})")
        deadline = time.monotonic() + BUSY_TIMEOUT_S
        may_discard = True  # a corrupt file is ours to throw away, once: it only held counts
        while True:
            try:
                self._db = self._connect(path)
                return None
            except sqlite3.DatabaseError as exc:
                self._close_db()
                # processes creating the file at once: switching a new database to WAL can
                # answer "locked" at once, without waiting (SQLite's deadlock rule); it
                # clears as soon as one of them is done, so wait and try again
                if _is_locked(exc) and time.monotonic() < deadline:
                    time.sleep(0.02)
                    continue
                if not (may_discard and _is_corrupt(exc)):
                    return self._open_read_only(path, f"cache not writable ({exc})")
                may_discard = False
                try:
                    _unlink_all(path)
                except OSError:
                    return self._open_read_only(path, "cache file unusable")

    @staticmethod
    def _connect(path: Path) -> sqlite3.Connection:
        db = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None,
                             check_same_thread=False)
        try:
            db.execute("PRAGMA journal_mode=WAL")  # readers never wait for a writer
            db.execute("PRAGMA synchronous=NORMAL")
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version != SCHEMA_VERSION:
                db.execute("BEGIN IMMEDIATE")
                version = db.execute("PRAGMA user_version").fetchone()[0]
                if version != SCHEMA_VERSION:  # another process may have just done it
                    db.execute("DROP TABLE IF EXISTS counts")
                    db.execute("CREATE TABLE counts (enc TEXT NOT NULL, key BLOB NOT NULL, "
                               "tokens INTEGER NOT NULL, PRIMARY KEY (enc, key)) WITHOUT ROWID")
                    db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
                db.execute("COMMIT")
        except BaseException:
            db.close()
            raise
        return db

    def _open_read_only(self, path: Path, why: str) -> None:
        """Use an existing cache for lookups even where it cannot be written (read-only media)."""
        self.note = why + "; new counts kept in memory"
        try:
            db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True,
                                 timeout=BUSY_TIMEOUT_S, isolation_level=None,
                                 check_same_thread=False)
            if db.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
                db.close()
                return
        except (sqlite3.Error, OSError, ValueError):
            return
        self._db, self._read_only = db, True

    def _close_db(self) -> None:
        if self._db is not None:
            with contextlib.suppress(sqlite3.Error):  # closing what failed to open
                self._db.close()
            self._db = None

    def close(self) -> None:
        """Close the database; the object keeps working from memory."""
        with self._lock:
            self._close_db()

    # lookups and stores ---------------------------------------------------------------------
    def lookup(self, encoding: str, keys: Iterable[bytes]) -> dict[bytes, int]:
        """The counts known for ``keys`` under ``encoding`` (missing keys are left out)."""
        wanted = list(dict.fromkeys(keys))
        found: dict[bytes, int] = {}
        with self._lock:
            if self._memory:
                for k in wanted:
                    n = self._memory.get((encoding, k))
                    if n is not None:
                        found[k] = n
            rest = [k for k in wanted if k not in found] if found else wanted
            if self._db is not None and rest:
                try:
                    for i in range(0, len(rest), LOOKUP_BATCH):
                        batch = rest[i:i + LOOKUP_BATCH]
                        marks = ",".join("?" * len(batch))
                        found.update(self._db.execute(
                            f"SELECT key, tokens FROM counts WHERE enc = ? AND key IN ({marks})",
                            (encoding, *batch)))
                except sqlite3.Error as exc:
                    self._degrade(f"cache unreadable ({exc})")
            self.hits += len(found)
        return found

    def store(self, encoding: str, counts: Mapping[bytes, int]) -> None:
        """Remember ``counts`` (text key -> tokens); never raises for a cache problem."""
        if not counts:
            return
        with self._lock:
            self.stored += len(counts)
            if self._db is not None and not self._read_only:
                try:
                    self._db.execute("BEGIN IMMEDIATE")
                    try:
                        self._db.executemany(
                            "INSERT OR IGNORE INTO counts (enc, key, tokens) VALUES (?, ?, ?)",
                            ((encoding, k, n) for k, n in counts.items()))
                        self._db.execute("COMMIT")
                    except BaseException:
                        self._db.execute("ROLLBACK")
                        raise
                    return
                except sqlite3.Error as exc:
                    self.note = f"cache write failed ({exc}); new counts kept in memory"
            if len(self._memory) + len(counts) > MEMORY_ROWS:
                self._memory.clear()  # a bound, not an LRU: memory mode is the rare case
            for k, n in counts.items():
                self._memory[(encoding, k)] = n

    def _degrade(self, why: str) -> None:
        self._close_db()
        self.note = why + "; new counts kept in memory"


def _is_locked(exc: sqlite3.DatabaseError) -> bool:
    text = str(exc).lower()
    return "locked" in text or "busy" in text


def _is_corrupt(exc: sqlite3.DatabaseError) -> bool:
    text = str(exc).lower()
    return "not a database" in text or "malformed" in text


def _unlink_all(path: Path) -> None:
    for suffix in _SUFFIXES:
        Path(str(path) + suffix).unlink(missing_ok=True)
