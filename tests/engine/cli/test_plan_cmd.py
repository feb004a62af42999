"""``sessionlens plan``: JSON keys, readable output, options, errors, and a real subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from fixtures.factories import TranscriptBuilder, usage_row
from sessionlens.engine.cli import main

KEYS = {"should_compact", "context_tokens", "threshold", "first_kept_entry_id", "is_split_turn",
        "turn_start_entry_id", "summarize_entry_ids", "kept_entry_ids", "tokens_before",
        "predicted_tokens_after", "chunks"}


def _write_session(path: Path, turns: int = 6, *, compacted: bool = False) -> list[str]:
    """A v3 transcript: each turn is user -> assistant(read call) -> toolResult -> assistant."""
    b = TranscriptBuilder(session_id="11111111-2222-3333-4444-555555555555", cwd="/work",
                          plain_users=True)
    model = dict(api="a", provider="p", model="m")
    for k in range(turns):
        b.user("x" * 8000)
        call = b.call("read", call_id=f"c{k}", path=f"/src/{k}.py")
        b.assistant("", call, usage=usage_row(1000 * k + 10, output=10), **model)
        b.result(call, "y" * 8000)
        b.assistant("done", usage=usage_row(1000 * k + 510, output=10), **model)
    if compacted:
        b.compaction("s", b.lines[-4]["id"], 5000)
    b.write(path)
    return [row["id"] for row in b.lines[1:]]


def test_json_has_the_design_keys(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "s.jsonl"
    ids = _write_session(f)
    assert main(["plan", str(f), "--json", "--keep-recent", "4500", "--context-window", "50000",
                 "--reserve", "10000", "--reserve-floor", "0", "--rule", "tool-frames"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert KEYS <= out.keys()
    assert out["threshold"] == 40_000 and out["context_tokens"] == 5_510
    assert out["should_compact"] is False
    # each turn is ~4000 tokens: 4500 is reached on the second-to-last turn's tool result,
    # so the cut moves back to the call that produced it
    assert out["first_kept_entry_id"] == ids[-7] and out["is_split_turn"] is True
    assert out["turn_start_entry_id"] == ids[-8]
    assert out["summarize_entry_ids"] == ids[:-8]
    assert out["kept_entry_ids"] == ids[-7:]
    assert [i for c in out["chunks"] for i in c] == out["summarize_entry_ids"]
    # turns 0-3 are summarized; turn 4's read call is kept with its result
    assert out["file_ops"]["read"] == [f"/src/{k}.py" for k in range(4)]


def test_cut_and_hard_boundary_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "s.jsonl"
    ids = _write_session(f)
    assert main(["plan", str(f), "--json", "--cut", ids[10]]) == 0  # a tool result
    out = json.loads(capsys.readouterr().out)
    assert out["first_kept_entry_id"] == ids[9] and "tool result" in out["cut_reason"]
    assert main(["plan", str(f), "--json", "--keep-recent", "0"]) == 0  # a hard boundary
    out = json.loads(capsys.readouterr().out)
    assert out["first_kept_entry_id"] is None and out["kept_entry_ids"] == []
    assert out["summarize_entry_ids"] == ids


def test_human_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "s.jsonl"
    _write_session(f)
    assert main(["plan", str(f), "--keep-recent", "4500"]) == 0
    text = capsys.readouterr().out
    assert "first kept" in text and "split turn" in text and "summarize" in text
    assert not text.lstrip().startswith("{")


def test_already_compacted_is_a_normal_answer(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """Nothing to compact is an answer (stdout, exit 0), not an "error:" on stderr."""
    f = tmp_path / "s.jsonl"
    _write_session(f, compacted=True)
    assert main(["plan", str(f), "--json"]) == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert out["nothing_to_compact"] is True and out["should_compact"] is False
    assert "Already compacted" in out["reason"] and captured.err == ""
    assert main(["plan", str(f)]) == 0
    assert capsys.readouterr().out.startswith("nothing to compact: ")


def test_subprocess_json(tmp_path: Path) -> None:
    f = tmp_path / "s.jsonl"
    ids = _write_session(f, turns=3)
    proc = subprocess.run([sys.executable, "-m", "sessionlens.engine.cli", "plan", str(f),
                           "--json", "--keep-recent", "100", "--rule", "tool-frames"],
                          capture_output=True, text=True, check=False, timeout=60)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    # 100 tokens are reached on the last tool result: its whole frame is kept
    assert out["kept_entry_ids"] == ids[-3:] and KEYS <= out.keys()
