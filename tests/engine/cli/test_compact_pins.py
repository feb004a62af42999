"""``compact --pin`` and ``compact --summary-file``: remembered pins, the user's own text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fixtures.written import listing
from sessionlens.engine.cli import main
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.persist.pins import load_pins

from .test_compact_cmd import run_json, session


def test_pin_is_remembered_and_carried_verbatim(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    path = session(tmp_path)
    t = load_transcript(path)
    first = t.entries[0]
    base = tmp_path / "base"
    code, out = run_json(capsys, str(path), "--keep-recent", "20", "--pin", first.id,
                         "--basedir", str(base))
    assert code == 0
    assert out["pinned"] == {"entry_ids": [first.id], "in_summary": [first.id],
                             "kept_after_cut": []}
    assert f"> {first.message.text}" in str(out["summary"])  # type: ignore[union-attr]
    assert {c["name"]: c["passed"] for c in out["audit"]["checks"]}["pinned"]  # type: ignore[index]
    assert load_pins(t, base / "state").entry_ids == (first.id,)
    # remembered: the next run without --pin carries it too
    _, again = run_json(capsys, str(path), "--keep-recent", "20", "--basedir", str(base))
    assert again["pinned"]["in_summary"] == [first.id]  # type: ignore[index]


def test_unknown_pin_is_a_clear_error_naming_it(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    path = session(tmp_path)
    code = main(["compact", str(path), "--pin", "deadbeef", "--basedir", str(tmp_path / "b")])
    assert code == 1 and "deadbeef" in capsys.readouterr().err


def test_summary_file_writes_exactly_that_text_without_a_provider(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = session(tmp_path)
    own = tmp_path / "mine.md"
    text = ("## Goal\n- CSV importer\n\n## Constraints & Preferences\n- never drop rows\n\n"
            "## Progress\n### Done\n- read src/importer.py\n### In Progress\n- header bug\n"
            "### Blocked\n- (none)\n\n## Key Decisions\n- csv module\n\n## Next Steps\n"
            "- rerun pytest\n\n## Critical Context\n- ValueError: bad header at row 17\n")
    own.write_text(text)
    # a provider that would fail if called: the summary file means no call at all
    code, out = run_json(capsys, str(path), "--keep-recent", "20", "--summary-file", str(own),
                         "--provider", "openai", "--base-url", "http://127.0.0.1:9/v1",
                         "--write", "successor", "--accept-failed-audit",
                         "--basedir", str(tmp_path / "b"))
    assert code == 0, out
    assert out["summary_source"] == "file" and out["provenance"] == {"origin": "user"}
    assert out["summary"] == text
    successor = next(Path(p) for p in out["written"] if Path(p).name.endswith(".jsonl")  # type: ignore[union-attr]
                     and ".checkpoint." not in Path(p).name and Path(p) != path)
    last = json.loads(successor.read_text().splitlines()[-1])
    assert last["summary"] == text
    assert last["details"]["summaryProvenance"] == {"origin": "user"}


def test_summary_file_failing_its_audit_is_refused(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    path = session(tmp_path)
    own = tmp_path / "mine.md"
    own.write_text("too short")
    before = listing(tmp_path)
    code, out = run_json(capsys, str(path), "--keep-recent", "20", "--summary-file", str(own),
                         "--write", "successor", "--basedir", str(tmp_path / "b"))
    assert code == 3 and out["written"] == [] and out["refused"]
    assert listing(tmp_path) == before
