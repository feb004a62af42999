"""Drift along the chain: summary size per compaction, repeated sections, identifiers.

The numbers come from the engine's ``DriftReport``; this view plots the summary size of
each compaction in chain order (bars, estimated tokens; summaries that nest an older one,
i.e. repeat a heading, in red; above each bar its size and how many identifiers came and
went), and lists the repeated sections and the identifiers that appeared, disappeared or came back at the
selected compaction, plus the ones the chain lost for good. Double-clicking a bar or a row
asks to open that compaction (``open_requested(path, compaction_id)``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QLabel,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from sessionlens.gui import colors
from sessionlens.gui.lineage.model import KIND_COLORS
from sessionlens.gui.table_fit import fit_columns

if TYPE_CHECKING:
    from sessionlens.engine import DriftReport, SummaryPoint

NESTED = "#d64541"


class DriftView(QWidget):
    """Plot plus lists for one DriftReport."""

    open_requested = Signal(object, object)   # Path, compaction entry id
    point_selected = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.report: DriftReport | None = None
        self.selected = -1
        self.plot = pg.PlotWidget()
        self.plot.setMinimumHeight(180)
        self.plot.showGrid(x=False, y=True, alpha=0.15)
        self.plot.setLabel("left", self.tr("summary tokens (est.)"))
        self.plot.setLabel("bottom", self.tr("compaction, in chain order"))
        self.plot.getPlotItem().getViewBox().setMouseEnabled(x=True, y=False)
        # the legend sits above the plot in a margin of its own: inside, it covered a bar label
        self.legend = self.plot.addLegend(labelTextSize="8pt", colCount=2)
        self.legend.setParentItem(self.plot.getPlotItem())
        self.legend.anchor(itemPos=(0, 0), parentPos=(0, 0), offset=(60, 0))
        self.bars = pg.BarGraphItem(x=[], height=[], width=0.6)
        self.nested_bars = pg.BarGraphItem(x=[], height=[], width=0.6)
        self.marker = pg.InfiniteLine(angle=90, movable=False)
        self.labels: list[pg.TextItem] = []
        for item in (self.bars, self.nested_bars, self.marker):
            self.plot.addItem(item)
        self.legend.addItem(self.bars, self.tr("summary"))
        self.legend.addItem(self.nested_bars, self.tr("summary nesting an older one"))
        row_h = max(label.boundingRect().height() for _s, label in self.legend.items)
        self.plot.getPlotItem().layout.setContentsMargins(0, row_h + 6, 0, 0)
        self.marker.setVisible(False)
        self.plot.scene().sigMouseClicked.connect(self._on_plot_click)
        self.headline = QLabel()
        self.headline.setWordWrap(True)
        self.sections = QTreeWidget()
        self.sections.setHeaderLabels([self.tr("Repeated section"), self.tr("Copies"),
                                       self.tr("Repeated in summaries")])
        self.sections.setRootIsDecorated(False)
        self.identifiers = QTreeWidget()
        self.identifiers.setHeaderLabels([self.tr("Identifier"), self.tr("Class"),
                                          self.tr("Change")])
        for tree in (self.sections, self.identifiers):
            fit_columns(tree, 0)
        self.identifiers.itemDoubleClicked.connect(lambda *_: self._open_selected())
        lists = QSplitter(Qt.Orientation.Horizontal)
        lists.addWidget(self.sections)
        lists.addWidget(self.identifiers)
        lists.setSizes([320, 520])
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.plot)
        split.addWidget(lists)
        split.setSizes([300, 220])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.headline)
        layout.addWidget(split, 1)
        self.apply_theme(False)

    def apply_theme(self, dark: bool) -> None:
        c = colors.chart_colors(dark)
        self.plot.setBackground(c["bg"])
        for axis in ("left", "bottom"):
            self.plot.getAxis(axis).setPen(c["ticks"])
            self.plot.getAxis(axis).setTextPen(c["fg"])
        self.bars.setOpts(brush=KIND_COLORS["compaction"], pen=None)
        self.nested_bars.setOpts(brush=NESTED, pen=None)
        self._fg = c["fg"]
        self.marker.setPen(pg.mkPen(c["cut"], width=1, style=Qt.PenStyle.DashLine))

    # feeding --------------------------------------------------------------------------------
    def set_report(self, report: DriftReport | None) -> None:
        self.report = report
        points = report.points if report is not None else ()
        plain = [p for p in points if not p.repeated_headings]
        nested = [p for p in points if p.repeated_headings]
        self.bars.setOpts(x=[p.index + 1 for p in plain], height=[p.tokens for p in plain])
        self.nested_bars.setOpts(x=[p.index + 1 for p in nested],
                                 height=[p.tokens for p in nested])
        for label in self.labels:
            self.plot.removeItem(label)
        self.labels = []
        for p in points:  # size and identifier churn above each bar
            text = f"{p.chars:,} ch"
            if p.index:
                text += f"\n+{len(p.appeared)} / −{len(p.disappeared)} ids"
            label = pg.TextItem(text, color=self._fg, anchor=(0.5, 1.0))
            label.setPos(p.index + 1, p.tokens)
            self.plot.addItem(label)
            self.labels.append(label)
        self.plot.getAxis("bottom").setTicks([[(p.index + 1, str(p.index + 1))
                                               for p in points]])
        if points:
            self.plot.setXRange(0.3, len(points) + 0.7, padding=0)
            top = max(p.tokens for p in points)
            self.plot.setYRange(0, top * 1.3 or 1, padding=0)
        self._fill_sections()
        self._headline()
        self.select_point(len(points) - 1 if points else -1)

    def _headline(self) -> None:
        r = self.report
        if r is None or not r.points:
            self.headline.setText(self.tr("No compactions along this chain yet."))
            return
        growth = r.total_growth
        self.headline.setText(
            self.tr("%1 compactions · last summary %2 chars (%3 of the first) · %4 repeated "
                    "sections · %5 identifiers lost for good")
            .replace("%1", str(len(r.points))).replace("%2", f"{r.points[-1].chars:,}")
            .replace("%3", f"{growth:.0%}" if growth is not None else "—")
            .replace("%4", str(len(r.repeated_sections)))
            .replace("%5", str(len(r.lost_identifiers))))

    def _fill_sections(self) -> None:
        self.sections.clear()
        if self.report is None:
            return
        for s in self.report.repeated_sections:
            where = ", ".join(str(i + 1) for i in s.repeated_in)
            item = QTreeWidgetItem([s.heading, str(s.max_copies), where])
            item.setToolTip(2, where)
            self.sections.addTopLevelItem(item)
        for col in range(2):
            self.sections.resizeColumnToContents(col)

    def select_point(self, index: int) -> None:
        """Show what changed at compaction ``index`` (and what the chain lost overall)."""
        self.selected = index
        self.identifiers.clear()
        r = self.report
        if r is None or not 0 <= index < len(r.points):
            self.marker.setVisible(False)
            return
        p = r.points[index]
        self.marker.setValue(index + 1)
        self.marker.setVisible(True)
        head = QTreeWidgetItem([self.tr("At compaction %1 (%2 chars, %3)").replace(
            "%1", str(index + 1)).replace("%2", f"{p.chars:,}").replace(
            "%3", self.tr("growth ×%1").replace("%1", f"{p.growth:.2f}")
            if p.growth is not None else self.tr("first"))])
        self.identifiers.addTopLevelItem(head)
        for label, idents in ((self.tr("appeared"), p.appeared),
                              (self.tr("disappeared"), p.disappeared),
                              (self.tr("came back"), p.reappeared)):
            for ident in idents:
                head.addChild(QTreeWidgetItem([ident.value, ident.cls, label]))
        lost = QTreeWidgetItem([self.tr("Lost along the chain (never came back)")])
        self.identifiers.addTopLevelItem(lost)
        for t in r.lost_identifiers:
            at = ", ".join(str(i + 1) for i in t.lost_at)
            lost.addChild(QTreeWidgetItem([t.value, t.cls, self.tr("lost at %1").replace(
                "%1", at)]))
        head.setExpanded(True)
        lost.setExpanded(True)
        self.identifiers.resizeColumnToContents(0)
        self.point_selected.emit(index)

    def point(self, index: int) -> SummaryPoint | None:
        r = self.report
        return r.points[index] if r is not None and 0 <= index < len(r.points) else None

    def _open_selected(self) -> None:
        p = self.point(self.selected)
        if p is not None:
            self.open_requested.emit(p.path, p.compaction_id)

    def _on_plot_click(self, event: Any) -> None:
        if self.report is None or not self.report.points:
            return
        pos = self.plot.getPlotItem().getViewBox().mapSceneToView(event.scenePos())
        index = round(pos.x()) - 1
        if 0 <= index < len(self.report.points):
            self.select_point(index)
            if event.double():
                self._open_selected()
