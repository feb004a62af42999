"""A session's last entry time comes from its entries, not from when the file was copied."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from fixtures.agent_lines import CC_SID, asst, jl, user
from fixtures.scenarios import small_session
from sessionlens.engine.sessions.discovery import summarize_session_file
from sessionlens.engine.sessions.last_entry import TAIL_BYTES, last_entry_time


def test_a_copied_pi_file_says_when_its_session_last_moved(tmp_path: Path) -> None:
    path = small_session().write(tmp_path / "s.jsonl")  # written now: mtime is today
    info = summarize_session_file(path)
    assert info is not None and info.last_entry_at is not None
    assert info.last_entry_at.date() == datetime(2026, 2, 1, tzinfo=UTC).date()
    assert info.modified.date() != info.last_entry_at.date()
    assert info.last_activity == info.last_entry_at


def test_claude_code_times_and_a_cut_first_line(tmp_path: Path) -> None:
    path = tmp_path / f"{CC_SID}.jsonl"
    pad = user("u0", None, "x" * (TAIL_BYTES + 10), timestamp="2026-04-07T21:00:00.000Z")
    last = asst("a1", "u1", [{"type": "text", "text": "done"}],
                timestamp="2026-04-08T09:30:00.000Z")
    path.write_bytes(jl(pad, user("u1", "u0", "go"), last))
    assert last_entry_time(path) == datetime(2026, 4, 8, 9, 30, tzinfo=UTC)


def test_no_times_no_answer(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text('{"a": 1}\nnot json\n', encoding="utf-8")
    assert last_entry_time(path) is None
    assert last_entry_time(tmp_path / "missing.jsonl") is None
