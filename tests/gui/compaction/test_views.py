"""The compaction views on their own: the diff HTML, the audit models and panel, the accept
dialog's list of files, the compare view's marked source text."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication

from fixtures.qt_app import mount, settle
from fixtures.scenarios import write_session
from sessionlens.engine import audit_summary, load_transcript
from sessionlens.gui.compaction.accept_dialog import AcceptDialog, planned_writes
from sessionlens.gui.compaction.audit_models import (
    ChecksModel,
    CoverageModel,
    DroppedModel,
    ItemRole,
)
from sessionlens.gui.compaction.audit_panel import AuditPanel
from sessionlens.gui.compaction.diff_html import marked_text, side_by_side

# --------------------------------------------------------------------------- diff HTML

def test_identical_texts_have_no_differences() -> None:
    d = side_by_side("a\nb\n", "a\nb\n")
    assert d.identical and (d.added, d.removed, d.changed) == (0, 0, 0)


def test_changed_word_is_marked_on_both_sides_and_text_is_escaped() -> None:
    before = "## Goal\nfix src/app/module_1.py now\n<script>x</script>"
    after = "## Goal\nfix src/app/module_2.py now\n<script>x</script>\nnew line"
    d = side_by_side(before, after)
    assert (d.changed, d.added, d.removed) == (1, 1, 0)
    assert "line-through;\">src/app/module_1.py</span>" in d.left_html
    assert ">src/app/module_2.py</span>" in d.right_html
    assert "<script>" not in d.left_html and "&lt;script&gt;" in d.left_html
    # both panes have the same number of rows, so they stay aligned
    assert d.left_html.count("<p ") == d.right_html.count("<p ") == 4


def test_long_text_is_cut_for_display() -> None:
    d = side_by_side("x" * 50, "y", limit=10)
    assert d.truncated


def test_marked_text_marks_kept_and_dropped() -> None:
    html, cut = marked_text("ran make test in /srv/app", kept=["make test"], dropped=["/srv/app"])
    assert not cut
    assert "line-through;\">/srv/app</span>" in html
    assert ">make test</span>" in html and "line-through;\">make test" not in html


# --------------------------------------------------------------------------- audit models and panel

@pytest.fixture
def report(tmp_path: Path) -> Any:
    """An audit of a summary that keeps module_0's path and drops the rest."""
    t = load_transcript(write_session(tmp_path / "s"))
    ids = t.active_path[:12]
    summary = "## Goal\nFix src/app/module_0.py.\n"
    return t, audit_summary(t, summary, summarized_entry_ids=ids, template="structured")


def test_models_show_the_report_without_a_window(report: Any) -> None:
    _t, r = report
    checks, cov, dropped = ChecksModel(), CoverageModel(), DroppedModel()
    for m in (checks, cov, dropped):
        m.set_report(r)
    assert checks.rowCount() == len(r.checks)
    for row, check in enumerate(r.checks):
        shown = checks.data(checks.index(row, 1))
        assert shown == ("pass" if check.passed else "FAIL")
        assert checks.data(checks.index(row, 2)) == check.detail
    assert not r.passed  # the summary lacks most sections
    assert cov.rowCount() == sum(1 for c in r.coverage if c.total)
    values = [dropped.data(dropped.index(i, 1)) for i in range(dropped.rowCount())]
    assert "src/app/module_1.py" in values and "src/app/module_0.py" not in values
    assert dropped.data(dropped.index(0, 0), ItemRole) is r.dropped[0]
    checks.set_report(None)
    assert checks.rowCount() == 0


def test_audit_panel_links_dropped_items_and_copies_the_pack(qtbot: Any, report: Any) -> None:
    t, r = report
    panel = AuditPanel()
    qtbot.addWidget(panel)
    panel.show()
    panel.show_report(r, "test", source=t.path.name)
    assert "FAILED" in panel.verdict.text()
    row = next(i for i, d in enumerate(r.dropped) if d.value == "src/app/module_1.py")
    rect = panel.dropped.visualRect(panel.dropped_model.index(row, 1))
    if not rect.isValid() or not panel.dropped.viewport().rect().contains(rect.center()):
        panel.dropped.scrollTo(panel.dropped_model.index(row, 1))
        rect = panel.dropped.visualRect(panel.dropped_model.index(row, 1))
    with qtbot.waitSignal(panel.entry_activated, timeout=2000) as blocker:
        qtbot.mouseClick(panel.dropped.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert blocker.args[0] == r.dropped[row].entry_ids[0]
    assert blocker.args[0] in t.index
    qtbot.mouseClick(panel.copy_addendum, Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text() == panel.pack.addendum
    assert "src/app/module_1.py" in panel.pack.addendum
    panel.show_report(None)
    assert panel.dropped_model.rowCount() == 0 and not panel.copy_addendum.isEnabled()


# --------------------------------------------------------------------------- accept dialog

def test_planned_writes_name_every_file(tmp_path: Path) -> None:
    with_store = load_transcript(write_session(tmp_path / "a", store=True))
    plain = load_transcript(write_session(tmp_path / "b"))
    kinds = [w.kind for w in planned_writes(with_store, "successor")]
    assert kinds == ["checkpoint", "successor", "store"]
    append = planned_writes(plain, "append")
    assert [w.kind for w in append] == ["checkpoint", "append"]
    assert append[1].path == str(plain.path.absolute())
    assert all(w.path.startswith(str(tmp_path / "b")) for w in append)


def test_accept_dialog_lists_files_and_refuses_unwritable_formats(
        qtbot: Any, qloop: Any, make_app: Any, tmp_path: Path) -> None:
    path = write_session(tmp_path / "s", store=True)
    ctx = make_app()
    parts = mount(qtbot, ctx, path)
    with qtbot.waitSignal(parts.controller.audit_ready, timeout=30_000) as blocker:
        parts.panel.run()
    record = blocker.args[0]
    dlg = AcceptDialog(record, record.transcript)
    qtbot.addWidget(dlg)
    assert dlg.files.topLevelItemCount() == 3 and dlg.write_button.isEnabled()
    dlg.append.setChecked(True)
    assert dlg.mode() == "append"
    assert dlg.files.topLevelItem(1).text(1) == str(path.absolute())
    claude = dataclasses.replace(record.transcript, format="claude-code", header=None)
    refused = AcceptDialog(record, claude)
    qtbot.addWidget(refused)
    assert not refused.write_button.isEnabled() and refused.problem.text()
    settle(qtbot, ctx)


def test_compare_marks_what_the_summary_kept_in_the_source(
        qtbot: Any, qloop: Any, make_app: Any, tmp_path: Path) -> None:
    ctx = make_app()
    parts = mount(qtbot, ctx, write_session(tmp_path / "s"))
    with qtbot.waitSignal(parts.controller.audit_ready, timeout=30_000) as blocker:
        parts.panel.run()
    record = blocker.args[0]
    parts.compare.set_mode("source")
    left_title, left, _rt, right = parts.compare.texts()
    assert "[User]:" in left and right == record.result.summary
    kept = len(record.report.entities) - len(record.report.dropped)
    assert f"{kept} of {len(record.report.entities)} specifics kept" in parts.compare.counts.text()
    assert "src/app/module_0.py" in parts.compare.left.toPlainText()
    settle(qtbot, ctx)


def test_pool_provider_runs_the_offline_work_off_the_ui_thread(qtbot: Any, qloop: Any) -> None:
    import asyncio
    import threading
    import time

    from PySide6.QtCore import QTimer

    from sessionlens.engine import OFFLINE_PROFILE, ChatMessage, Completion, CompletionRequest
    from sessionlens.gui.compaction.pool_provider import PoolProvider
    from sessionlens.gui.tasks import TaskRunner

    seen: dict[str, Any] = {}

    class Blocking:
        profile = OFFLINE_PROFILE

        async def complete(self, request: Any, *, on_delta: Any = None) -> Any:
            seen["thread"] = threading.current_thread()
            time.sleep(0.3)  # CPU-like work that would freeze the UI on its thread
            return Completion("## Goal\n- done", provider="offline", model="extractive")

    tasks = TaskRunner()
    ticks = [0]
    timer = QTimer(interval=10)
    timer.timeout.connect(lambda: ticks.__setitem__(0, ticks[0] + 1))
    timer.start()
    deltas: list[str] = []
    request = CompletionRequest("system", (ChatMessage("user", "hi"),), 100)
    fut = asyncio.ensure_future(PoolProvider(Blocking(), tasks).complete(
        request, on_delta=deltas.append))
    qtbot.waitUntil(fut.done, timeout=5000)
    timer.stop()
    tasks.shutdown()
    assert fut.result().text == "## Goal\n- done" and deltas == ["## Goal\n- done"]
    assert seen["thread"] is not threading.main_thread()
    assert ticks[0] > 0  # the Qt loop ran timers while the work was going on


def test_instruction_history_dedupes_and_keeps_the_newest(tmp_path: Path) -> None:
    from sessionlens.gui.compaction.prefs import MAX_HISTORY, CompactionPrefs

    prefs = CompactionPrefs(tmp_path / "s.ini")
    for i in range(MAX_HISTORY + 5):
        prefs.remember(f"instr {i}")
    prefs.remember("instr 3")  # used again: moves to the front, not duplicated
    prefs.remember("   ")      # empty text is not history
    again = CompactionPrefs(tmp_path / "s.ini").history()
    assert again[0] == "instr 3" and again.count("instr 3") == 1
    assert len(again) == MAX_HISTORY
    assert again[1] == f"instr {MAX_HISTORY + 4}"
