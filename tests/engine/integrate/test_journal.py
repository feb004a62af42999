"""The integrations' journal: one line per compaction, torn lines reported, never fatal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sessionlens.engine.cli import main
from sessionlens.engine.integrate.journal import (
    JournalEntry,
    append_entry,
    entries_for,
    journal_path,
    read_journal,
)


def test_entries_round_trip_in_order(tmp_path: Path) -> None:
    a = JournalEntry("pi", "s1", "threshold", "sessionlens", session_file="/x/a.jsonl",
                     summarizer="offline/extractive", audit_passed=True, pins_kept=("e1",))
    b = JournalEntry("pi", "s1", "overflow", "agent", session_file="/x/b.jsonl",
                     fallback_reason="SessionLens did not answer within 50 s")
    append_entry(tmp_path, a)
    append_entry(tmp_path, b)
    read = read_journal(tmp_path)
    assert [(e.trigger, e.writer, e.pins_kept) for e in read.entries] == [
        ("threshold", "sessionlens", ("e1",)), ("overflow", "agent", ())]
    assert read.entries[0].at.endswith("Z") and read.problems == ()
    assert [e.trigger for e in entries_for(read, ["/x/b.jsonl"])] == ["overflow"]


def test_a_torn_line_is_named_and_skipped(tmp_path: Path) -> None:
    append_entry(tmp_path, JournalEntry("pi", "s", "threshold", "agent"))
    with journal_path(tmp_path).open("a") as f:
        f.write('{"agent": "pi", "sess')
    read = read_journal(tmp_path)
    assert len(read.entries) == 1
    assert read.problems and ":2:" in read.problems[0]


def test_journal_command_lists_entries(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    append_entry(tmp_path / "state", JournalEntry(
        "claude-code", "abc", "auto", "agent", summarizer="claude-code", audit_passed=False,
        failed_checks=("pinned",), fallback_reason=""))
    append_entry(tmp_path / "state", JournalEntry(
        "pi", "def", "threshold", "agent", fallback_reason="SessionLens crashed (exit 1)"))
    assert main(["journal", "--basedir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "audit FAILED (pinned)" in out and "why: SessionLens crashed (exit 1)" in out
    assert main(["journal", "--basedir", str(tmp_path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [e["agent"] for e in data["entries"]] == ["claude-code", "pi"]
