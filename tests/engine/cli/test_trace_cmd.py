"""``sessionlens trace FILE TEXT``: the JSON shape, the readable answer, a file alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fixtures.chains import make_chain
from sessionlens.engine.cli import main


def test_trace_json_and_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = make_chain(tmp_path, depth=4)
    assert main(["trace", str(files.transcripts[0]), "/src/app/mod1.py", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [(c["number"], c["kept"]) for c in data["compactions"]] == [
        (1, True), (2, True), (3, False), (4, False)]
    assert data["lost_at"] == data["compactions"][2]["id"]
    assert data["first_seen"]["path"] == str(files.transcripts[1])
    assert main(["trace", str(files.transcripts[-1]), "/src/app/mod1.py"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].endswith("never mentioned again.")
    assert "lost at compaction 3 (2026-03-01 12:00)" in out
    assert "<- lost here" in out and "mentions (2):" in out


def test_trace_one_file_alone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = make_chain(tmp_path, depth=2)
    assert main(["trace", str(files.transcripts[0]), "/src/app/mod0.py", "--no-chain",
                 "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["files"] == [str(files.transcripts[0])]
    assert data["compactions"] == [] and data["lost_at"] is None
    assert len(data["mentions"]) == 3
