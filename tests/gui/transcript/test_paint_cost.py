"""What keeps the window painting cheaply while a big session opens (issue 22): the timeline
asks Python only for what is on screen, and the charts lay out without a paint first."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from PySide6.QtCore import QEvent, QModelIndex, QObject
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QApplication, QWidget

from fixtures.qt_app import open_and_settle
from fixtures.scenarios import small_session
from sessionlens.gui.transcript.context_chart import ContextChart
from sessionlens.gui.transcript.timeline_list import TimelineList
from sessionlens.gui.transcript.timeline_model import TimelineModel
from sessionlens.gui.transcript.timeline_rows import Mark, TimelineRow
from sessionlens.gui.transcript.token_view import BreakdownChart, _text_height

ROWS = 100_000


class CountingModel(TimelineModel):
    """The timeline's model, counting how often Qt asks it for the row count."""

    calls = 0

    def rowCount(self, parent: Any = QModelIndex()) -> int:  # noqa: B008, N802 - Qt
        CountingModel.calls += 1
        return super().rowCount(parent)


def _rows(n: int) -> tuple[TimelineRow, ...]:
    return tuple(TimelineRow(f"e{i:07d}", i, "role-user", "user", f"message {i}", "", "user",
                             "message", Mark.NONE) for i in range(n))


def test_a_reset_of_100k_rows_asks_python_only_for_what_is_on_screen(qtbot: Any) -> None:
    view = TimelineList()
    model = CountingModel()
    view.setModel(model)
    qtbot.addWidget(view)
    view.resize(500, 400)
    view.show()
    qtbot.waitExposed(view)
    rows = _rows(ROWS)
    CountingModel.calls = 0
    model.set_rows(rows)
    for _ in range(20):  # a list view would lay the rows out over these turns
        QApplication.processEvents()
    view.viewport().repaint()
    # a QListView asked once per row (100,000 calls, each waiting for the GIL)
    assert CountingModel.calls < 2_000
    last = model.index(ROWS - 1)
    assert view.visualRect(last).height() == view.verticalHeader().defaultSectionSize()
    view.scrollTo(last)
    assert view.viewport().rect().intersects(view.visualRect(last))


def test_every_row_has_the_delegates_height(qtbot: Any) -> None:
    view = TimelineList()
    qtbot.addWidget(view)
    expected = max(24, QFontMetrics(view.font()).height() + 10)
    assert view.verticalHeader().defaultSectionSize() == expected


class Paints(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt name
        if event.type() == QEvent.Type.Paint:
            self.count += 1
        return False


def test_the_breakdowns_labels_fit_before_it_ever_paints(qtbot: Any) -> None:
    chart = BreakdownChart()
    qtbot.addWidget(chart)
    chart.set_values({"toolResult": 285_801, "assistant": 3_683, "user": 74})
    QApplication.processEvents()  # the layout settles; the chart was never shown, never painted
    axis = chart.getAxis("left")
    widest = QFontMetrics(chart.font()).horizontalAdvance("toolResult  285,801")
    # the width comes from set_values itself, not from a paint that measures the text later
    assert axis.fixedWidth is not None and axis.fixedWidth >= widest
    assert axis.width() >= widest


class _View:
    """The shape of the controller's TokenView the chart reads."""

    def __init__(self, ys: list[int]) -> None:
        self.xs = np.arange(len(ys))
        self.ys = np.asarray(ys)
        self.reported = np.zeros(len(ys), dtype=bool)


def _shown_chart(qtbot: Any) -> tuple[QWidget, ContextChart]:
    """A chart in a plain frame (pytest-qt closing a pyqtgraph widget with data in it
    crashes in pyqtgraph's ``close``; a parent's ordinary teardown does not)."""
    frame = QWidget()
    qtbot.addWidget(frame)
    chart = ContextChart(lambda s: s, frame)
    chart.resize(700, 300)
    frame.resize(700, 300)
    frame.show()
    qtbot.waitExposed(frame)
    return frame, chart


def test_the_grid_follows_the_axis_ticks_and_the_axis_keeps_its_width(qtbot: Any) -> None:
    _frame, chart = _shown_chart(qtbot)
    width = chart.getAxis("left").width()
    chart.set_series(_View([0, 50_000, 180_000, 260_000]), 4, 300_000, 250_000)  # type: ignore[arg-type]
    QApplication.processEvents()
    axis = chart.getAxis("left")
    assert axis.width() == width  # 6-digit labels did not re-lay out the plot
    ticks = axis.tickValues(0, chart._ymax, axis.geometry().height())[0][1]
    shown = sorted(line.value() for line in chart._grid if line.isVisible())
    assert shown == sorted(v for v in ticks if 0 < v <= chart._ymax)
    assert len(shown) >= 3
    chart.show_empty()
    assert not any(line.isVisible() for line in chart._grid)


def test_new_series_paint_the_chart_once_not_in_a_chain(qtbot: Any) -> None:
    _frame, chart = _shown_chart(qtbot)
    paints = Paints()
    chart.viewport().installEventFilter(paints)
    chart.set_series(_View(list(range(0, 200_000, 20))), 10_000, 300_000, 250_000)  # type: ignore[arg-type]
    chart.set_compactions([100, 5_000], ["a", "b"])
    QApplication.processEvents()
    QApplication.processEvents()
    chart.viewport().removeEventFilter(paints)  # before pyqtgraph's close drops the viewport
    # one paint for the burst; painting at once as the scene changed made it two here (and
    # three in the whole window on a 100 MB session)
    assert paints.count == 1


def test_the_token_panels_labels_fit_their_text_and_stay_put(qtbot: Any, make_main_window: Any,
                                                             tmp_path: Path) -> None:
    ctx = make_main_window()
    ctx.window.resize(1280, 800)
    open_and_settle(qtbot, ctx, small_session().write(tmp_path / "s.jsonl"))
    panel = ctx.window.tokens
    assert panel.prediction.text() and panel.totals.text()
    for label in (panel.prediction, panel.totals):
        inside = label.contentsRect()
        # every wrapped line is inside the label (the style's padding counted)
        assert inside.height() >= _text_height(label, inside.width())
    heights = (panel.prediction.height(), panel.totals.height())
    for _ in range(3):  # the same texts again: no label grows (each re-lays out the charts)
        panel._fit_labels()
    assert (panel.prediction.height(), panel.totals.height()) == heights
