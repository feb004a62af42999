"""The Memory tab lists the integrations' journal entries of the opened file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fixtures.qt_app import SETTLE_MS, open_and_settle
from fixtures.scenarios import memory_session
from sessionlens.engine.integrate.journal import JournalEntry, append_entry


def test_journal_entries_of_the_file_show_beside_the_compactions(
        qtbot: Any, make_main_window: Any, tmp_path: Path) -> None:
    path, _ids = memory_session(tmp_path)
    state = tmp_path / "basedir" / "state"
    append_entry(state, JournalEntry(
        "pi", "s", "threshold", "sessionlens", session_file=str(path),
        summarizer="offline/extractive", audit_passed=True, pins_kept=("e1",)))
    append_entry(state, JournalEntry(
        "pi", "s", "overflow", "agent", session_file=str(path),
        fallback_reason="SessionLens did not answer within 50 s: pi wrote its own summary"))
    append_entry(state, JournalEntry("pi", "t", "threshold", "agent",
                                     session_file=str(tmp_path / "other.jsonl")))
    ctx = make_main_window()
    with qtbot.waitSignal(ctx.memory.controller.health_ready, timeout=SETTLE_MS):
        open_and_settle(qtbot, ctx, path)
    view = ctx.memory.panel.journal
    assert [e.trigger for e in view.entries] == ["threshold", "overflow"]
    assert not view.isHidden()
    text = view.text()
    assert "SessionLens (offline/extractive)" in text and "pins kept 1" in text
    assert "why: SessionLens did not answer within 50 s" in text
