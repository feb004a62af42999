"""The search index's SQLite file: its schema, opening it safely, and rebuilding it.

One file under the cache folder holds everything: indexed files, chunks, an FTS5 table
(contentless: the chunk text is stored once, in ``chunks``), compactions and their spans,
and embedding vectors as float32 BLOBs. A chunk's text is its last column, so a query that
filters on the small ones never reads the text's overflow pages. It is a cache: an older
schema, other chunking settings, or a file SQLite calls corrupt are answered by rebuilding
it from the transcripts. The user's added folders live beside it in ``roots.json``, so a
rebuild never loses them.

Concurrency: WAL mode (readers never wait for the writer), a busy timeout, and writes in
``BEGIN IMMEDIATE`` transactions. Every process holding the index takes a shared lock on
``index.lock``; a rebuild takes it exclusively, so no process deletes the file (and its
WAL) under another.
"""

from __future__ import annotations

import contextlib
import os
import re
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from sessionlens.engine._io.private import private_file, private_folder
from sessionlens.engine.errors import ConfigError

from .search_settings import SearchSettings

__all__ = [
    "INDEX_FILE", "SCHEMA_VERSION", "IndexCorrupt", "connect", "fts_text", "index_dir",
    "rebuild", "transaction",
]

#: Bumped whenever the tables or what they hold change; an index of another version is
#: rebuilt (2: a compaction's replaced entries include the tail the previous one kept;
#: 3: chunk text is stored with its secrets blanked, so an older index, which holds them
#: verbatim, is rebuilt rather than read).
SCHEMA_VERSION = 3
INDEX_FILE = "index.sqlite3"
_LOCK_FILE = "index.lock"
#: How long a writer waits for another process's transaction before giving up (ms).
BUSY_TIMEOUT_MS = 60_000
#: Page and cache sizes: chunks are ~1.6 KB rows and FTS5 merges rewrite big segments, so
#: larger pages and a 64 MB cache write measurably faster than SQLite's 4 KB / 2 MB.
PAGE_SIZE = 8192
CACHE_KIB = 65536
#: How long to wait for other processes to let go before a rebuild (seconds).
REBUILD_WAIT_S = 60.0

_SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE files(
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    agent TEXT, format TEXT NOT NULL, session_id TEXT,
    size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
    head_sha TEXT NOT NULL,
    indexed_bytes INTEGER NOT NULL,
    prefix_sha TEXT NOT NULL,
    entry_count INTEGER NOT NULL,
    resume TEXT,
    open_chunk INTEGER,
    pinned INTEGER NOT NULL DEFAULT 0,
    diagnostics INTEGER NOT NULL DEFAULT 0,
    indexed_at REAL NOT NULL
);
CREATE TABLE chunks(
    id INTEGER PRIMARY KEY,
    file_id INTEGER NOT NULL,
    ts_min REAL, ts_max REAL,
    hash TEXT NOT NULL,
    segments TEXT NOT NULL,
    text TEXT NOT NULL
);
CREATE INDEX chunks_by_file ON chunks(file_id);
CREATE INDEX chunks_by_hash ON chunks(hash);
CREATE VIRTUAL TABLE chunk_fts USING fts5(body, content='',
                                         tokenize='unicode61 remove_diacritics 2');
CREATE TABLE compactions(
    file_id INTEGER NOT NULL,
    compaction_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    previous_id TEXT,
    summary TEXT NOT NULL,
    replaced TEXT NOT NULL,
    PRIMARY KEY(file_id, compaction_id)
);
CREATE TABLE vectors(
    hash TEXT NOT NULL, model TEXT NOT NULL, dim INTEGER NOT NULL, vec BLOB NOT NULL,
    PRIMARY KEY(hash, model)
);
"""


class IndexCorrupt(Exception):
    """The index file cannot be used as it is (internal: answered by a rebuild)."""


def index_dir(cache_dir: Path | str) -> Path:
    """The folder of the search index inside a cache folder."""
    return Path(cache_dir) / "search"


# --------------------------------------------------------------------------- FTS text

#: Runs of scripts written without spaces (kana, CJK ideographs, Hangul syllables).
_WIDE = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
                   "\U00020000-\U0002fa1f]+")


def _spaced(run: re.Match[str]) -> str:
    return f" {' '.join(run.group())} "


def fts_text(text: str) -> str:
    """Text as FTS5 indexes it: CJK characters become one token each.

    FTS5's unicode61 tokenizer keeps a run of Chinese or Japanese as one token, so a word
    inside a sentence could never match; spacing the characters out (here and in queries)
    makes a search for a word a phrase of its characters.
    """
    if text.isascii():
        return text
    return _WIDE.sub(_spaced, text)  # a run at a time: one call per character cost seconds


# --------------------------------------------------------------------------- locking

@contextlib.contextmanager
def _file_lock(folder: Path, exclusive: bool, wait_s: float) -> Iterator[None]:
    """A shared or exclusive advisory lock on ``index.lock`` (POSIX; elsewhere a no-op)."""
    try:
        import fcntl
    except ImportError:  # Windows: SQLite's own locking still guards every write
        yield
        return
    private_folder(folder, parents=1)
    fh: IO[bytes] = open(private_file(folder / _LOCK_FILE), "ab")
    try:
        mode = fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH
        deadline = time.monotonic() + wait_s
        while True:
            try:
                fcntl.flock(fh.fileno(), mode | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise ConfigError(f"{folder}: the search index is held by another "
                                      "SessionLens process") from None
                time.sleep(0.05)
        yield
    finally:
        fh.close()  # closing drops the lock


# --------------------------------------------------------------------------- opening

def _raw_connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                           check_same_thread=False)
    conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    conn.execute(f"PRAGMA cache_size=-{CACHE_KIB}")  # FTS5 merges re-read their segments
    # A cache may lose its last transactions in a power cut (the next update redoes them),
    # so commits need not wait for the disk; checkpoints come every 64 MB, not every 8.
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA wal_autocheckpoint=8192")
    return conn


def _check(conn: sqlite3.Connection, settings: SearchSettings) -> None:
    """Raise IndexCorrupt unless this is a complete index of our schema and chunking."""
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version != SCHEMA_VERSION:
            raise IndexCorrupt(f"schema version {version}, expected {SCHEMA_VERSION}")
        row = conn.execute("SELECT value FROM meta WHERE key='chunking'").fetchone()
        if row is None or row[0] != settings.chunking_key:
            raise IndexCorrupt("built with other chunking settings")
        # the first match only: FTS5 reads its structure and one leaf (a count walked the
        # whole list of a common token, 11-13 ms before every query on a 900 MB index)
        conn.execute("SELECT rowid FROM chunk_fts WHERE chunk_fts MATCH 'x' LIMIT 1").fetchone()
    except sqlite3.DatabaseError as exc:
        raise IndexCorrupt(str(exc)) from exc


def _create(path: Path, settings: SearchSettings) -> None:
    """Write a new, empty index at ``path`` (a temp name; the caller renames it), owner-only
    like the transcripts whose text it holds."""
    conn = _raw_connect(private_file(path))
    try:
        conn.execute(f"PRAGMA page_size={PAGE_SIZE}")
        conn.executescript(_SCHEMA)
        conn.execute("INSERT INTO meta VALUES ('chunking', ?)", (settings.chunking_key,))
        conn.execute("INSERT INTO meta VALUES ('created', ?)", (str(time.time()),))
        conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        conn.execute("PRAGMA journal_mode=WAL")
    finally:
        conn.close()


def rebuild(folder: Path, settings: SearchSettings, *, force: bool = False) -> None:
    """Replace the index with an empty one (holding the exclusive lock); unless ``force``,
    an index another process rebuilt while we waited is kept."""
    with _file_lock(folder, True, REBUILD_WAIT_S):
        target = folder / INDEX_FILE
        if target.exists() and not force:
            with contextlib.suppress(IndexCorrupt):  # corrupt: rebuilt below
                conn = _raw_connect(target)
                try:
                    _check(conn, settings)
                    return
                finally:
                    conn.close()
        tmp = folder / f".{INDEX_FILE}.{os.getpid()}.new"
        for stale in (tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm")):
            stale.unlink(missing_ok=True)
        _create(tmp, settings)
        for old in (Path(f"{target}-wal"), Path(f"{target}-shm")):
            old.unlink(missing_ok=True)
        os.replace(tmp, target)


@contextlib.contextmanager
def connect(folder: Path, settings: SearchSettings) -> Iterator[sqlite3.Connection]:
    """An open, checked connection; a missing, corrupt or outdated index is rebuilt first.
    The folder (and the cache folder it is in) and the index's files are owner-only, also
    when an older version left them readable."""
    private_folder(folder, parents=1)
    for name in (INDEX_FILE, f"{INDEX_FILE}-wal", f"{INDEX_FILE}-shm"):
        if (folder / name).exists():
            private_file(folder / name)
    for attempt in range(2):
        with _file_lock(folder, False, REBUILD_WAIT_S):
            target = folder / INDEX_FILE
            conn: sqlite3.Connection | None = None
            if target.exists():
                try:
                    conn = _raw_connect(target)
                    _check(conn, settings)
                except (IndexCorrupt, sqlite3.DatabaseError):
                    if conn is not None:
                        conn.close()
                    conn = None
            if conn is not None:
                try:
                    yield conn
                finally:
                    conn.close()
                return
        if attempt == 0:
            rebuild(folder, settings)
    raise ConfigError(f"{folder}: cannot create the search index")


@contextlib.contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """``BEGIN IMMEDIATE`` ... ``COMMIT`` (rolled back on any error); inside another one, it
    joins it (the outer transaction commits or rolls back both)."""
    if conn.in_transaction:
        yield conn
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
