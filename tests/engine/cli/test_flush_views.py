"""``inspect`` and ``audit`` report the memory flush: turns, the store, every cycle."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from fixtures.agent_lines import CC_SID, asst, jl, user
from fixtures.factories import TranscriptBuilder
from fixtures.samples import sample_path
from sessionlens.engine.cli import main

PROMPT = ("Pre-compaction memory flush. Store durable memories now (use memory/YYYY-MM-DD.md). "
          "If nothing to store, reply with NO_REPLY.")
FLUSH_KEYS = {"enabled", "turns", "store", "soft_threshold", "soft_threshold_tokens",
              "compaction_threshold", "context_window", "cycles", "pattern"}


#: What the transcript's assistants name (the window source reads the model).
_M = {"api": "x", "provider": "p", "model": "m"}


def _flush_session(folder: Path, *, store: bool = True) -> tuple[Path, dict[str, str]]:
    """Window 50,000 (given on the command line): compaction over 30,000, flush from 26,000.

    Cycle 1 flushes at 27,000 then compacts; cycle 2 (open) is under the soft threshold: the
    first message (~25,000 tokens) is what the compaction summarized."""
    b = TranscriptBuilder(plain_users=True)
    ids = {"u1": b.user("start the migration of the billing tables " * 2_400).id,
           "a1": b.assistant("started", usage=27_000, **_M).id,
           "flush": b.user(PROMPT).id,
           "no_reply": b.assistant("NO_REPLY", usage=27_100, **_M).id,
           "u2": b.user("continue with the invoices table").id}
    ids["a2"] = b.assistant("invoices migrated", usage=31_000, **_M).id
    ids["comp"] = b.compaction("## Goal\nmigrate billing", ids["u2"], 31_000).id
    ids["u3"] = b.user("now the payments table").id
    ids["a3"] = b.assistant("payments next", usage=6_000, **_M).id
    path = b.write(folder / "billing.jsonl")
    if store:
        stamp = next(json.loads(line) for line in path.read_text().splitlines()
                     if ids["no_reply"] in line)["timestamp"]
        at = int(datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp() * 1000) + 25
        (folder / "sessions.json").write_text(json.dumps({"agent:main:main": {
            "sessionId": json.loads(path.read_text().splitlines()[0])["id"],
            "compactionCount": 1, "memoryFlushAt": at, "memoryFlushCompactionCount": 0}}))
    return path, ids


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main([*argv, "--json"]) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


def test_inspect_json_reports_turns_store_and_cycles(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    path, ids = _flush_session(tmp_path)
    mf = _json(capsys, "inspect", str(path), "--context-window", "50000")["memory_flush"]
    assert FLUSH_KEYS <= mf.keys() and mf["turns"] == [ids["flush"]]
    assert (mf["soft_threshold"], mf["compaction_threshold"]) == (26_000, 30_000)
    assert mf["store"]["memoryFlushCompactionCount"] == 0 and mf["store"]["compactionCount"] == 1
    assert mf["store"]["matched_turn"] == ids["flush"] and mf["store"]["lag_ms"] == 25
    assert [(c["compaction_id"], c["status"]) for c in mf["cycles"]] == [
        (ids["comp"], "ran"), (None, "not-due")]
    assert mf["cycles"][0]["flush_turn_ids"] == [ids["flush"]]


def test_without_a_store_the_store_is_null(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    path, _ = _flush_session(tmp_path, store=False)
    mf = _json(capsys, "inspect", str(path))["memory_flush"]
    assert mf["store"] is None and "sessions.json" not in mf["window_source"]
    assert mf["window_source"].startswith("default: m ")  # the model the transcript names


def test_an_explicit_store_wins(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, ids = _flush_session(tmp_path)
    other = tmp_path / "elsewhere.json"
    other.write_text(json.dumps({"k": {"sessionFile": f"/srv/x/{path.name}",
                                       "compactionCount": 9, "contextTokens": 40_000}}))
    mf = _json(capsys, "inspect", str(path), "--store", str(other))["memory_flush"]
    assert mf["store"]["compactionCount"] == 9 and mf["context_window"] == 40_000
    assert mf["window_source"] == "contextTokens of k in sessions.json"


def test_audit_prints_every_cycle_in_text_and_json(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    path, ids = _flush_session(tmp_path)
    mf = _json(capsys, "audit", str(path), "--context-window", "50000")["memory_flush"]
    assert mf["cycles"][0]["status"] == "ran"
    assert main(["audit", str(path), "--context-window", "50000"]) == 0
    text = capsys.readouterr().out
    assert "memory flush  on; runs at ~26,000 tokens" in text
    assert f"cycle 1   {ids['comp']} threshold: ran: flush turn {ids['flush']}" in text
    assert f"flush turn {ids['flush']};" in text  # the store's stamp, matched


def test_inspect_on_real_sample_04_with_store_05(samples_dir: Path, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "sessions.json"  # the store under its real name, beside nothing
    shutil.copyfile(sample_path(samples_dir, "05_"), store)
    out = _json(capsys, "inspect", str(sample_path(samples_dir, "04_")), "--store", str(store))
    mf = out["memory_flush"]
    assert len(mf["turns"]) == 1 and mf["store"]["matched_turn"] == mf["turns"][0]
    assert mf["cycles"][-1]["status"] == "ran"
    assert mf["window_source"] == "contextTokens of agent:main:main in sessions.json"
    assert [c["status"] for c in mf["cycles"][:-1]] == ["missed"] * out["compactions"]
    assert "pruning" in out and out["pruning"]["threshold"] == mf["compaction_threshold"]


def test_a_broken_store_beside_warns_and_a_named_one_fails(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, _ = _flush_session(tmp_path, store=False)
    (tmp_path / "sessions.json").write_text("{not json")
    assert main(["inspect", str(path), "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["memory_flush"]["store"] is None
    assert "session store beside the transcript was not read" in captured.err
    assert main(["inspect", str(path), "--store", str(tmp_path / "sessions.json")]) == 1
    assert "not valid JSON" in capsys.readouterr().err


#: A CLI process as ``run_process`` runs it, made to fork its count worker whatever the
#: file's size and the machine's load; it reports on stderr whether the worker started.
_FORKING_CLI = """
import os
import sys
from sessionlens.engine._io import fork_policy
from sessionlens.engine.cli import run_process
from sessionlens.engine.tokens import count_worker
fork_policy.spare_cores = lambda: 1
count_worker.MIN_FILE_BYTES = 0
made = []
real_init = count_worker.CountWorker.__init__
def init(self, *a, **k):
    real_init(self, *a, **k)
    made.append(self.started)
count_worker.CountWorker.__init__ = init
real_exit = os._exit
parent = os.getpid()
def exit_after_saying(code):
    if os.getpid() == parent:  # not the worker's own exit
        print("worker started:", made, file=sys.stderr)
        sys.stderr.flush()
    real_exit(code)
os._exit = exit_after_saying
run_process(sys.argv[1:])
"""


def _forking_run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", _FORKING_CLI, *argv], capture_output=True,
                          text=True, timeout=120, check=False)


@pytest.mark.skipif(sys.platform != "linux", reason="forks only on Linux")
def test_an_answer_counted_by_the_worker_is_the_one_made_in_process(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A CLI process counts the context in a forked worker while it works out the flush
    report; the answer, and a warning made on the way, are what an in-process run (no
    fork) gives."""
    path, _ = _flush_session(tmp_path)
    here = _json(capsys, "inspect", str(path), "--context-window", "50000")
    proc = _forking_run("inspect", str(path), "--json", "--context-window", "50000",
                        "--basedir", str(tmp_path / "base"))
    assert proc.returncode == 0, proc.stderr
    assert "worker started: [True]" in proc.stderr
    there = json.loads(proc.stdout)
    assert there["memory_flush"] == here["memory_flush"] and there["pruning"] == here["pruning"]
    assert there["tokens"]["exact"] == here["tokens"]["exact"] > 0
    assert there["tokens"]["tokenized_texts"] > 0  # the worker counted them
    (tmp_path / "sessions.json").write_text("{not json")
    proc = _forking_run("inspect", str(path), "--basedir", str(tmp_path / "base"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.count("session store beside the transcript was not read") == 1
    assert "memory flush  on" in proc.stdout


def test_a_claude_code_file_has_no_memory_flush_and_says_so(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Only OpenClaw runs a memory flush: no "on" for another agent's file, in text or JSON."""
    path = tmp_path / f"{CC_SID}.jsonl"
    path.write_bytes(jl(user("u1", None, "fix /w/a.py"), asst("a1", "u1", [{"type": "text",
                                                                           "text": "done"}])))
    assert main(["inspect", str(path)]) == 0
    text = capsys.readouterr().out
    assert ("memory flush  not an OpenClaw session: no memory flush (a claude-code transcript)"
            in text)
    assert "memory flush  on" not in text
    mf = _json(capsys, "inspect", str(path))["memory_flush"]
    assert mf["applies"] is False and mf["headline"].startswith("not an OpenClaw session")
