"""Compaction writes: refused under a live lock or a changed file, all or nothing, every file
reported (the lock and the change checks alone are in test_guard, atomic writes in _io)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import sessionlens.engine.persist.writer as persist_mod
from fixtures.factories import SESSION_ID
from fixtures.scenarios import rich_session
from fixtures.written import listing
from sessionlens.engine.errors import FileChangedError, LockHeldError, PersistError
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.persist.record import CompactionRecord
from sessionlens.engine.persist.writer import (
    lock_path_for,
    write_compaction,
)


def _record(t_ids: dict[str, str]) -> CompactionRecord:
    summarized = tuple(t_ids[n] for n in ("u1", "a1", "tr1", "a2"))
    return CompactionRecord("summary", t_ids["u2"], 100, 10,
                            summarized_entry_ids=summarized, provider="offline")


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
        before = listing(tmp_path)
        with pytest.raises(LockHeldError, match=str(sleeper.pid)) as info:
            write_compaction(t, _record(ids))
        assert src.name in str(info.value)
        assert listing(tmp_path) == before
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


# --------------------------------------------------------------------------- change checks

def test_grown_file_is_detected_and_nothing_written(tmp_path: Path) -> None:
    src, ids = rich_session(tmp_path)
    t = load_transcript(src)
    with open(src, "ab") as fh:
        fh.write(b'{"type":"custom","id":"zzzzzzzz","parentId":null,"timestamp":"x"}\n')
    before = listing(tmp_path)
    with pytest.raises(FileChangedError, match="size changed"):
        write_compaction(t, _record(ids))
    assert listing(tmp_path) == before


# --------------------------------------------------------------------------- all or nothing

def test_failure_mid_run_leaves_no_new_files(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    src, ids = rich_session(tmp_path)
    store = tmp_path / "sessions.json"
    store.write_text(json.dumps({"agent:main:main": {"sessionId": SESSION_ID}}, indent=2))
    t = load_transcript(src)
    before = listing(tmp_path)

    def explode(*args: object, **kwargs: object) -> None:
        raise RuntimeError("injected failure while updating the store")

    monkeypatch.setattr("sessionlens.engine.persist.writer.update_store", explode)
    with pytest.raises(RuntimeError, match="injected"):
        write_compaction(t, _record(ids))
    assert listing(tmp_path) == before


@pytest.mark.parametrize("mode", ["successor", "append"])
def test_failure_after_main_write_is_undone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            mode: str) -> None:
    src, ids = rich_session(tmp_path)
    (tmp_path / "sessions.json").write_text(
        json.dumps({"k": {"sessionId": SESSION_ID, "compactionCount": 1}}, indent=2))
    t = load_transcript(src)
    before = listing(tmp_path)

    def after_check(*args: object, **kwargs: object) -> object:
        new_files = set(p.name for p in tmp_path.iterdir()) - set(before)
        assert any(".checkpoint." in n for n in new_files)  # the run got this far
        raise OSError("disk full")

    monkeypatch.setattr("sessionlens.engine.persist.writer.update_store", after_check)
    with pytest.raises(OSError, match="disk full"):
        write_compaction(t, _record(ids), mode)  # type: ignore[arg-type]
    assert listing(tmp_path) == before


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
    before = listing(tmp_path)
    bad = CompactionRecord("s", "not-an-entry", 1)
    with pytest.raises(PersistError, match="not on the active branch"):
        write_compaction(load_transcript(src), bad)
    assert listing(tmp_path) == before


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
