"""``sessionlens audit --all``: the report and the JSON written, progress, the cache reused,
errors; and one run as a real process on a local Dask cluster."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from fixtures.fleet_sessions import write_fleet
from sessionlens.engine.cli import main

pytestmark = pytest.mark.samples


def test_all_writes_the_report_and_the_json_and_reuses_rows(
        tmp_path: Path, samples_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_fleet(tmp_path / "fleet", samples_dir, 5, seed=11)
    args = ["audit", "--all", str(tmp_path / "fleet"), "--workers", "0", "--basedir",
            str(tmp_path / "base"), "--report", str(tmp_path / "out" / "r.html"),
            "--json", str(tmp_path / "out" / "r.json")]
    assert main(args) == 0
    captured = capsys.readouterr()
    assert captured.err.count("compaction(s)") == 5 and "[5/5]" in captured.err
    assert "5 session(s)" in captured.out and f"wrote {tmp_path / 'out' / 'r.html'}" in captured.out
    html = (tmp_path / "out" / "r.html").read_text(encoding="utf-8")
    assert "Fleet memory health" in html and "--compaction" in html
    data = json.loads((tmp_path / "out" / "r.json").read_text(encoding="utf-8"))
    assert data["sessions"] == 5 and (data["audited"], data["reused"]) == (5, 0)
    assert data["compactions"] and data["compactions"][0]["path"].startswith(str(tmp_path))
    # the rerun reuses every row: the cache lives under --basedir's state folder
    assert main(args) == 0
    capsys.readouterr()
    again = json.loads((tmp_path / "out" / "r.json").read_text(encoding="utf-8"))
    assert (again["audited"], again["reused"]) == (0, 5)
    assert again["compactions"] == data["compactions"]
    assert any((tmp_path / "base" / "state").iterdir())


def test_all_json_on_stdout(tmp_path: Path, samples_dir: Path,
                            capsys: pytest.CaptureFixture[str]) -> None:
    write_fleet(tmp_path / "fleet", samples_dir, 2, seed=12)
    assert main(["audit", "--all", str(tmp_path / "fleet"), "--workers", "0", "--no-cache",
                 "--quiet", "--json"]) == 0
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert data["sessions"] == 2 and data["written"] == [] and data["mode"] == "serial"
    assert captured.err == ""


def test_on_needs_a_scheduler(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", "--all", "--on", f"w1={tmp_path}", "--workers", "0"]) == 1
    assert "--scheduler" in capsys.readouterr().err
    assert main(["audit", "--all", "--on", "nonsense", "--workers", "0"]) == 1
    assert "WORKER=ROOT" in capsys.readouterr().err


def test_one_file_is_still_one_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl")]) == 1
    assert "one transcript FILE" in capsys.readouterr().err


@pytest.mark.slow
def test_all_as_a_process_on_a_local_cluster(tmp_path: Path, samples_dir: Path) -> None:
    write_fleet(tmp_path / "fleet", samples_dir, 4, seed=13)
    out = tmp_path / "r.json"
    proc = subprocess.run(
        [sys.executable, "-m", "sessionlens.engine.cli", "audit", "--all", str(tmp_path / "fleet"),
         "--workers", "2", "--basedir", str(tmp_path / "base"), "--json", str(out), "--quiet"],
        capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["mode"] == "local cluster of 2 processes" and data["sessions"] == 4
    assert data["failures"] == []


def test_a_missing_root_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", "--all", str(tmp_path / "nope"), "--workers", "0", "--no-cache"]) == 1
    assert "no such file or folder" in capsys.readouterr().err


def test_json_before_the_file_still_audits_one_file(tmp_path: Path, samples_dir: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    path = write_fleet(tmp_path / "fleet", samples_dir, 1, seed=14)[0]
    assert main(["audit", "--json", str(path)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["compaction_id"] and "memory_health" in data
