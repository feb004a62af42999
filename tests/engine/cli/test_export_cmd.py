"""``sessionlens export``: writes md/json/html for a compaction; JSON output names the file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from fixtures.factories import TranscriptBuilder
from fixtures.scenarios import basic_session
from sessionlens.engine.cli import main
from sessionlens.engine.export.summary import export_schema


@pytest.mark.parametrize("fmt", ["md", "json", "html"])
def test_export_each_format(tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    path, ids = basic_session(tmp_path)
    out = tmp_path / f"summary.{fmt}"
    assert main(["export", str(path), "--format", fmt, "-o", str(out), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["written"] == [str(out)]
    text = out.read_text(encoding="utf-8")
    assert ids["compaction"] in text
    if fmt == "json":
        jsonschema.Draft202012Validator(export_schema()).validate(json.loads(text))
    if fmt == "html":
        assert text.startswith("<!DOCTYPE html>") and "Content-Security-Policy" in text


def test_export_specific_compaction_text_output(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    b = TranscriptBuilder()
    b.user("one")
    first = b.compaction("Summary unavailable due to context limits.", None).id
    b.user("two")
    b.compaction("## Goal\nx", None)
    path = b.write(tmp_path / "s.jsonl")
    out = tmp_path / "first.json"
    assert main(["export", str(path), "--format", "json", "-o", str(out), "--compaction", first]) == 0
    assert f"compaction {first}" in capsys.readouterr().out
    assert json.loads(out.read_text())["compaction_id"] == first


def test_export_without_a_compaction_says_so(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    b = TranscriptBuilder()
    b.user("no compaction here")
    path = b.write(tmp_path / "plain.jsonl")
    assert main(["export", str(path), "--format", "md", "-o", str(tmp_path / "x.md")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("nothing to export:") and "--transcript" in out
    assert not (tmp_path / "x.md").exists()
    assert main(["export", str(path), "--format", "md", "-o", str(tmp_path / "x.md"),
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out) | {"reason": ""} == {
        "written": [], "nothing_to_export": True, "reason": ""}
    with pytest.raises(SystemExit):
        main(["export", str(path), "--format", "pdf", "-o", "x"])


@pytest.mark.parametrize("fmt", ["md", "html"])
def test_export_the_transcript_itself(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                      fmt: str) -> None:
    path, ids = basic_session(tmp_path)
    out = tmp_path / f"session.{fmt}"
    assert main(["export", str(path), "--transcript", "--format", fmt, "-o", str(out),
                 "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["written"] == [str(out)] and data["kind"] == "transcript"
    assert data["compactions"] == 1
    text = out.read_text(encoding="utf-8")
    assert ids["compaction"] in text and "MemoryError: parser ran out of memory" in text
    assert "SessionLens checks: FAILED" in text  # the boundary carries its audit
    assert main(["export", str(path), "--transcript", "--format", "json", "-o",
                 str(tmp_path / "t.json")]) == 1
    assert "md or html" in capsys.readouterr().err


def test_export_subprocess(tmp_path: Path) -> None:
    path, _ = basic_session(tmp_path)
    out = tmp_path / "o.html"
    proc = subprocess.run([sys.executable, "-m", "sessionlens.engine.cli", "export", str(path),
                           "--format", "html", "-o", str(out), "--json"],
                          capture_output=True, text=True, check=False, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["written"] == [str(out)] and out.is_file()
