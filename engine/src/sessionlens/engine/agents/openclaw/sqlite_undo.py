"""The backup taken before SessionLens writes into OpenClaw's store, and the undo from it.

Before the first row of a compaction changes, the whole database is copied through SQLite's
backup API (from the writing connection, inside its write transaction, so the copy is the
store exactly as it was; WAL content included) to
``<agent dir>/sessionlens-backups/<session>.<compaction id>.sqlite`` and synced. Beside it,
``….json`` records the database, the session, the compaction and a fingerprint of the store
as the write left it.

Undo restores the backup over the store (the backup API again), under the same rules as the
write: no OpenClaw process may hold the store (``sqlite_lease``), and the store must
be exactly as the compaction left it (the fingerprint): if OpenClaw wrote anything since,
restoring would lose that, so nothing is restored and the reason is said. The fingerprint
hashes every row of every ordinary table, except that ``transcript_events`` and
``transcript_event_identities`` (append-only, rewritten only with a new
``transcript_rewrite_watermarks`` generation, which is hashed) contribute their keys and sizes.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from sessionlens.engine._io.atomic import atomic_write_bytes, fsync_directory
from sessionlens.engine.errors import FileChangedError, PersistError
from sessionlens.engine.persist.record import WriteResult

from .sqlite_connect import connect_store
from .sqlite_lease import holding_state_lock

__all__ = ["BackupRecord", "backup_dir", "backup_name", "fingerprint", "is_store_backup",
           "read_backup_record", "remove_backup", "restore_backup", "undo_store_write",
           "write_backup", "write_backup_record"]

FOLDER = "sessionlens-backups"
_KEYS_ONLY = {
    "transcript_events": "session_id, seq, created_at, length(event_json), length(event_zstd)",
    "transcript_event_identities": "session_id, event_id, seq",
}


@dataclass(frozen=True, slots=True)
class BackupRecord:
    """What one backup is of, and the store as the compaction left it."""

    backup: Path
    database: Path
    session_id: str
    compaction_id: str
    fingerprint: str


def backup_dir(db: Path) -> Path:
    return Path(db).absolute().parent / FOLDER


def backup_name(session_id: str, compaction_id: str) -> str:
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in session_id)
    return f"{safe}.{compaction_id}.sqlite"


def _record_path(backup: Path) -> Path:
    return backup.with_suffix(".json")


def write_backup(db: Path, target: Path) -> None:
    """The whole database ``db`` copied to ``target`` (a new file) and synced.

    Called while the writer holds the store's write lock and has changed nothing yet: a
    second, read-only connection reads the last committed state (the writing connection
    itself cannot be a backup source, SQLite answers SQLITE_LOCKED)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists():
        raise PersistError(target, "a backup of that name exists already; nothing was written")
    src = sqlite3.connect(f"{Path(db).absolute().as_uri()}?mode=ro", uri=True, timeout=5)
    out = sqlite3.connect(target)
    try:
        src.backup(out)
    except sqlite3.Error as exc:
        remove_backup(target)
        raise PersistError(target, f"cannot back up the store ({exc}); nothing was "
                           "written") from exc
    finally:
        out.close()
        src.close()
    fd = os.open(target, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    fsync_directory(target.parent)


def write_backup_record(backup: Path, database: Path, session_id: str, compaction_id: str,
                        print_: str) -> None:
    data = {"database": str(Path(database).absolute()), "session": session_id,
            "compaction": compaction_id, "backup": backup.name, "fingerprint": print_}
    atomic_write_bytes(_record_path(backup), json.dumps(data, indent=1).encode("utf-8"))


def read_backup_record(path: Path) -> BackupRecord:
    """The record of a backup (``path``: the backup or its ``.json``)."""
    record = _record_path(Path(path)) if Path(path).suffix != ".json" else Path(path)
    try:
        data = json.loads(record.read_text("utf-8"))
        return BackupRecord(record.with_name(str(data["backup"])), Path(data["database"]),
                            str(data["session"]), str(data["compaction"]),
                            str(data["fingerprint"]))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise PersistError(record, f"not a SessionLens store backup record ({exc})") from exc


def is_store_backup(path: Path) -> bool:
    """Is ``path`` a backup of OpenClaw's store taken by SessionLens (with its record)?"""
    p = Path(path)
    return p.suffix == ".sqlite" and p.parent.name == FOLDER and _record_path(p).is_file()


def remove_backup(backup: Path) -> None:
    for path in (backup, _record_path(backup)):
        with contextlib.suppress(OSError):
            path.unlink()


def fingerprint(con: sqlite3.Connection) -> str:
    """A hash of the store's content (see the module text)."""
    digest = hashlib.sha256()
    tables = [str(r[0]) for r in con.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
        "AND sql NOT LIKE 'CREATE VIRTUAL TABLE%' ORDER BY name")]
    for name in tables:
        cols = _KEYS_ONLY.get(name, "*")
        digest.update(f"\0{name}\0".encode())
        rows = con.execute(f'SELECT {cols} FROM "{name}"').fetchall()  # noqa: S608 (schema names)
        for row in sorted(rows, key=repr):
            digest.update(repr(row).encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def restore_backup(path: Path) -> BackupRecord:
    """Put the store back as it was before the compaction the backup ``path`` was taken for.

    Refuses (nothing restored) while OpenClaw holds the store, or when the store changed
    since that compaction was written. The backup and its record are kept."""
    rec = read_backup_record(path)
    if not rec.backup.is_file():
        raise PersistError(rec.backup, "the backup is missing; nothing was restored")
    with holding_state_lock(rec.database):
        con = connect_store(rec.database)
        try:
            con.execute("BEGIN IMMEDIATE")
            now = fingerprint(con)
            con.execute("ROLLBACK")
            if now != rec.fingerprint:
                raise FileChangedError(rec.database, "changed since SessionLens wrote the "
                                       f"compaction {rec.compaction_id} (OpenClaw wrote to it): "
                                       "restoring the backup would lose that; nothing was "
                                       "restored")
            src = sqlite3.connect(f"{rec.backup.absolute().as_uri()}?mode=ro", uri=True)
            try:
                src.backup(con)
            finally:
                src.close()
            con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.Error as exc:
            raise PersistError(rec.database, f"cannot restore the backup ({exc})") from exc
        finally:
            con.close()
    return rec


def undo_store_write(path: Path) -> WriteResult:
    """``restore_backup`` as the write path reports it (``restore CHECKPOINT``, the app's
    Undo): the store is written; ``successor_path`` is the session to open again."""
    rec = restore_backup(path)
    return WriteResult(written=(rec.database,), successor_path=rec.database / rec.session_id,
                       session_id=rec.session_id,
                       notes=(f"{rec.database.name} restored from {rec.backup.name}: the "
                              f"compaction {rec.compaction_id} and everything written with it "
                              "are gone",))
