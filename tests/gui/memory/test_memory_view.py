"""The Memory tab, the Audit tab on a recorded compaction, Compare's preselection and the
chart's memory-flush marks, in the real main window."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from fixtures.qt_app import SETTLE_MS, open_and_settle
from fixtures.samples import sample_path
from fixtures.scenarios import memory_session
from sessionlens.engine import examine_memory, load_transcript
from sessionlens.gui.memory.model import COLUMNS


def _open(qtbot: Any, make_main_window: Any, path: Path) -> Any:
    ctx = make_main_window()
    with qtbot.waitSignal(ctx.memory.controller.health_ready, timeout=SETTLE_MS):
        open_and_settle(qtbot, ctx, path)
    return ctx


def _column(ctx: Any, key: str) -> list[str]:
    model = ctx.memory.panel.model
    col = COLUMNS.index(key)
    return [model.index(r, col).data() for r in range(model.rowCount())]


def test_fallback_compaction_is_listed_first_and_flagged(
        qtbot: Any, make_main_window: Any, tmp_path: Path) -> None:
    path, ids = memory_session(tmp_path)
    ctx = _open(qtbot, make_main_window, path)
    assert ctx.window.workbench.tabText(ctx.memory.tab_index) == "Memory"
    assert _column(ctx, "compaction") == [ids["lost"], ids["good"]]
    assert "total loss" in _column(ctx, "flags")[0]
    assert "total loss" not in _column(ctx, "flags")[1]
    assert _column(ctx, "severity")[0] == "CRITICAL"
    # the numbers are the engine's, rendered
    health = examine_memory(load_transcript(path), ctx.controller.settings, store_record=None)
    assert _column(ctx, "replaced") == [f"{c.tokens_replaced:,}" for c in health.compactions]


def test_selecting_a_recorded_compaction_fills_the_audit_and_compare(
        qtbot: Any, make_main_window: Any, tmp_path: Path) -> None:
    path, ids = memory_session(tmp_path)
    ctx = _open(qtbot, make_main_window, path)
    parts, audit = ctx.compaction, ctx.compaction.audit
    assert parts.compare.compactions.currentData() == ids["lost"]  # the last, before a choice
    ctx.controller.select(ids["good"])  # as a timeline click does
    qtbot.waitUntil(lambda: audit.report is not None
                    and audit.report.compaction_id == ids["good"], timeout=10_000)
    assert parts.compare.compactions.currentData() == ids["good"]
    ctx.memory.panel.table.selectRow(0)  # the worst: the fallback placeholder
    assert ctx.controller.selected_id == ids["lost"]
    qtbot.waitUntil(lambda: audit.report is not None
                    and audit.report.compaction_id == ids["lost"], timeout=10_000)
    assert parts.compare.compactions.currentData() == ids["lost"]
    assert "TOTAL LOSS" in audit.verdict.text()
    # the good compaction's kept tail (keep1 and its answer) left the context here
    assert audit.report.carried_tail_entry_ids[0] == ids["keep1"]
    assert ("2 of the summarized entries were the tail the previous compaction kept verbatim"
            in audit.verdict.text())
    assert audit.dropped_model.rowCount() > 0
    values = [audit.dropped_model.index(r, 1).data() for r in range(audit.dropped_model.rowCount())]
    assert "/srv/app/db_pool.py" in values
    row = values.index("/srv/app/db_pool.py")
    item = audit.dropped_model.item(row)
    audit.dropped.scrollTo(audit.dropped_model.index(row, 1))
    rect = audit.dropped.visualRect(audit.dropped_model.index(row, 1))
    ctx.window.workbench.setCurrentWidget(audit)
    QTest.mouseClick(audit.dropped.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert ctx.controller.selected_id == item.entry_ids[0]
    assert ctx.controller.selected_id == ids["ask2"]  # where the path was first written


def test_open_audit_switches_to_the_audit_tab(
        qtbot: Any, make_main_window: Any, tmp_path: Path) -> None:
    path, ids = memory_session(tmp_path)
    ctx = _open(qtbot, make_main_window, path)
    panel = ctx.memory.panel
    panel.table.selectRow(1)
    qtbot.mouseClick(panel.open_audit, Qt.MouseButton.LeftButton)
    assert ctx.window.workbench.currentWidget() is ctx.compaction.audit
    qtbot.waitUntil(lambda: ctx.compaction.audit.report is not None
                    and ctx.compaction.audit.report.compaction_id == ids["good"], timeout=10_000)


def test_chart_draws_the_engines_soft_threshold(
        qtbot: Any, make_main_window: Any, tmp_path: Path) -> None:
    path, _ids = memory_session(tmp_path)
    ctx = _open(qtbot, make_main_window, path)
    chart = ctx.window.tokens.chart
    health = ctx.memory.controller.health
    assert health is not None and health.soft_threshold is not None
    assert chart.flush_line.isVisible()
    assert chart.flush_line.value() == health.soft_threshold
    assert health.soft_threshold < ctx.controller.threshold()


def test_sample_03_lists_five_total_losses(
        qtbot: Any, make_main_window: Any, samples_dir: Path) -> None:
    path = sample_path(samples_dir, "03_")
    ctx = _open(qtbot, make_main_window, path)
    flags = _column(ctx, "flags")
    assert len(flags) == 5 == len(load_transcript(path).compactions)
    # the first placeholder replaced nothing (it kept its whole region): no loss to flag
    numbers = _column(ctx, "number")
    assert ["total loss" in f for f in flags] == [n != "1" for n in numbers]
    chart = ctx.window.tokens.chart
    tips = list(chart._tips.values())
    assert len(tips) == 5 and sum("TOTAL LOSS" in t for t in tips) == 4
    assert sum("but it replaced nothing" in t for t in tips) == 1


def test_sample_04_marks_its_flush_turn_on_the_chart(
        qtbot: Any, make_main_window: Any, samples_dir: Path) -> None:
    path = sample_path(samples_dir, "04_")
    ctx = _open(qtbot, make_main_window, path)
    health = ctx.memory.controller.health
    assert health is not None and health.flush_turn_ids
    chart = ctx.window.tokens.chart
    xs = sorted(int(x) for x in chart.flush_marks.data["x"])
    assert xs == sorted(ctx.controller.path_pos[i] for i in health.flush_turn_ids
                        if i in ctx.controller.path_pos)
    assert chart.flush_marks.isVisible() and chart.flush_line.value() == health.soft_threshold
