"""A running app notices what an agent's integration journals: a notification with the
verdict that opens that compaction's audit, and the Memory tab's journal list at once."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from fixtures.qt_app import SETTLE_MS, open_and_settle
from fixtures.scenarios import memory_session
from sessionlens.engine import JournalTail, read_journal_since
from sessionlens.engine.integrate.journal import JournalEntry, append_entry
from sessionlens.gui.live import journal_watch


def test_appended_journal_line_notifies_and_lists_without_reload(
        qtbot: Any, make_main_window: Any, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    threads: list[str] = []

    def reading(state: Path, offset: int = 0) -> JournalTail:
        threads.append(threading.current_thread().name)
        return read_journal_since(state, offset)

    monkeypatch.setattr(journal_watch, "read_journal_since", reading)
    path, ids = memory_session(tmp_path)
    state = tmp_path / "basedir" / "state"
    append_entry(state, JournalEntry("pi", "old", "threshold", "sessionlens",
                                     session_file=str(path), audit_passed=True))
    ctx = make_main_window()
    with qtbot.waitSignal(ctx.memory.controller.health_ready, timeout=SETTLE_MS):
        open_and_settle(qtbot, ctx, path)
    notices = ctx.journal_notices
    qtbot.waitUntil(lambda: notices.watch.offset is not None and not notices.watch._busy,
                    timeout=SETTLE_MS)
    view = ctx.memory.panel.journal
    assert len(view.entries) == 1 and notices.last == []    # what was there is no news
    loads: list[Path] = []
    ctx.controller.loaded.connect(lambda _t: loads.append(Path(ctx.controller.path)))

    append_entry(state, JournalEntry(
        "codex", "s1", "auto", "agent", session_file=str(path), summarizer="codex",
        audit_passed=False, failed_checks=("identifiers", "errors"),
        fallback_reason="Codex's hooks are notify-only", extra={"compaction_id": ids["good"]}))
    qtbot.waitUntil(lambda: len(view.entries) == 2, timeout=SETTLE_MS)
    expected = (f"Codex compacted {path.name} (auto): audit FAILED (identifiers, errors); "
                "Codex's own summary")
    assert notices.last[0][0] == expected
    live = ctx.live.panel
    assert live.banner_text.text() == expected and not live.banner.isHidden()
    assert ctx.window.statusBar().currentMessage() == expected
    assert "FAILED" in view.text() and "codex" in view.text()
    assert loads == []                                      # listed without a reload
    assert threads and "MainThread" not in threads          # read off the UI thread

    # "Open its audit" opens that compaction (the one the line names), on the Audit page
    assert live.banner_open.isEnabled()
    live.banner_open.click()
    qtbot.waitUntil(lambda: ctx.controller.selected_id == ids["good"], timeout=SETTLE_MS)
    qtbot.waitUntil(lambda: ctx.window.workbench.currentWidget() is ctx.compaction.audit,
                    timeout=SETTLE_MS)

    # a manual compaction is listed but is no notification; a line for another file is
    # neither listed here nor silent
    append_entry(state, JournalEntry("claude-code", "s2", "manual", "agent",
                                     session_file=str(path), audit_passed=True))
    append_entry(state, JournalEntry("pi", "s3", "threshold", "sessionlens",
                                     session_file=str(tmp_path / "other.jsonl"),
                                     summarizer="offline", audit_passed=True))
    qtbot.waitUntil(lambda: notices.last[0][1].session == "s3", timeout=SETTLE_MS)
    assert [e.session for e in view.entries] == ["old", "s1", "s2"]
    assert notices.last[0][0] == ("pi compacted other.jsonl (threshold): audit passed; "
                                  "summary by SessionLens (offline)")


def test_journal_created_after_start_is_followed(
        qtbot: Any, make_main_window: Any, tmp_path: Path) -> None:
    """No journal yet when the app starts (no integration ever ran): the first line an
    integration writes still shows."""
    ctx = make_main_window()
    notices = ctx.journal_notices
    qtbot.waitUntil(lambda: notices.watch.offset == 0 and not notices.watch._busy,
                    timeout=SETTLE_MS)
    append_entry(tmp_path / "basedir" / "state", JournalEntry(
        "claude-code", "s", "auto", "none", session_file=str(tmp_path / "x.jsonl"),
        fallback_reason="blocked: the user asked to approve compactions"))
    qtbot.waitUntil(lambda: bool(notices.last), timeout=SETTLE_MS)
    assert notices.last[0][0] == ("Claude Code did not compact x.jsonl: blocked: the user "
                                  "asked to approve compactions")
    assert not ctx.live.panel.banner_open.isEnabled()


def test_notice_of_an_openclaw_line_without_a_file(qtbot: Any) -> None:
    from sessionlens.gui.live.journal_notice import notice_text

    entry = JournalEntry("openclaw", "", "auto", "agent", audit_passed=None,
                         fallback_reason="SessionLens is not installed: OpenClaw's built-in "
                                         "summarizer ran")
    assert notice_text(entry) == "OpenClaw compacted a session (auto): no audit; OpenClaw's own summary"
