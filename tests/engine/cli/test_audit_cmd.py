"""``sessionlens audit``: JSON keys, readable output, errors, and a real subprocess run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from fixtures.factories import TranscriptBuilder, structured_summary
from fixtures.samples import sample_path
from fixtures.scenarios import basic_session
from sessionlens.engine.cli import main


def test_audit_json_keys_and_values(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, ids = basic_session(tmp_path)
    assert main(["audit", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["compaction_id"] == ids["compaction"]
    assert data["passed"] is False  # the summary lacks the span's identifiers
    assert [c["name"] for c in data["checks"]] == ["content", "sections", "identifiers",
                                                   "errors", "latest_ask", "budget"]
    assert set(data["identifiers"]) == {"found", "missing"}
    assert "/srv/app/parser.py" in data["identifiers"]["missing"]
    dropped = {d["value"]: d for d in data["dropped"]}
    assert dropped["pytest -q tests/test_parser.py"]["class"] == "command"
    assert dropped["pytest -q tests/test_parser.py"]["entry_ids"] == [ids["call"]]


def test_audit_policy_off_passes_identifiers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    summary = structured_summary("fix the crash in the parser when loading big files")
    path, _ = basic_session(tmp_path, summary=summary)
    assert main(["audit", str(path), "--json", "--policy", "off"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["passed"] is True
    assert data["identifiers"]["missing"]  # reported even though not enforced


def test_audit_picks_compaction_and_prints_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    b = TranscriptBuilder()
    b.user("first: look at /srv/one/a.py")
    first = b.compaction("Summary unavailable due to context limits.", None, from_hook=True).id
    kept = b.user("second").id
    b.compaction(structured_summary(), kept)
    path = b.write(tmp_path / "two.jsonl")
    assert main(["audit", str(path), "--compaction", first]) == 0
    out = capsys.readouterr().out
    assert f"compaction {first}:\n  OpenClaw's rule: would refuse" in out
    assert "SessionLens: TOTAL LOSS" in out and "SessionLens checks: FAILED content" in out
    assert "fallback_summary" in out and "missing_section:## Decisions" in out
    assert "/compact Focus on" in out and "/srv/one/a.py" in out


def test_nothing_to_audit_is_an_answer_not_an_error(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    b = TranscriptBuilder()
    b.user("hello", id="e0000001")
    b.assistant("hi")
    path = b.write(tmp_path / "plain.jsonl")
    assert main(["audit", str(path)]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("nothing to audit:") and "no compaction" in captured.out
    assert "error" not in captured.out + captured.err
    assert main(["audit", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["nothing_to_audit"] is True
    assert main(["audit", str(path), "--cut", "e0000001"]) == 1
    assert "--cut needs --summary-file" in capsys.readouterr().err


def test_audit_a_summary_file_against_a_compaction_or_a_cut(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, ids = basic_session(tmp_path)
    text = tmp_path / "mine.md"
    text.write_text(structured_summary("fix the crash in /srv/app/parser.py when loading big "
                                       "files; FAILED tests/test_parser.py::test_big with "
                                       "MemoryError: parser ran out of memory at 2048 MB"),
                    encoding="utf-8")
    assert main(["audit", str(path), "--summary-file", str(text), "--compaction",
                 ids["compaction"], "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["compaction_id"] == ids["compaction"] and data["summary_file"] == str(text)
    recorded = {d["value"] for d in data["dropped"]}
    assert "/srv/app/parser.py" not in recorded  # the hand-written text keeps it
    errors = next(c for c in data["checks"] if c["name"] == "errors")
    assert errors["passed"], errors
    # the same text against a cut in a file without a compaction
    b = TranscriptBuilder()
    b.user("Please fix the crash in /srv/app/parser.py when loading big files")
    b.assistant("On it: see https://docs.example.org/parser")
    cut = b.user("thanks, keep going").id
    b.assistant("Continuing.")
    plain = b.write(tmp_path / "plain.jsonl")
    assert main(["audit", str(plain), "--summary-file", str(text), "--cut", cut]) == 0
    out = capsys.readouterr().out
    assert f"against the cut at {cut}" in out
    assert "URLs: https://docs.example.org/parser" in out  # named as dropped


def test_audit_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    full, _ = basic_session(tmp_path)
    assert main(["audit", str(full), "--compaction", "nope"]) == 1
    assert "no compaction with id 'nope'" in capsys.readouterr().err


def test_audit_subprocess(tmp_path: Path) -> None:
    path, ids = basic_session(tmp_path)
    proc = subprocess.run([sys.executable, "-m", "sessionlens.engine.cli", "audit", str(path), "--json"],
                          capture_output=True, text=True, check=False, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["compaction_id"] == ids["compaction"]


@pytest.mark.samples
def test_audit_sample03_default_is_last_compaction(samples_dir: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    path = sample_path(samples_dir, "03_")
    last = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()
            if '"compaction"' in x and json.loads(x).get("type") == "compaction"][-1]
    assert main(["audit", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["compaction_id"] == last["id"]
    assert data["passed"] is False and "fallback_summary" in data["reasons"]
