"""Two writers of one transcript at once: exactly one wins, the other is told why.

Both processes load the transcript first (as two ``compact`` runs do before summarizing),
then write together. A successor leaves the original untouched, so the loser must see the
winner's work some other way (the checkpoint of the very bytes it loaded, made after its
load) instead of writing a second successor that the store would silently not follow.
"""

from __future__ import annotations

import gc
import json
import os
import random
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from fixtures.factories import TranscriptBuilder
from fixtures.scenarios import STORE_KEY, store_session
from fixtures.written import SUCCESSOR_NAME
from sessionlens.engine.errors import FileChangedError, LockHeldError
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.persist.writer import write_compaction

needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
EXIT = {"won": 0, "lock": 10, "changed": 11}


def _writer(transcript: object, rec: object, mode: str, gate: int, delay: float) -> int:
    pid = os.fork()
    if pid == 0:
        code = 3
        try:
            os.read(gate, 1)  # both start when the parent opens the gate
            time.sleep(delay)
            write_compaction(transcript, rec, mode)  # type: ignore[arg-type]
            code = EXIT["won"]
        except LockHeldError:
            code = EXIT["lock"]
        except FileChangedError:
            code = EXIT["changed"]
        except BaseException:  # noqa: BLE001 - reported through the exit code
            import traceback
            traceback.print_exc()
        os._exit(code)
    return pid


def _trials(tmp_path: Path, mode: str, trials: int) -> Counter[str]:
    src, store, rec = store_session(tmp_path)
    orig_src, orig_store = src.read_bytes(), store.read_bytes()
    mtime = os.stat(src).st_mtime_ns
    rng = random.Random(1616 + trials)
    outcomes: Counter[str] = Counter()
    gc.freeze()
    try:
        for _ in range(trials):
            transcript = load_transcript(src)  # both runs loaded this state
            r, w = os.pipe()
            # at once, a hair apart, or one well after the other has written
            delays = (0.0, rng.choice((0.0, rng.uniform(0, 0.004), rng.uniform(0.1, 0.3))))
            pids = [_writer(transcript, rec, mode, r, d) for d in delays]
            os.write(w, b"go")
            codes = sorted(os.WEXITSTATUS(os.waitpid(pid, 0)[1]) for pid in pids)
            os.close(r)
            os.close(w)
            assert codes[0] == EXIT["won"] and codes[1] in (EXIT["lock"], EXIT["changed"]), codes
            outcomes["lock" if codes[1] == EXIT["lock"] else "changed"] += 1
            _check_one_compaction(tmp_path, src, store, orig_src, orig_store, mode)
            for p in tmp_path.iterdir():
                if p not in (src, store):
                    p.unlink()
            store.write_bytes(orig_store)
            if src.read_bytes() != orig_src:
                src.write_bytes(orig_src)
                os.utime(src, ns=(mtime, mtime))
    finally:
        gc.unfreeze()
    return outcomes


def _check_one_compaction(folder: Path, src: Path, store: Path, orig_src: bytes,
                          orig_store: bytes, mode: str) -> None:
    names = sorted(p.name for p in folder.iterdir() if p not in (src, store))
    checkpoints = [n for n in names if ".checkpoint." in n]
    successors = [n for n in names if SUCCESSOR_NAME.match(n)]
    assert len(checkpoints) == 1 and not any(n.endswith(".lock") for n in names), names
    rec = json.loads(store.read_bytes())[STORE_KEY]
    assert rec["compactionCount"] == json.loads(orig_store)[STORE_KEY]["compactionCount"] + 1
    assert len(rec["compactionCheckpoints"]) == 1
    if mode == "successor":
        assert len(successors) == 1 and src.read_bytes() == orig_src
        assert Path(rec["sessionFile"]).name == successors[0]
    else:
        assert successors == [] and src.read_bytes().count(b'"type":"compaction"') == 1


@needs_fork
@pytest.mark.parametrize(("mode", "trials"), [("successor", 50), ("append", 6)])
def test_two_writers_at_once_exactly_one_wins(tmp_path: Path, mode: str, trials: int) -> None:
    outcomes = _trials(tmp_path, mode, trials)
    assert sum(outcomes.values()) == trials
    print(f"\n{mode}: {trials} trials, one winner each; the loser got {dict(outcomes)}")


@needs_fork
@pytest.mark.slow
@pytest.mark.long
@pytest.mark.parametrize("mode", ["successor", "append"])
def test_two_writers_at_once_many_trials(tmp_path: Path, mode: str) -> None:
    outcomes = _trials(tmp_path, mode, 500)
    assert sum(outcomes.values()) == 500
    print(f"\n{mode}: 500 trials, one winner each; the loser got {dict(outcomes)}")


def test_a_file_the_session_moved_on_from_is_not_compacted_again(tmp_path: Path) -> None:
    src, store, rec = store_session(tmp_path)
    first = write_compaction(load_transcript(src), rec, "successor")
    assert len(first.written) == 3 and first.successor_path is not None
    before = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(FileChangedError, match="already compacted") as info:
        write_compaction(load_transcript(src), rec, "successor")  # loaded after the first
    assert first.successor_path.name in str(info.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_a_store_without_a_record_is_said_not_silently_skipped(tmp_path: Path) -> None:
    src, store, rec = store_session(tmp_path)
    store.write_text(json.dumps({"agent:main:other": {"sessionId": "someone-else"}}))
    result = write_compaction(load_transcript(src), rec, "successor")
    assert result.store_path is None and "sessions.json" not in {p.name for p in result.written}
    assert any("holds no record" in n for n in result.notes)


def _cli(path: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "sessionlens.engine.cli", "compact",
                             str(path), "--keep-recent", "20", "--write", "successor"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _cli_trials(tmp_path: Path, trials: int) -> Counter[str]:
    seen: Counter[str] = Counter()
    for n in range(trials):
        folder = tmp_path / f"t{n}"
        folder.mkdir()
        b = TranscriptBuilder(plain_users=True)
        for i in range(12):
            b.user(f"step {i}: change src/mod{i}.py " + "context " * 80)
            b.assistant(f"done with step {i}. " + "detail " * 80, usage=15)
        path = b.write(folder / "session.jsonl")
        (folder / "sessions.json").write_text(json.dumps({STORE_KEY: {
            "sessionId": b.lines[0]["id"], "sessionFile": str(path), "compactionCount": 0}}))
        procs = [_cli(path), _cli(path)]
        results = [(p.wait(timeout=120), p.communicate()[1]) for p in procs]
        codes = sorted(code for code, _ in results)
        assert codes == [0, 1], results
        err = next(e for code, e in results if code == 1)
        assert "compacted" in err or "lock" in err, err
        seen["lock" if "lock" in err else "changed"] += 1
        store = json.loads((folder / "sessions.json").read_text())[STORE_KEY]
        assert store["compactionCount"] == 1 and store["sessionFile"] != str(path)
        assert len([p for p in folder.iterdir() if ".checkpoint." in p.name]) == 1
    return seen


def test_two_compact_commands_at_once(tmp_path: Path) -> None:
    assert sum(_cli_trials(tmp_path, 1).values()) == 1


@pytest.mark.slow
@pytest.mark.long
def test_two_compact_commands_at_once_many_trials(tmp_path: Path) -> None:
    seen = _cli_trials(tmp_path, 50)
    print(f"\ncompact --write successor, two at once: 50 trials, one winner each; {dict(seen)}")
