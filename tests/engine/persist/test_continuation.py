"""One continuation per session: a second successor of the same original is refused, one
after the other and two at once, unless the user allows it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from fixtures.scenarios import write_session
from sessionlens.engine.cli import main
from sessionlens.engine.errors import SecondSuccessorError
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.persist.continuation import existing_successors
from sessionlens.engine.persist.record import CompactionRecord
from sessionlens.engine.persist.writer import write_compaction
from sessionlens.engine.sessions.classify import classify_session_file

COMPACT = ["compact", "--keep-recent", "3000", "--write", "successor"]


def _files(folder: Path, kind: str) -> list[Path]:
    return [p for p in folder.iterdir() if classify_session_file(p.name) == kind]


def _record(path: Path) -> CompactionRecord:
    t = load_transcript(path)
    return CompactionRecord(summary="## Goal\nship it", first_kept_entry_id=t.leaf_id,
                            tokens_before=1000)


def test_the_writer_refuses_a_second_successor_naming_the_first(tmp_path: Path) -> None:
    path = write_session(tmp_path / "s")  # no store: only the successor check can refuse
    first = write_compaction(load_transcript(path), _record(path))
    assert first.successor_path is not None
    assert existing_successors(path) == (first.successor_path,)
    before = sorted(p.name for p in path.parent.iterdir())
    with pytest.raises(SecondSuccessorError) as caught:
        write_compaction(load_transcript(path), _record(path))
    assert caught.value.existing == first.successor_path
    assert first.successor_path.name in str(caught.value)
    assert sorted(p.name for p in path.parent.iterdir()) == before  # nothing written
    # asked for explicitly, it is written
    second = write_compaction(load_transcript(path), _record(path), allow_second_successor=True)
    assert second.successor_path is not None and len(existing_successors(path)) == 2
    # the successor itself has no successor yet: compacting it is the way on
    assert existing_successors(first.successor_path) == ()


def test_compact_twice_fails_the_second_time_and_names_the_successor(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_session(tmp_path / "s")
    assert main([COMPACT[0], str(path), *COMPACT[1:]]) == 0
    capsys.readouterr()
    (successor,) = existing_successors(path)
    assert main([COMPACT[0], str(path), *COMPACT[1:]]) == 1
    err = capsys.readouterr().err
    assert f"already compacted into a successor, {successor.name}" in err
    assert "--allow-second-successor" in err
    assert len(_files(path.parent, "checkpoint")) == 1 and existing_successors(path) == (successor,)
    assert main([COMPACT[0], str(path), *COMPACT[1:], "--allow-second-successor"]) == 0
    assert len(existing_successors(path)) == 2 and len(_files(path.parent, "checkpoint")) == 2


def test_two_compactions_at_once_write_one_successor(tmp_path: Path) -> None:
    """12 trials of two ``compact --write successor`` processes started together: the lock
    is taken before the successor check and held until the write is done."""
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    doubles, written = 0, 0
    for trial in range(12):
        path = write_session(tmp_path / f"t{trial}", store=True)
        procs = [subprocess.Popen([sys.executable, "-m", "sessionlens.engine.cli", COMPACT[0],
                                   str(path), *COMPACT[1:]], env=env, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, text=True) for _ in range(2)]
        errs = [p.communicate(timeout=120)[1] for p in procs]
        codes = [p.returncode for p in procs]
        successors = existing_successors(path)
        doubles += len(successors) > 1
        written += len(successors)
        assert sorted(codes) == [0, 1], errs  # one wrote, the other refused or found it locked
        loser = errs[codes.index(1)]
        # refused by the successor check, the store (it follows the winner's successor now),
        # the winner's checkpoint (compacted since load) or the lock the winner held
        assert any(w in loser for w in ("already compacted into a successor",
                                        "was already compacted", "compacted by another run",
                                        ".jsonl.lock")), loser
        assert len(_files(path.parent, "checkpoint")) == 1
    assert (doubles, written) == (0, 12)
