"""Atomic writes, the transcript lock, change detection and all-or-nothing compaction writes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import sessionlens.engine.persist.writer as persist_mod
from fixtures.persist_fixtures import SESSION_ID, rich_session
from sessionlens.engine.errors import FileChangedError, LockHeldError, PersistError
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.persist.successor import CompactionRecord
from sessionlens.engine.persist.writer import (
    atomic_copy,
    atomic_write_bytes,
    atomic_write_text,
    check_lock,
    ensure_unchanged,
    hold_lock,
    lock_path_for,
    write_compaction,
)


def _listing(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def _record(t_ids: dict[str, str]) -> CompactionRecord:
    summarized = tuple(t_ids[n] for n in ("u1", "a1", "tr1", "a2"))
    return CompactionRecord("summary", t_ids["u2"], 100, 10,
                            summarized_entry_ids=summarized, provider="offline")


# --------------------------------------------------------------------------- atomic writes

def test_atomic_write_replaces_and_keeps_mode(tmp_path: Path) -> None:
    target = tmp_path / "f.txt"
    target.write_text("old")
    target.chmod(0o640)
    atomic_write_text(target, "new ✓")
    assert target.read_text(encoding="utf-8") == "new ✓"
    assert target.stat().st_mode & 0o777 == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["f.txt"]


def test_atomic_write_failure_leaves_target_and_no_temp(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "f.txt"
    target.write_bytes(b"original")

    def broken_fsync(fd: int) -> None:
        raise OSError(5, "simulated I/O error")

    monkeypatch.setattr(os, "fsync", broken_fsync)  # the temp file's fsync fails
    with pytest.raises(PersistError, match="simulated"):
        atomic_write_bytes(target, b"replacement")
    assert _listing(tmp_path) == {"f.txt": b"original"}


def test_exclusive_write_never_overwrites(tmp_path: Path) -> None:
    target = tmp_path / "f.jsonl"
    target.write_bytes(b"mine")
    with pytest.raises(PersistError, match="already exists"):
        atomic_write_bytes(target, b"other", exclusive=True)
    assert _listing(tmp_path) == {"f.jsonl": b"mine"}


# --------------------------------------------------------------------------- locks

def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_lock_held_by_live_process_is_refused(tmp_path: Path) -> None:
    src, ids = rich_session(tmp_path)
    t = load_transcript(src)
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        lock_path_for(src).write_text(json.dumps({"pid": sleeper.pid, "createdAt": "x"}))
        before = _listing(tmp_path)
        with pytest.raises(LockHeldError, match=str(sleeper.pid)) as info:
            write_compaction(t, _record(ids))
        assert src.name in str(info.value)
        assert _listing(tmp_path) == before
    finally:
        sleeper.kill()
        sleeper.wait()


def test_stale_lock_is_taken_over_and_removed(tmp_path: Path) -> None:
    src, ids = rich_session(tmp_path)
    t = load_transcript(src)
    lock_path_for(src).write_text(json.dumps({"pid": _dead_pid(), "createdAt": "x"}))
    res = write_compaction(t, _record(ids))
    assert res.successor_path is not None and res.successor_path.is_file()
    assert not lock_path_for(src).exists()


def test_pidless_lock_is_held_while_young(tmp_path: Path) -> None:
    src, _ = rich_session(tmp_path)
    lock = lock_path_for(src)
    lock.write_text("")
    with pytest.raises(LockHeldError, match="no pid"):
        check_lock(src)
    old = time.time() - 2 * 3600
    os.utime(lock, (old, old))
    info = check_lock(src)
    assert info is not None and not info.held


def test_hold_lock_writes_our_pid_and_cleans_up(tmp_path: Path) -> None:
    src, _ = rich_session(tmp_path)
    with hold_lock(src) as lock:
        assert json.loads(lock.read_text())["pid"] == os.getpid()
        with pytest.raises(LockHeldError):
            check_lock(src)  # our own live pid counts as held for everyone else
    assert not lock.exists()


# --------------------------------------------------------------------------- change checks

def test_grown_file_is_detected_and_nothing_written(tmp_path: Path) -> None:
    src, ids = rich_session(tmp_path)
    t = load_transcript(src)
    with open(src, "ab") as fh:
        fh.write(b'{"type":"custom","id":"zzzzzzzz","parentId":null,"timestamp":"x"}\n')
    before = _listing(tmp_path)
    with pytest.raises(FileChangedError, match="size changed"):
        write_compaction(t, _record(ids))
    assert _listing(tmp_path) == before


def test_same_size_rewrite_with_old_mtime_is_detected(tmp_path: Path) -> None:
    src, ids = rich_session(tmp_path)
    t = load_transcript(src)
    st = src.stat()
    data = src.read_bytes()
    swapped = data.replace(ids["u3"].encode(), b"b0000099", 1)  # same length, other id
    assert len(swapped) == len(data) and swapped != data
    src.write_bytes(swapped)
    os.utime(src, ns=(st.st_atime_ns, st.st_mtime_ns))
    with pytest.raises(FileChangedError):
        ensure_unchanged(t)
    with pytest.raises(FileChangedError, match="SHA-256"):
        ensure_unchanged(t, sha256="0" * 64)


def test_unchanged_file_passes(tmp_path: Path) -> None:
    src, _ = rich_session(tmp_path)
    ensure_unchanged(load_transcript(src))


# --------------------------------------------------------------------------- all or nothing

def test_failure_mid_run_leaves_no_new_files(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    src, ids = rich_session(tmp_path)
    store = tmp_path / "sessions.json"
    store.write_text(json.dumps({"agent:main:main": {"sessionId": SESSION_ID}}, indent=2))
    t = load_transcript(src)
    before = _listing(tmp_path)

    def explode(*args: object, **kwargs: object) -> None:
        raise RuntimeError("injected failure while updating the store")

    monkeypatch.setattr("sessionlens.engine.persist.writer.update_store", explode)
    with pytest.raises(RuntimeError, match="injected"):
        write_compaction(t, _record(ids))
    assert _listing(tmp_path) == before


@pytest.mark.parametrize("mode", ["successor", "append"])
def test_failure_after_main_write_is_undone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            mode: str) -> None:
    src, ids = rich_session(tmp_path)
    (tmp_path / "sessions.json").write_text(
        json.dumps({"k": {"sessionId": SESSION_ID, "compactionCount": 1}}, indent=2))
    t = load_transcript(src)
    before = _listing(tmp_path)

    def after_check(*args: object, **kwargs: object) -> object:
        new_files = set(p.name for p in tmp_path.iterdir()) - set(before)
        assert any(".checkpoint." in n for n in new_files)  # the run got this far
        raise OSError("disk full")

    monkeypatch.setattr("sessionlens.engine.persist.writer.update_store", after_check)
    with pytest.raises(OSError, match="disk full"):
        write_compaction(t, _record(ids), mode)  # type: ignore[arg-type]
    assert _listing(tmp_path) == before


def test_full_write_reports_every_file(tmp_path: Path) -> None:
    src, ids = rich_session(tmp_path)
    store = tmp_path / "sessions.json"
    store.write_text(json.dumps({"agent:main:main": {"sessionId": SESSION_ID}}, indent=2))
    t = load_transcript(src)
    res = write_compaction(t, _record(ids))
    assert res.successor_path is not None and res.checkpoint_path is not None
    assert res.written == (res.checkpoint_path, res.successor_path, store)
    assert res.store_path == store
    assert all(p.is_file() for p in res.written)
    assert not lock_path_for(src).exists()


def test_unknown_mode_is_refused(tmp_path: Path) -> None:
    src, ids = rich_session(tmp_path)
    with pytest.raises(PersistError, match="mode"):
        write_compaction(load_transcript(src), _record(ids), "sideways")  # type: ignore[arg-type]


def test_refusal_in_preparation_writes_nothing(tmp_path: Path) -> None:
    src, ids = rich_session(tmp_path)
    before = _listing(tmp_path)
    bad = CompactionRecord("s", "not-an-entry", 1)
    with pytest.raises(PersistError, match="not on the active branch"):
        write_compaction(load_transcript(src), bad)
    assert _listing(tmp_path) == before


def test_append_race_keeps_the_other_writers_line(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Someone ignoring the lock appends between our read and our rename: we back off."""
    src, ids = rich_session(tmp_path)
    t = load_transcript(src)
    real_write_checkpoint = persist_mod.write_checkpoint
    foreign = b'{"type":"custom","id":"f0000001","parentId":null,"timestamp":"x"}\n'

    def checkpoint_then_race(*args: object, **kwargs: object) -> object:
        result = real_write_checkpoint(*args, **kwargs)  # type: ignore[arg-type]
        with open(src, "ab") as fh:
            fh.write(foreign)
        return result

    monkeypatch.setattr("sessionlens.engine.persist.writer.write_checkpoint", checkpoint_then_race)
    with pytest.raises(FileChangedError):
        write_compaction(t, _record(ids), "append")
    assert src.read_bytes().endswith(foreign)
    assert not [p for p in tmp_path.iterdir() if ".checkpoint." in p.name]


def test_atomic_copy_streams_an_exact_copy(tmp_path: Path) -> None:
    src = tmp_path / "big.jsonl"
    payload = os.urandom(3 << 20)  # bigger than one copy chunk
    src.write_bytes(payload)
    dst = atomic_copy(src, tmp_path / "copy.jsonl")
    assert dst.read_bytes() == payload
    with pytest.raises(PersistError, match="already exists"):
        atomic_copy(src, dst)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.jsonl", "copy.jsonl"]


def test_leftover_temp_names_are_not_transcripts(tmp_path: Path) -> None:
    from sessionlens.engine._io.atomic import TEMP_SUFFIX, is_temp_name
    from sessionlens.engine.sessions.discovery import classify_session_file

    name = f".abc.jsonl.0a1b2c3d4e5f{TEMP_SUFFIX}"
    assert is_temp_name(name) and classify_session_file(name) != "primary"
    assert not is_temp_name("abc.jsonl")


@pytest.mark.parametrize("mode", ["append", "successor"])
def test_written_paths_are_absolute_for_a_relative_transcript(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str) -> None:
    """QA: ``compact s.jsonl --write append --json`` listed the checkpoint absolutely but the
    transcript as plain ``s.jsonl``."""
    rich_session(tmp_path, "s.jsonl")
    monkeypatch.chdir(tmp_path)
    res = write_compaction(load_transcript(Path("s.jsonl")), CompactionRecord("sum", None, 10),
                           mode, store_path=None)  # type: ignore[arg-type]
    assert res.written and all(p.is_absolute() and p.is_file() for p in res.written)
    if mode == "append":
        assert res.written[-1] == tmp_path / "s.jsonl"
