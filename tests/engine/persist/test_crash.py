"""Kill the writer with SIGKILL at random moments: nothing the user owns may be damaged.

The test process loads a transcript once, then forks a child per run that calls
``write_compaction`` and kills it after a random 0-30 ms. After each run the original
transcript must be byte-identical (successor mode) or byte-identical plus exactly one
complete compaction line (append mode); the store must be the old bytes or a complete new
version that points at a complete successor; every checkpoint must be an exact copy; every
successor must load and end with its compaction. Leftover temp files are allowed (they are
named so no scanner takes them for transcripts) and swept between runs.
"""

from __future__ import annotations

import gc
import json
import os
import random
import signal
import time
from collections import Counter
from pathlib import Path

import pytest

from fixtures.scenarios import STORE_KEY as KEY
from fixtures.scenarios import store_session
from fixtures.written import SUCCESSOR_NAME, assert_strict_v3
from sessionlens.engine._io.atomic import is_temp_name
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.persist.record import CompactionRecord
from sessionlens.engine.persist.recovery import JOURNAL_SUFFIX
from sessionlens.engine.persist.writer import write_compaction

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")]

def _run_child(transcript: object, rec: CompactionRecord, mode: str) -> int:
    pid = os.fork()
    if pid == 0:  # the writer: do the work and leave without running any test machinery
        code = 0
        try:
            write_compaction(transcript, rec, mode)  # type: ignore[arg-type]
        except BaseException:  # noqa: BLE001 - reported through the exit code and stderr
            import traceback
            traceback.print_exc()
            code = 3
        os._exit(code)
    return pid


def _check_successor(path: Path) -> None:
    entries = assert_strict_v3(path)
    assert entries[-1]["type"] == "compaction"
    assert load_transcript(path).leaf_id == entries[-1]["id"]


def _check_run(folder: Path, src: Path, store: Path, orig_src: bytes, orig_store: bytes,
               mode: str) -> str:
    successors: list[Path] = []
    checkpoints = 0
    for p in folder.iterdir():
        if (p in (src, store) or p.name.endswith((".lock", JOURNAL_SUFFIX))
                or is_temp_name(p.name)):
            continue
        if ".checkpoint." in p.name:
            assert p.read_bytes() == orig_src, f"partial checkpoint {p.name}"
            checkpoints += 1
        elif SUCCESSOR_NAME.match(p.name):
            _check_successor(p)
            successors.append(p)
        else:
            raise AssertionError(f"unexpected file {p.name}")
    now_src = src.read_bytes()
    appended = now_src != orig_src
    if mode == "successor" or not appended:
        assert now_src == orig_src, "the original transcript changed"
    else:
        assert now_src.startswith(orig_src) and now_src.count(b"\n") == orig_src.count(b"\n") + 1
        last = json.loads(now_src.split(b"\n")[-2])
        assert last["type"] == "compaction"
        assert load_transcript(src).leaf_id == last["id"]
    now_store = store.read_bytes()
    if now_store == orig_store:
        stage = "successor" if successors or appended else ("checkpoint" if checkpoints
                                                             else "nothing")
        return stage
    new, old = json.loads(now_store), json.loads(orig_store)
    assert new["agent:main:other"] == old["agent:main:other"]
    rec = new[KEY]
    assert rec["compactionCount"] == old[KEY]["compactionCount"] + 1
    (cp,) = rec["compactionCheckpoints"]
    assert Path(cp["preCompaction"]["sessionFile"]).read_bytes() == orig_src
    post = Path(cp["postCompaction"]["sessionFile"])
    if mode == "successor":
        assert post in successors and rec["sessionFile"] == str(post)
    else:
        assert post == src and appended
    return "complete"


def _reset(folder: Path, src: Path, store: Path, orig_src: bytes, orig_store: bytes) -> None:
    for p in folder.iterdir():
        if p not in (src, store) and not p.name.endswith(".lock"):
            p.unlink()  # stale .lock files stay: the next run must take them over
    if store.read_bytes() != orig_store:
        store.write_bytes(orig_store)
    if src.read_bytes() != orig_src:
        st = os.stat(src)
        src.write_bytes(orig_src)
        os.utime(src, ns=(st.st_atime_ns, ORIG_MTIME[src]))


ORIG_MTIME: dict[Path, int] = {}


def _check_after_load(folder: Path, src: Path, store: Path, orig_src: bytes,
                      orig_store: bytes, mode: str) -> str:
    """The next load finishes or undoes a killed write: file and store agree again, and
    nothing of ours is left behind (temp files, locks, the journal)."""
    t = load_transcript(src)
    names = sorted(p.name for p in folder.iterdir())
    assert not [n for n in names if is_temp_name(n) or n.endswith((".lock", JOURNAL_SUFFIX))]
    checkpoints = [n for n in names if ".checkpoint." in n]
    successors = [n for n in names if SUCCESSOR_NAME.match(n)]
    rec, before = json.loads(store.read_bytes())[KEY], json.loads(orig_store)[KEY]
    if mode == "append":
        done = [e.id for e in t.entries if e.type == "compaction"]
        assert rec["compactionCount"] == before["compactionCount"] + len(done), "disagree"
        posts = [c["postCompaction"]["entryId"] for c in rec.get("compactionCheckpoints", [])]
        assert posts == done and len(checkpoints) == len(done)
    else:
        assert src.read_bytes() == orig_src and len(successors) <= 1
        if successors:
            assert rec["sessionFile"] == str(folder / successors[0])
            assert rec["compactionCount"] == before["compactionCount"] + 1
        else:
            assert store.read_bytes() == orig_store
        assert len(checkpoints) == len(successors)
    said = " ".join(d.reason for d in t.diagnostics)
    return ("store brought up to date" if "brought up to date" in said else
            "rolled back" if "rolled back" in said else "nothing to repair")


def _kill_trials(tmp_path: Path, mode: str, runs: int, away: Path | None = None) -> None:
    """``away``: the writer names the transcript relative to its folder (its working
    folder), and every load after a kill runs from ``away``, another folder."""
    src, store, rec = store_session(tmp_path)
    orig_src, orig_store = src.read_bytes(), store.read_bytes()
    home = os.getcwd()
    if away is not None:
        os.chdir(tmp_path)
    transcript = load_transcript(Path(src.name) if away is not None else src)
    ORIG_MTIME[src] = transcript.file_mtime_ns
    rng = random.Random(20260201 + runs)
    stages: Counter[str] = Counter()
    exits: Counter[str] = Counter()
    loads: Counter[str] = Counter()
    gc.freeze()  # fewer copy-on-write faults in the forked writers
    try:
        # Calibrate the kill window on one undisturbed run (0-30 ms, or longer if the
        # machine needs it) so kills land all through the write, not only at its start.
        took = []
        for _ in range(3):
            t0 = time.perf_counter()
            _, status = os.waitpid(_run_child(transcript, rec, mode), 0)
            took.append(time.perf_counter() - t0)
            assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
            assert _check_run(tmp_path, src, store, orig_src, orig_store, mode) == "complete"
            _reset(tmp_path, src, store, orig_src, orig_store)
        window = max(0.030, 1.2 * min(took))
        _kill_loop(transcript, rec, mode, runs, window, rng, (stages, exits, loads),
                   (tmp_path, src, store, orig_src, orig_store), away)
    finally:
        gc.unfreeze()
        os.chdir(home)
    assert sum(stages.values()) == sum(loads.values()) == runs
    print(f"\n{mode}: {runs} runs, kill window {window * 1000:.0f} ms; exits {dict(exits)}; "
          f"state after the kill {dict(stages)}; the next load: {dict(loads)}; file and "
          f"store agreed after it in {runs} of {runs}")


@pytest.mark.parametrize(("mode", "runs"), [("successor", 40), ("append", 60)])
def test_sigkill_never_damages_anything(tmp_path: Path, mode: str, runs: int) -> None:
    _kill_trials(tmp_path, mode, runs)


@pytest.mark.long
@pytest.mark.parametrize("mode", ["successor", "append"])
def test_sigkill_many_trials(tmp_path: Path, mode: str) -> None:
    _kill_trials(tmp_path, mode, 300)


def test_a_killed_append_loaded_from_another_folder_is_not_rolled_back(tmp_path: Path) -> None:
    """Issue 39 item 14: the writer named the transcript relatively; the load after the
    kill runs from another folder and must still find the landed append (file, store and
    checkpoints agree: 4 + 18 of 300 did not before)."""
    (tmp_path / "s").mkdir()
    (tmp_path / "away").mkdir()
    _kill_trials(tmp_path / "s", "append", 60, away=tmp_path / "away")


@pytest.mark.parametrize("when", ["before", "after"])
def test_an_append_killed_around_its_store_update_is_finished_from_another_folder(
        tmp_path: Path, when: str) -> None:
    """The two kill moments of item 14, made certain: the append has landed and the writer
    dies just before (or just after) it updates ``sessions.json``, its journal still there.
    The next load, from another working folder, must roll forward, never back."""
    folder, away = tmp_path / "s", tmp_path / "away"
    folder.mkdir()
    away.mkdir()
    src, store, rec = store_session(folder)
    orig_src, orig_store = src.read_bytes(), store.read_bytes()
    home = os.getcwd()
    os.chdir(folder)
    try:
        transcript = load_transcript(Path(src.name))
        pid = os.fork()
        if pid == 0:
            from sessionlens.engine.persist import writer

            real = writer.update_store

            def dying(*args: object, **kwargs: object) -> object:
                if when == "after":
                    real(*args, **kwargs)  # type: ignore[arg-type]
                os._exit(9)  # a kill: no handler runs

            writer.update_store = dying  # type: ignore[assignment]
            try:
                write_compaction(transcript, rec, "append")
            finally:
                os._exit(3)
        _, status = os.waitpid(pid, 0)
        assert os.WEXITSTATUS(status) == 9
        assert any(p.name.endswith(JOURNAL_SUFFIX) for p in folder.iterdir())
        os.chdir(away)
        said = _check_after_load(folder, src, store, orig_src, orig_store, "append")
    finally:
        os.chdir(home)
    assert said == ("store brought up to date" if when == "before" else "nothing to repair")
    assert src.read_bytes() != orig_src  # the landed compaction stays


@pytest.mark.long
def test_killed_appends_loaded_from_another_folder_many_trials(tmp_path: Path) -> None:
    (tmp_path / "s").mkdir()
    (tmp_path / "away").mkdir()
    _kill_trials(tmp_path / "s", "append", 300, away=tmp_path / "away")


def _kill_loop(transcript: object, rec: CompactionRecord, mode: str, runs: int,
               window: float, rng: random.Random,
               counters: tuple[Counter[str], Counter[str], Counter[str]],
               files: tuple[Path, Path, Path, bytes, bytes], away: Path | None) -> None:
    stages, exits, loads = counters
    for _ in range(runs):
        if away is not None:
            os.chdir(files[0])  # the writer's working folder: its transcript path is relative
        pid = _run_child(transcript, rec, mode)
        time.sleep(rng.uniform(0.0, window))
        os.kill(pid, signal.SIGKILL)  # a child that already finished is a zombie: harmless
        _, status = os.waitpid(pid, 0)
        if os.WIFSIGNALED(status):
            exits["killed"] += 1
        else:
            assert os.WEXITSTATUS(status) == 0, "the writer failed on its own"
            exits["finished"] += 1
        stages[_check_run(*files, mode)] += 1
        if away is not None:
            os.chdir(away)
        loads[_check_after_load(*files, mode)] += 1
        _reset(*files)
