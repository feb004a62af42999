"""Opening an agent's SQLite database read-only, without locking it or writing beside it.

Crush and OpenCode keep sessions in a WAL-mode SQLite database that the agent may be writing
while SessionLens reads it. What each case needs (measured with SQLite 3.40; the tests build
every case):

- WAL database with ``-wal`` and ``-shm`` beside it (the agent is running, or stopped
  without a checkpoint): ``mode=ro``. It reads the uncheckpointed rows through the
  shared-memory index, never takes the write lock, never checkpoints, and creates nothing
  (both files exist); like every WAL reader it marks its read slot in ``-shm``, which is
  how SQLite lets readers and a writer share the file. A writer's open transaction does not
  block it and does not leak into it.
- WAL database with neither file (cleanly closed): ``mode=ro`` would create ``-wal`` and
  ``-shm`` beside the database, so ``immutable=1`` instead: no locks, no side files, and
  no WAL exists to miss.
- WAL database with ``-wal`` but no ``-shm`` (a copied pair, e.g. committed to a repository,
  or a writer in exclusive locking mode, which keeps its index in memory): both files are
  copied into a private temporary folder and the copy is read, so the WAL's committed rows
  count, nobody is waited for, and nothing is created beside the original.
- rollback-journal database: ``mode=ro``, holding a shared lock only while reading; a
  writer holding the lock makes the open fail after a short wait, with a clear message.

Every read runs inside one transaction (one consistent snapshot) with ``query_only`` on.
"""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from sessionlens.engine.errors import LoadError

__all__ = ["SQLITE_MAGIC", "Opened", "is_sqlite", "open_bytes", "open_readonly", "table_columns"]

SQLITE_MAGIC = b"SQLite format 3\x00"
#: How long to wait for a writer's lock before giving up (seconds).
BUSY_TIMEOUT = 1.0


@dataclass(frozen=True, slots=True)
class Opened:
    """A connection inside a read transaction, and how the database was opened."""

    db: sqlite3.Connection
    #: "with its WAL", "immutable (no WAL)", "a copy with its WAL", "rollback journal",
    #: "from memory".
    how: str


def is_sqlite(head: bytes) -> bool:
    return head.startswith(SQLITE_MAGIC)


def _is_wal(path: Path) -> bool:
    with open(path, "rb") as fh:
        header = fh.read(100)
    return len(header) >= 20 and header[18] == 2 and header[19] == 2


def _connect(uri: str) -> sqlite3.Connection:
    db = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT, isolation_level=None,
                         check_same_thread=False)
    db.execute("PRAGMA query_only = 1")
    return db


def _explain(path: Path, exc: sqlite3.Error) -> LoadError:
    text = str(exc)
    if "locked" in text or "busy" in text:
        return LoadError(path, "the database is locked by another program (the agent is "
                         "writing to it); try again in a moment")
    if "not a database" in text:
        return LoadError(path, "not a SQLite database (or it is damaged)")
    return LoadError(path, f"cannot read the database: {text}")


def _choose(path: Path) -> tuple[str, str, Path | None]:
    """(URI, how, temporary folder to remove afterwards) for the case ``path`` is in."""
    wal, shm = Path(f"{path}-wal"), Path(f"{path}-shm")
    here = path.resolve().as_uri()
    if not _is_wal(path):
        return here + "?mode=ro", "rollback journal", None
    if wal.exists() and shm.exists():
        return here + "?mode=ro", "with its WAL", None
    if not wal.exists():
        return here + "?immutable=1", "immutable (no WAL)", None
    tmp = Path(tempfile.mkdtemp(prefix="sessionlens-db-"))
    try:
        shutil.copyfile(path, tmp / path.name)
        shutil.copyfile(wal, tmp / wal.name)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return (tmp / path.name).as_uri() + "?mode=ro", "a copy with its WAL", tmp


@contextmanager
def open_readonly(path: Path) -> Iterator[Opened]:
    """A read-only snapshot of the database at ``path`` (see the module notes)."""
    path = Path(path)
    tmp: Path | None = None
    try:
        uri, how, tmp = _choose(path)
        db = _connect(uri)
        try:
            db.execute("BEGIN")
            db.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.Error:
            db.close()
            raise
    except (OSError, sqlite3.Error) as exc:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
        if isinstance(exc, OSError):
            raise LoadError(path, f"cannot read: {exc.strerror or exc}") from exc
        raise _explain(path, exc) from exc
    try:
        yield Opened(db, how)
    except sqlite3.Error as exc:
        raise _explain(path, exc) from exc
    finally:
        db.close()
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


@contextmanager
def open_bytes(data: bytes, path: Path) -> Iterator[Opened]:
    """A database held in memory (no WAL can come with bytes: a WAL-mode header is read
    as a rollback one, which is what SQLite needs to open it from memory)."""
    image = bytearray(data)
    if len(image) >= 20 and image[18] == 2:
        image[18] = image[19] = 1
    db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
    try:
        db.deserialize(bytes(image))
        db.execute("PRAGMA query_only = 1")
        db.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.Error as exc:
        db.close()
        raise _explain(path, exc) from exc
    try:
        yield Opened(db, "from memory")
    except sqlite3.Error as exc:
        raise _explain(path, exc) from exc
    finally:
        db.close()


def table_columns(db: sqlite3.Connection) -> dict[str, frozenset[str]]:
    """Table name -> its column names."""
    out: dict[str, frozenset[str]] = {}
    for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'"):
        cols = frozenset(str(r[1]) for r in db.execute(f'PRAGMA table_info("{name}")'))
        out[str(name)] = cols
    return out
