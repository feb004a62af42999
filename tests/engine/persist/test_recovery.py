"""A write killed at its worst moment, and the next load putting file and store in step;
leftovers of dead runs swept, only ours, only dead."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from fixtures.scenarios import STORE_KEY, store_session
from sessionlens.engine._io.atomic import TEMP_SUFFIX, temp_owner_pid
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.persist import writer
from sessionlens.engine.persist.recovery import JOURNAL_SUFFIX, sweep_stale_files

needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")


def _dead_pid() -> int:
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    return pid


def _killed_before_the_store(src: Path, rec: object, mode: str) -> None:
    """Run the write in a child that dies the moment the store update begins."""
    transcript = load_transcript(src)
    pid = os.fork()
    if pid == 0:
        writer.update_store = lambda *_a, **_k: os._exit(9)  # type: ignore[assignment]
        writer.write_compaction(transcript, rec, mode)  # type: ignore[arg-type]
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    assert os.WEXITSTATUS(status) == 9


@needs_fork
@pytest.mark.parametrize("mode", ["append", "successor"])
def test_a_write_killed_before_the_store_is_finished_by_the_next_load(
        tmp_path: Path, mode: str) -> None:
    src, store, rec = store_session(tmp_path)
    orig_store = store.read_bytes()
    _killed_before_the_store(src, rec, mode)
    assert store.read_bytes() == orig_store  # the file moved on, the store did not
    assert (tmp_path / f".{src.name}{JOURNAL_SUFFIX}").exists()
    t = load_transcript(src)
    (note,) = [d for d in t.diagnostics if "interrupted compaction" in d.reason]
    assert "brought up to date" in note.reason and note.severity == "warning"
    record = json.loads(store.read_bytes())[STORE_KEY]
    assert record["compactionCount"] == json.loads(orig_store)[STORE_KEY]["compactionCount"] + 1
    (cp,) = record["compactionCheckpoints"]
    if mode == "append":
        assert cp["postCompaction"]["entryId"] == t.entries[-1].id == t.leaf_id
    else:
        assert Path(record["sessionFile"]) == Path(cp["postCompaction"]["sessionFile"])
        assert Path(record["sessionFile"]).exists()
    assert not [p for p in tmp_path.iterdir() if p.name.endswith((JOURNAL_SUFFIX, ".lock"))]
    again = load_transcript(src)  # nothing left to do
    assert not [d for d in again.diagnostics if "interrupted" in d.reason]


@needs_fork
def test_a_write_killed_before_its_main_file_is_rolled_back(tmp_path: Path) -> None:
    src, store, rec = store_session(tmp_path)
    orig_src, orig_store = src.read_bytes(), store.read_bytes()
    transcript = load_transcript(src)
    pid = os.fork()
    if pid == 0:
        writer.atomic_write_bytes = lambda *_a, **_k: os._exit(9)  # type: ignore[assignment]
        writer.write_compaction(transcript, rec, "append")
        os._exit(0)
    os.waitpid(pid, 0)
    assert [p for p in tmp_path.iterdir() if ".checkpoint." in p.name]
    t = load_transcript(src)
    assert any("rolled back" in d.reason for d in t.diagnostics)
    assert src.read_bytes() == orig_src and store.read_bytes() == orig_store
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([src.name, store.name])


@needs_fork
def test_only_our_leftovers_of_dead_processes_are_swept(tmp_path: Path) -> None:
    dead, alive = _dead_pid(), os.getpid()
    ours_dead = tmp_path / f".s.jsonl.{dead}-abc123{TEMP_SUFFIX}"
    ours_alive = tmp_path / f".s.jsonl.{alive}-abc123{TEMP_SUFFIX}"
    lock_dead = tmp_path / "s.jsonl.lock"
    foreign_lock = tmp_path / "t.jsonl.lock"  # OpenClaw's own: never ours to remove
    someone_else = tmp_path / ".notes.txt.tmp"
    for p in (ours_dead, ours_alive, someone_else):
        p.write_text("x")
    lock_dead.write_text(json.dumps({"pid": dead, "createdAt": "x", "owner": "sessionlens"}))
    foreign_lock.write_text(json.dumps({"pid": dead, "createdAt": "x"}))
    assert temp_owner_pid(ours_dead.name) == dead
    removed = sweep_stale_files(tmp_path)
    assert sorted(removed) == sorted([ours_dead, lock_dead])
    assert ours_alive.exists() and foreign_lock.exists() and someone_else.exists()


@needs_fork
def test_a_journal_of_relative_paths_is_read_against_its_own_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Journals written before paths were stored absolute held the transcript as typed
    (issue 39 item 14): read from another working folder, such a journal names the files
    beside it, so a landed append is finished, not rolled back and its checkpoint deleted."""
    folder, away = tmp_path / "s", tmp_path / "away"
    folder.mkdir()
    away.mkdir()
    src, store, rec = store_session(folder)
    orig_count = json.loads(store.read_bytes())[STORE_KEY]["compactionCount"]
    _killed_before_the_store(src, rec, "append")
    journal = folder / f".{src.name}{JOURNAL_SUFFIX}"
    obj = json.loads(journal.read_bytes())
    assert Path(obj["post"]["path"]).is_absolute()  # journals now hold absolute paths
    obj["post"]["path"] = obj["transcript"] = src.name  # as an old journal held them
    journal.write_text(json.dumps(obj))
    monkeypatch.chdir(away)
    t = load_transcript(src)
    assert any("brought up to date" in d.reason for d in t.diagnostics)
    record = json.loads(store.read_bytes())[STORE_KEY]
    assert record["compactionCount"] == orig_count + 1
    (cp,) = record["compactionCheckpoints"]
    assert Path(cp["preCompaction"]["sessionFile"]).is_file()
    assert cp["postCompaction"]["entryId"] == t.leaf_id
