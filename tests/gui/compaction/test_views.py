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
from sessionlens.engine import CompactionRecord, audit_summary, load_transcript, write_compaction
from sessionlens.gui.compaction.accept_dialog import PATH_ROLE, ZWSP, AcceptDialog
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

class _Row:
    """One row of the Accept dialog's file table, read as a reader sees it."""

    def __init__(self, table: Any, row: int) -> None:
        self.table, self.row = table, row

    def text(self, col: int) -> str:
        return str(self.table.item(self.row, col).text())

    def path(self) -> str:
        return str(self.table.item(self.row, 1).data(PATH_ROLE))


def _planned(qtbot: Any, ctx: Any, path: Path) -> tuple[Any, Any]:
    """The app's parts with ``path`` open, and the record its compaction run hands the
    Accept dialog (``writes_ready``)."""
    parts = mount(qtbot, ctx, path)
    with qtbot.waitSignal(parts.controller.writes_ready, timeout=30_000) as blocker:
        parts.panel.run()
    return parts, blocker.args[0]


def test_accept_dialog_names_the_real_files_of_the_engines_dry_run(
        qtbot: Any, qloop: Any, make_app: Any, tmp_path: Path) -> None:
    """Every row is a real path (no placeholders), and the write creates exactly those."""
    path = write_session(tmp_path / "s", store=True)
    ctx = make_app()
    parts, record = _planned(qtbot, ctx, path)
    dlg = AcceptDialog(record, record.transcript)
    qtbot.addWidget(dlg)
    rows = [_Row(dlg.files, i) for i in range(dlg.files.rowCount())]
    assert [r.text(0) for r in rows] == ["Checkpoint", "Successor", "Session store"]
    prepared = record.write_plan("successor")
    assert [r.path() for r in rows] == [str(f.path) for f in prepared.files]
    assert [r.text(1).replace(ZWSP, "") for r in rows] == [f.path.name for f in prepared.files]
    assert str(path.parent.absolute()) in dlg.folder.text()
    assert not any("<" in r.text(1) for r in rows)
    assert str(prepared.tokens_after) in dlg.facts.text().replace(",", "")
    assert prepared.first_kept_entry_id in dlg.facts.text()
    dlg.append.setChecked(True)
    assert dlg.mode() == "append"
    assert _Row(dlg.files, 1).path() == str(path.absolute())
    dlg.successor.setChecked(True)
    before = set((tmp_path / "s").iterdir())
    with qtbot.waitSignal(parts.controller.accepted, timeout=30_000) as written:
        parts.controller.accept("successor", accept_failed_audit=True)
    made = set((tmp_path / "s").iterdir()) - before
    assert made == {f.path for f in prepared.files if f.kind != "store"}
    assert set(written.args[0].written) == set(prepared.written_paths)


def test_accept_dialog_refuses_what_the_engine_refuses_and_gates_a_failed_audit(
        qtbot: Any, qloop: Any, make_app: Any, tmp_path: Path) -> None:
    path = write_session(tmp_path / "s", store=True)
    ctx = make_app()
    parts, record = _planned(qtbot, ctx, path)
    claude = dataclasses.replace(record, write_plans={
        "successor": "this is a Claude Code transcript, which SessionLens never writes into",
        "append": "this is a Claude Code transcript, which SessionLens never writes into"})
    refused = AcceptDialog(claude, record.transcript)
    qtbot.addWidget(refused)
    assert not refused.write_button.isEnabled() and "Claude Code" in refused.problem.text()
    assert refused.write_button.toolTip() == refused.problem.text()
    failed = dataclasses.replace(record, outcome=dataclasses.replace(
        record.outcome, audit=dataclasses.replace(record.report, passed=False)))
    gated = AcceptDialog(failed, record.transcript)
    qtbot.addWidget(gated)
    assert gated.accept_failed.isVisibleTo(gated) and not gated.write_button.isEnabled()
    assert not gated.failed_audit_accepted()
    gated.accept_failed.setChecked(True)
    assert gated.write_button.isEnabled() and gated.failed_audit_accepted()


def test_accept_dialog_asks_before_a_second_successor_naming_the_first(
        qtbot: Any, qloop: Any, make_app: Any, tmp_path: Path) -> None:
    """One continuation: the original already has a successor; the dialog names it and
    writes nothing unless the user ticks the box; the controller refuses without it."""
    path = write_session(tmp_path / "s")
    t = load_transcript(path)
    first = write_compaction(t, CompactionRecord(summary="## Goal\nship it",
                                                 first_kept_entry_id=t.leaf_id,
                                                 tokens_before=1000))
    assert first.successor_path is not None
    ctx = make_app()
    parts, record = _planned(qtbot, ctx, path)  # the original again, as a user opens it later
    assert record.write_plan("successor").existing_successor == first.successor_path
    dlg = AcceptDialog(record, record.transcript)
    qtbot.addWidget(dlg)
    assert dlg.allow_second.isVisibleTo(dlg) and not dlg.write_button.isEnabled()
    assert first.successor_path.name in dlg.allow_second.text()
    assert first.successor_path.name in dlg.problem.text()
    assert not dlg.second_successor_allowed()
    dlg.allow_second.setChecked(True)
    assert dlg.write_button.isEnabled() and dlg.second_successor_allowed()
    before = set(path.parent.iterdir())
    with qtbot.waitSignal(parts.controller.write_failed, timeout=30_000) as refused:
        parts.controller.accept("successor", accept_failed_audit=True)
    assert first.successor_path.name in refused.args[0]
    assert set(path.parent.iterdir()) == before  # nothing written
    with qtbot.waitSignal(parts.controller.accepted, timeout=30_000):
        parts.controller.accept("successor", accept_failed_audit=True,
                                allow_second_successor=True)
    settle(qtbot, ctx)


def test_terminal_colour_codes_are_not_shown_as_boxes() -> None:
    from sessionlens.gui.compaction.diff_html import strip_terminal_codes

    raw = "\x1b[31mFAILED\x1b[0m tests/test_a.py \x1b]0;title\x07done\x08"
    assert strip_terminal_codes(raw) == "FAILED tests/test_a.py done\u2408"
    d = side_by_side(raw, "FAILED tests/test_a.py")
    assert "\x1b" not in d.left_html and "[31m" not in d.left_html
    html_text, _ = marked_text(raw, dropped=["tests/test_a.py"])
    assert "\x1b" not in html_text and "[0m" not in html_text


def test_accept_dialog_shows_the_audit_it_accepts_and_cuts_no_path(
        qtbot: Any, qloop: Any, make_app: Any, tmp_path: Path) -> None:
    from fixtures.qt_clipping import find_clipping

    path = write_session(tmp_path / "s", store=True)
    ctx = make_app()
    parts, record = _planned(qtbot, ctx, path)
    dlg = AcceptDialog(record, record.transcript)
    qtbot.addWidget(dlg)
    dlg.resize(980, 600)
    dlg.show()
    qtbot.wait(50)
    h = record.report.headline
    text = dlg.audit.text()
    assert h.losses.split(";")[0] in text and "OpenClaw&#x27;s rule" in text
    assert h.checks in text
    for r in range(dlg.files.rowCount()):
        cell = dlg.files.item(r, 1)
        rect = dlg.files.visualItemRect(cell)
        fm = dlg.files.fontMetrics()
        # the name wraps inside its cell: every line fits the column, the rows are tall enough
        lines = [part for part in cell.text().replace(ZWSP, "\n").splitlines() if part]
        assert all(fm.horizontalAdvance(p) <= dlg.files.columnWidth(1) for p in lines)
        assert rect.height() >= fm.lineSpacing()
    assert find_clipping(dlg) == []
