"""Reading an agent's SQLite database without locking it or writing beside it.

Each case of ``sqlite_open`` is built for real: a WAL database whose newest rows are still
in its WAL (a writer holds it open), one a writer is in the middle of a transaction on, a
WAL-only copy (``-wal`` without ``-shm``), a cleanly closed WAL database, and a rollback
database a writer has locked. After every read the folder holds exactly the files it held
before, and the bytes of the database and its WAL are unchanged (a reader of a live WAL
database does mark its read slot in ``-shm``: that is SQLite's protocol for readers beside a
writer, not data, and it never blocks the writer).
"""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
from pathlib import Path

import pytest

from fixtures.agent_files import crush_db, part
from sessionlens.engine.errors import LoadError
from sessionlens.engine.load.formats.sqlite_open import open_readonly
from sessionlens.engine.load.reader import load_transcript

SID = "s1"


def _db(tmp_path: Path, wal: bool = True) -> Path:
    return crush_db(tmp_path / ".crush" / "crush.db",
                    [{"id": SID, "title": "t", "updated_at": 2, "created_at": 1}],
                    [("m1", SID, "user", [part("text", text="first")], 1)], wal=wal)


def _state(folder: Path) -> dict[str, str]:
    """File name -> its hash (``-shm`` only by presence: readers mark their slot in it)."""
    return {p.name: "" if p.name.endswith("-shm") else hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.iterdir())}


def _add_row(db: sqlite3.Connection, mid: str, text: str) -> None:
    db.execute("INSERT INTO messages (id, session_id, role, parts, created_at, updated_at) "
               "VALUES (?, ?, 'user', ?, 5, 5)", (mid, SID, f'[{{"type":"text","data":'
                                                           f'{{"text":"{text}"}}}}]'))


def _texts(path: Path) -> list[str]:
    return [e.message.text for e in load_transcript(path / SID).entries if e.message]


def test_uncheckpointed_wal_rows_are_read_and_nothing_changes_beside_the_db(
        tmp_path: Path) -> None:
    path = _db(tmp_path)
    writer = sqlite3.connect(path)
    writer.execute("PRAGMA wal_autocheckpoint=0")
    _add_row(writer, "m2", "in the WAL only")
    writer.commit()
    folder = path.parent
    assert {"crush.db", "crush.db-wal", "crush.db-shm"} <= set(_state(folder))
    before = _state(folder)
    with open_readonly(path) as opened:
        assert opened.how == "with its WAL"
        (n,) = opened.db.execute("SELECT count(*) FROM messages").fetchone()
    assert n == 2
    assert _texts(path) == ["first", "in the WAL only"]
    assert _state(folder) == before
    writer.close()


def test_a_writers_open_transaction_neither_blocks_nor_leaks_into_the_read(
        tmp_path: Path) -> None:
    path = _db(tmp_path)
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    _add_row(writer, "m9", "not committed")
    assert _texts(path) == ["first"]
    writer.execute("ROLLBACK")
    writer.close()


def test_a_wal_only_copy_is_read_with_its_rows_without_creating_a_shm(tmp_path: Path) -> None:
    path = _db(tmp_path)
    writer = sqlite3.connect(path)
    writer.execute("PRAGMA wal_autocheckpoint=0")
    _add_row(writer, "m2", "committed to the WAL")
    writer.commit()
    copy = tmp_path / "copy" / ".crush"
    copy.mkdir(parents=True)
    shutil.copyfile(path, copy / "crush.db")
    shutil.copyfile(f"{path}-wal", copy / "crush.db-wal")
    writer.close()
    before = _state(copy)
    assert set(before) == {"crush.db", "crush.db-wal"}
    with open_readonly(copy / "crush.db") as opened:
        assert opened.how == "a copy with its WAL"
    assert _texts(copy / "crush.db") == ["first", "committed to the WAL"]
    assert _state(copy) == before


def test_a_closed_wal_database_is_read_immutable_without_side_files(tmp_path: Path) -> None:
    path = _db(tmp_path)
    assert set(_state(path.parent)) == {"crush.db"}
    with open_readonly(path) as opened:
        assert opened.how == "immutable (no WAL)"
    assert _texts(path) == ["first"]
    assert set(_state(path.parent)) == {"crush.db"}


def test_a_rollback_database_locked_by_a_writer_is_a_clear_load_error(tmp_path: Path) -> None:
    path = _db(tmp_path, wal=False)
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(LoadError, match="locked by another program") as info:
            load_transcript(path / SID)
        assert str(path) in str(info.value)
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert _texts(path) == ["first"]  # readable again once the writer lets go


def test_a_wal_database_held_in_exclusive_locking_mode_is_read_from_a_copy(
        tmp_path: Path) -> None:
    """A writer in exclusive locking mode keeps no ``-shm``: its committed WAL rows are read
    from a private copy, without waiting for the writer or touching its files."""
    path = _db(tmp_path)
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("PRAGMA locking_mode=EXCLUSIVE")
    writer.execute("PRAGMA wal_autocheckpoint=0")
    _add_row(writer, "m2", "committed")
    writer.execute("BEGIN EXCLUSIVE")
    _add_row(writer, "m3", "not committed")
    try:
        before = _state(path.parent)
        assert "crush.db-shm" not in before
        assert _texts(path) == ["first", "committed"]
        assert _state(path.parent) == before
    finally:
        writer.execute("ROLLBACK")
        writer.close()


def test_a_file_that_only_looks_like_sqlite_is_a_load_error(tmp_path: Path) -> None:
    bad = tmp_path / "crush.db"
    bad.write_bytes(b"SQLite format 3\x00" + b"\x00" * 84 + b"junk" * 200)
    with pytest.raises(LoadError):
        load_transcript(bad)
