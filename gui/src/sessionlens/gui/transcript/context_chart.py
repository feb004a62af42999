"""The context chart: tokens along the active path, the limits, compactions and the cut.

Drawn with pyqtgraph (fast on 100k points). The cut line is draggable and snaps to the
plan's valid cut points; while it moves, the chart asks for a re-plan (debounced, and the
task pool drops stale plans), and the predicted size after compaction follows.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QTimer, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QWidget

from sessionlens.gui import colors
from sessionlens.gui.chart_paint import coalesce_repaints

#: The memory flush's colour (soft threshold line and flush-turn marks), light and dark.
FLUSH_COLORS = {False: "#8250df", True: "#a371f7"}
if TYPE_CHECKING:
    from sessionlens.engine import CompactionPlan
    from sessionlens.gui.session_controller import TokenView


#: Where the legend starts (it sits above the plot, so it may start over the y axis).
LEGEND_LEFT_PX = 4
#: The y axis's width: room for "1,000,000"-sized tick labels and the axis title.
LEFT_AXIS_PX = 72
#: The y grid's opacity (0-255) over the chart's foreground colour.
GRID_ALPHA = 30


class ContextChart(pg.PlotWidget):  # type: ignore[misc]
    """Plot of context tokens per path position with limits, compactions and the cut line."""

    #: The user let go of the cut line at this path position (snapped).
    cut_moved = Signal(int)
    #: The snapped position while dragging (for live re-planning).
    cut_dragging = Signal(int)
    #: A compaction marker was clicked (its path position).
    compaction_clicked = Signal(int)

    def __init__(self, tr: Callable[[str], str], parent: QWidget | None = None) -> None:
        super().__init__(parent=parent)
        self._tr = tr
        self.setMinimumHeight(160)
        # the y grid is a few plain lines of our own: pyqtgraph's axis grid cost 6 of the 14 ms
        # every repaint took on a 100 MB session
        self._grid: list[pg.InfiniteLine] = []
        self.setLabel("left", tr("tokens in context"))
        self.setLabel("bottom", tr("entries along the active path"))
        # a fixed width: tick labels growing from "0" to "200000" would re-lay out the plot
        # and paint it again while a file opens
        self.getAxis("left").setWidth(LEFT_AXIS_PX)
        coalesce_repaints(self)
        self.getPlotItem().getViewBox().setMouseEnabled(x=True, y=False)
        self.legend = self.addLegend(labelTextSize="8pt", colCount=3)
        # the legend sits above the plot, in a margin of its own, never over the data
        self.legend.setParentItem(self.getPlotItem())
        self.legend.anchor(itemPos=(0, 0), parentPos=(0, 0), offset=(LEGEND_LEFT_PX, 0))
        self.curve = self.plot([], [], name=tr("context"))
        # both series are downsampled to the pixels on screen, so 100k entries draw fast
        self.reported = pg.PlotDataItem([], [], pen=None, symbol="o", symbolSize=4,
                                        name=tr("reported usage"))
        self.addItem(self.reported)
        for item in (self.curve, self.reported):
            item.setDownsampling(auto=True, method="peak")
            item.setClipToView(True)
            item.opts["autoDownsampleFactor"] = 1.0  # about one point per pixel column
        self.window_line = pg.InfiniteLine(angle=0, movable=False, name=tr("window"))
        self.threshold_line = pg.InfiniteLine(angle=0, movable=False, name=tr("threshold"))
        self.after_line = pg.InfiniteLine(angle=0, movable=False, name=tr("predicted after"))
        self.tail = pg.LinearRegionItem(movable=False)
        self.summarized = pg.LinearRegionItem(movable=False)
        for item in (self.tail, self.summarized):
            item.setZValue(-10)
            for line in item.lines:
                line.setPen(pg.mkPen(None))
        self.ticks = pg.ScatterPlotItem(symbol="t1", size=7)
        self.compactions = pg.ScatterPlotItem(symbol="t", size=14, hoverable=True,
                                              tip=self._compaction_tip)
        self.cut = pg.InfiniteLine(angle=90, movable=True)
        self.cut.setZValue(20)
        for item in (self.tail, self.summarized, self.window_line, self.threshold_line,
                     self.after_line, self.ticks, self.compactions, self.cut):
            self.addItem(item)
        self.cut.setVisible(False)
        self._valid_x = np.zeros(0, dtype=np.int64)
        self._tips: dict[int, str] = {}
        self._xmax = 1
        self._ymax = 1
        self._snapping = False
        self._drag_timer = QTimer(self, singleShot=True, interval=60)
        self._drag_timer.timeout.connect(lambda: self.cut_dragging.emit(int(self.cut.value())))
        self.cut.sigPositionChanged.connect(self._snap)
        self.cut.sigPositionChangeFinished.connect(lambda _l: self.cut_moved.emit(int(self.cut.value())))
        self._add_memory_items(tr)
        self.apply_theme(False)
        # legend entries for the limit lines (InfiniteLine does not add itself)
        self._legend_items = {k: pg.PlotDataItem([], [], name=v) for k, v in
                              (("window", tr("window")), ("threshold", tr("threshold")),
                               ("after", tr("predicted after")))}
        for item in self._legend_items.values():
            self.legend.addItem(item, item.name())
        self._style_legend(False)
        self._legend_cols = 0
        self.show_empty()

    # the legend's margin -------------------------------------------------------------------------
    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if "_legend_cols" in self.__dict__:  # pyqtgraph resizes before __init__ is done
            self.fit_legend()
            self._place_grid()

    def fit_legend(self) -> None:
        """As many legend columns as fit the width; the plot's top margin makes room for the
        rows, so the legend covers no data and no compaction marker."""
        items = self.legend.items
        if not items or not self.legend.isVisible():
            self.getPlotItem().layout.setContentsMargins(0, 4, 0, 0)
            return
        widths = [label.boundingRect().width() + sample.boundingRect().width() + 16
                  for sample, label in items]
        room = self.width() - LEGEND_LEFT_PX - 8
        cols = 1
        for n in range(len(items), 0, -1):  # the most columns whose widest cells still fit
            if sum(max(widths[c::n]) for c in range(n)) <= room:
                cols = n
                break
        if cols != self._legend_cols:
            self._legend_cols = cols
            self.legend.setColumnCount(cols)
        rows = -(-len(items) // cols)
        row_h = max(label.boundingRect().height() for _s, label in items)
        self.getPlotItem().layout.setContentsMargins(0, rows * row_h + 6, 0, 0)

    def set_legend_visible(self, visible: bool) -> None:
        self.legend.setVisible(visible)
        self.fit_legend()

    def show_empty(self) -> None:
        """No session (or a failed open): a plain frame, not pyqtgraph's default range."""
        self.curve.setData([], [])
        self.reported.setData([], [])
        self.compactions.setData([], [])
        for axis in ("left", "bottom"):
            self.getAxis(axis).setTicks([[], []])
        self.setXRange(0, 1, padding=0)
        self.setYRange(0, 1, padding=0)
        for line in self._grid:
            line.setVisible(False)

    # memory flush and precheck marks (issue 17) --------------------------------------------------
    def _add_memory_items(self, tr: Callable[[str], str]) -> None:
        """The soft-threshold line, a mark per flush turn and per mid-turn precheck point;
        hidden until ``set_memory`` gives the engine's numbers."""
        self.flush_line = pg.InfiniteLine(angle=0, movable=False, name=tr("memory flush"))
        self.flush_marks = pg.ScatterPlotItem(symbol="d", size=10, hoverable=True,
                                              tip=lambda x, y, data: self._mark_tips.get(
                                                  int(round(x)), ""))
        self.precheck_marks = pg.ScatterPlotItem(symbol="s", size=8, hoverable=True,
                                                 tip=lambda x, y, data: self._mark_tips.get(
                                                     int(round(x)), ""))
        self._mark_tips: dict[int, str] = {}
        self.flush_legend = pg.PlotDataItem([], [], name=tr("memory flush"))
        for item in (self.flush_line, self.flush_marks, self.precheck_marks):
            item.setVisible(False)
            self.addItem(item)
        self.compactions.sigClicked.connect(
            lambda _item, points, _ev: self.compaction_clicked.emit(int(round(points[0].pos().x())))
            if len(points) else None)

    def _style_memory(self, dark: bool) -> None:
        color = FLUSH_COLORS[dark]
        dash = pg.QtCore.Qt.PenStyle.DashDotLine
        self.flush_line.setPen(pg.mkPen(color, width=1.5, style=dash))
        self.flush_legend.setPen(pg.mkPen(color, width=1.5, style=dash))
        self.flush_marks.setBrush(pg.mkBrush(color))
        self.flush_marks.setPen(pg.mkPen(None))
        self.precheck_marks.setBrush(pg.mkBrush(None))
        self.precheck_marks.setPen(pg.mkPen(color, width=1.5))

    def set_memory(self, soft_threshold: int | None, flush_xs: list[int], flush_tips: list[str],
                   precheck_xs: list[int], precheck_tips: list[str]) -> None:
        """The engine's memory-flush level (None: no flush applies) and the marks."""
        self.flush_line.setVisible(soft_threshold is not None)
        in_legend = any(i is self.flush_legend for i, _ in self.legend.items)
        if soft_threshold is not None:
            self.flush_line.setValue(soft_threshold)
            if not in_legend:
                self.legend.addItem(self.flush_legend, self.flush_legend.name())
        elif in_legend:
            self.legend.removeItem(self.flush_legend)
        self._mark_tips = {**dict(zip(flush_xs, flush_tips, strict=True)),
                           **dict(zip(precheck_xs, precheck_tips, strict=True))}
        self.flush_marks.setData(flush_xs, [self._ymax * 0.04] * len(flush_xs))
        self.precheck_marks.setData(precheck_xs, [self._ymax * 0.04] * len(precheck_xs))
        self.flush_marks.setVisible(bool(flush_xs))
        self.precheck_marks.setVisible(bool(precheck_xs))

    def _style_legend(self, dark: bool) -> None:
        c = colors.chart_colors(dark)
        self.legend.setBrush(pg.mkBrush(c["bg"] + "d8"))
        self.legend.setLabelTextColor(c["fg"])
        dash, dot = pg.QtCore.Qt.PenStyle.DashLine, pg.QtCore.Qt.PenStyle.DotLine
        if hasattr(self, "_legend_items"):
            self._legend_items["window"].setPen(pg.mkPen(c["window"], width=1.5, style=dash))
            self._legend_items["threshold"].setPen(pg.mkPen(c["threshold"], width=1.5, style=dash))
            self._legend_items["after"].setPen(pg.mkPen(c["cut"], width=1, style=dot))

    def apply_theme(self, dark: bool) -> None:
        c = colors.chart_colors(dark)
        self.setBackground(c["bg"])
        if hasattr(self, "_legend_items"):
            self._style_legend(dark)
        for axis in ("left", "bottom"):
            self.getAxis(axis).setPen(pg.mkPen(c["fg"]))
            self.getAxis(axis).setTextPen(pg.mkPen(c["fg"]))
        self.curve.setPen(pg.mkPen(c["curve"], width=1))  # a wider pen doubles the curve's cost
        grid_color = pg.mkColor(c["fg"])
        grid_color.setAlpha(GRID_ALPHA)
        self._grid_pen = pg.mkPen(grid_color, width=1)
        for line in self._grid:
            line.setPen(self._grid_pen)
        self.reported.setSymbolBrush(pg.mkBrush(c["curve"]))
        self.reported.setSymbolPen(pg.mkPen(None))
        self.window_line.setPen(pg.mkPen(c["window"], width=1.5, style=pg.QtCore.Qt.PenStyle.DashLine))
        self.threshold_line.setPen(pg.mkPen(c["threshold"], width=1.5,
                                            style=pg.QtCore.Qt.PenStyle.DashLine))
        self.after_line.setPen(pg.mkPen(c["cut"], width=1, style=pg.QtCore.Qt.PenStyle.DotLine))
        self.tail.setBrush(pg.mkBrush(c["tail"]))
        self.summarized.setBrush(pg.mkBrush(c["summarized"]))
        self.ticks.setBrush(pg.mkBrush(c["ticks"]))
        self.ticks.setPen(pg.mkPen(None))
        self.compactions.setBrush(pg.mkBrush(c["compaction"]))
        self.compactions.setPen(pg.mkPen(c["fg"], width=0.5))
        self.cut.setPen(pg.mkPen(c["cut"], width=3))
        self.cut.setHoverPen(pg.mkPen(c["cut"], width=5))
        self._style_memory(dark)

    # data --------------------------------------------------------------------------------------
    def set_series(self, view: TokenView, path_len: int, window: int, threshold: int) -> None:
        for axis in ("left", "bottom"):
            self.getAxis(axis).setTicks(None)  # back to automatic ticks after show_empty
        self._xmax = max(1, path_len - 1)
        self.threshold_line.setValue(threshold)
        # range first: the curves downsample for the view they are given, so the first paint
        # after new data draws ~1 point per pixel instead of every entry
        self.setXRange(0, self._xmax, padding=0.01)
        self.curve.setData(view.xs, view.ys)
        mask = view.reported
        self.reported.setData(view.xs[mask], view.ys[mask])
        self.set_window(window)

    def set_window(self, window: int) -> None:
        self.window_line.setValue(window)
        top = max(window, int(self.curve.yData.max()) if self.curve.yData is not None
                  and len(self.curve.yData) else 0)
        self._ymax = int(top * 1.1) or 1  # headroom for the compaction markers
        self.setXRange(0, self._xmax, padding=0.01)
        self.setYRange(0, self._ymax, padding=0)
        self._place_grid()

    def _place_grid(self) -> None:
        """One faint line per major y tick, where the axis puts its labels."""
        axis = self.getAxis("left")
        levels = axis.tickValues(0, self._ymax, max(1.0, axis.geometry().height()))
        values = [v for v in (levels[0][1] if levels else []) if 0 < v <= self._ymax]
        while len(self._grid) < len(values):
            line = pg.InfiniteLine(angle=0, movable=False, pen=self._grid_pen)
            line.setZValue(-20)
            self.addItem(line)
            self._grid.append(line)
        for i, line in enumerate(self._grid):
            line.setVisible(i < len(values))
            if i < len(values):
                line.setValue(values[i])

    def set_compactions(self, xs: list[int], tips: list[str]) -> None:
        self._tips = dict(zip(xs, tips, strict=True))
        self.compactions.setData(xs, [self._ymax * 0.955] * len(xs), data=xs)

    def _compaction_tip(self, x: float, y: float, data: Any) -> str:
        return self._tips.get(int(round(x)), "")

    def set_plan(self, plan: CompactionPlan | None, pos: dict[str, int], window: int,
                 predicted_after: int = 0) -> None:
        """Show the plan: valid cut ticks, the cut line, kept tail, summarized span, and the
        predicted size after (the session's ``Figures``, the same number the text shows)."""
        if plan is None:
            for item in (self.cut, self.tail, self.summarized, self.after_line, self.ticks):
                item.setVisible(False)
            return
        self.threshold_line.setValue(plan.threshold)
        valid = sorted(pos[e] for e in plan.valid_cut_entry_ids if e in pos)
        self._valid_x = np.asarray(valid, dtype=np.int64)
        step = max(1, len(valid) // 1500)
        shown = valid[::step]
        self.ticks.setData(shown, [self._ymax * 0.012] * len(shown))
        cut_x = pos.get(plan.first_kept_entry_id) if plan.first_kept_entry_id else None
        # everything the summary stands in for, the last compaction's kept tail included
        first = min((pos[e] for e in plan.summarized_entry_ids if e in pos), default=None)
        for item in (self.cut, self.tail, self.after_line, self.ticks):
            item.setVisible(cut_x is not None)
        if cut_x is None:
            self.summarized.setVisible(False)
            return
        if not self.cut.moving:  # never yank the line out of the user's hand
            self._snapping = True
            self.cut.setValue(cut_x)
            self._snapping = False
        self.cut.setBounds((int(valid[0]), int(valid[-1])) if valid else (0, self._xmax))
        self.tail.setRegion((cut_x, self._xmax))
        self.summarized.setVisible(first is not None)
        if first is not None:
            self.summarized.setRegion((first, cut_x))
        self.after_line.setValue(predicted_after)
        self.set_window(window)

    def _snap(self) -> None:
        """Keep the dragged line on the nearest valid cut point."""
        if self._snapping or not len(self._valid_x):
            return
        x = self.cut.value()
        i = int(np.clip(np.searchsorted(self._valid_x, x), 1, len(self._valid_x) - 1)) \
            if len(self._valid_x) > 1 else 0
        nearest = self._valid_x[i]
        if len(self._valid_x) > 1 and abs(self._valid_x[i - 1] - x) < abs(nearest - x):
            nearest = self._valid_x[i - 1]
        if nearest != x:
            self._snapping = True
            self.cut.setValue(int(nearest))
            self._snapping = False
        self._drag_timer.start()

    def drag_cut_to(self, x: int) -> None:
        """Move the cut as a drag would (snap, live re-plan, then release); used by tests."""
        self.cut.setValue(x)
        self.cut.sigPositionChangeFinished.emit(self.cut)
