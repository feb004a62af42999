"""Compare two points of the lineage: which entries were removed, added or summarized.

The user picks A and B among the points that have a file (two checkpoints, a checkpoint and
the current state, two transcripts of the chain, a compaction point); the engine's
``compare_points`` decides what changed, this view lists it. Double-click an entry to open
it where it lives (A for removed/summarized, B for added).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTabWidget,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from sessionlens.gui.icons import icon
from sessionlens.gui.lineage.model import LineageNodesModel
from sessionlens.gui.roles import ItemRole

if TYPE_CHECKING:
    from sessionlens.engine import DiffEntry, Lineage, LineageNode
    from sessionlens.gui.lineage.controller import CompareResult


class LineageCompareView(QWidget):
    """Two point pickers, a Compare button, and the three lists."""

    compare_requested = Signal(object, object)   # LineageNode, LineageNode
    open_requested = Signal(object, object)      # Path, entry id

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.points = LineageNodesModel(self)
        self.a = QComboBox()
        self.b = QComboBox()
        for combo in (self.a, self.b):
            combo.setModel(self.points)
            combo.setModelColumn(0)
            combo.setMinimumContentsLength(16)
            combo.setSizeAdjustPolicy(
                QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.run = QPushButton(self.tr("Compare"))
        self.run.clicked.connect(self._on_compare)
        self.result_label = QLabel()
        self.result_label.setWordWrap(True)
        self.lists = QTabWidget()
        self.removed = self._list()
        self.added = self._list()
        self.summarized = self._list()
        for w, title in ((self.summarized, "Summarized"), (self.removed, "Removed"),
                         (self.added, "Added")):
            self.lists.addTab(w, self.tr(title))
        form = QFormLayout()
        form.addRow(self.tr("From (A)"), self.a)
        form.addRow(self.tr("To (B)"), self.b)
        row = QHBoxLayout()
        row.addLayout(form, 1)
        row.addWidget(self.run)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(row)
        layout.addWidget(self.result_label)
        layout.addWidget(self.lists, 1)
        self._result: CompareResult | None = None

    def _list(self) -> QTreeWidget:
        w = QTreeWidget()
        w.setHeaderLabels([self.tr("Entry"), self.tr("Id"), self.tr("Now covered by")])
        w.setRootIsDecorated(False)
        w.setColumnWidth(0, 520)
        w.itemDoubleClicked.connect(lambda item, _c, w=w: self._open(w, item))
        return w

    def set_lineage(self, lineage: Lineage | None) -> None:
        keep_a, keep_b = self.node_a(), self.node_b()
        self.points.set_lineage(lineage, openable_only=True)
        n = self.points.rowCount()
        # defaults: the oldest point against the newest transcript
        self.a.setCurrentIndex(self.points.row_of(keep_a.key) if keep_a else 0)
        transcripts = [i for i in range(n) if self.points.node(i).kind == "transcript"]
        default_b = transcripts[-1] if transcripts else n - 1
        self.b.setCurrentIndex(self.points.row_of(keep_b.key) if keep_b else default_b)
        self.run.setEnabled(n > 0)

    def node_a(self) -> LineageNode | None:
        return self.a.currentData(ItemRole) if self.a.currentIndex() >= 0 else None

    def node_b(self) -> LineageNode | None:
        return self.b.currentData(ItemRole) if self.b.currentIndex() >= 0 else None

    def set_points(self, a_key: str | None, b_key: str | None) -> None:
        if a_key:
            self.a.setCurrentIndex(self.points.row_of(a_key))
        if b_key:
            self.b.setCurrentIndex(self.points.row_of(b_key))

    def _on_compare(self) -> None:
        a, b = self.node_a(), self.node_b()
        if a is not None and b is not None:
            self.result_label.setText(self.tr("Comparing…"))
            self.compare_requested.emit(a, b)

    def show_result(self, result: CompareResult) -> None:
        self._result = result
        d = result.diff
        self.result_label.setText(
            self.tr("%1 → %2: %3 summarized, %4 removed, %5 added, %6 kept; %7 new "
                    "compactions").replace("%1", result.a.title).replace("%2", result.b.title)
            .replace("%3", str(len(d.summarized))).replace("%4", str(len(d.removed)))
            .replace("%5", str(len(d.added))).replace("%6", str(d.kept))
            .replace("%7", str(len(d.new_compactions))))
        for w, entries, title in ((self.summarized, d.summarized, "Summarized"),
                                  (self.removed, d.removed, "Removed"),
                                  (self.added, d.added, "Added")):
            self._fill(w, entries, result)
            self.lists.setTabText(self.lists.indexOf(w),
                                  f"{self.tr(title)} ({len(entries)})")

    def _fill(self, w: QTreeWidget, entries: tuple[DiffEntry, ...],
              result: CompareResult) -> None:
        w.clear()
        items = []
        for e in entries:
            row = result.rows.get(e.entry_id)
            text = f"{row.title}: {row.preview}" if row is not None else e.type
            covered = e.compaction_id or ""
            if e.in_file:
                covered += " " + self.tr("(still in the file)")
            item = QTreeWidgetItem([text, e.entry_id, covered])
            if row is not None:
                item.setIcon(0, icon(row.icon_key))
            item.setData(0, ItemRole, e)
            items.append(item)
        w.addTopLevelItems(items)

    def _open(self, w: QTreeWidget, item: QTreeWidgetItem) -> None:
        if self._result is None:
            return
        side = self._result.b if w is self.added else self._result.a
        entry = item.data(0, ItemRole)
        if side.path is not None and entry is not None:
            self.open_requested.emit(side.path, entry.entry_id)

    def list_ids(self, which: str) -> list[str]:
        """Entry ids shown in one list ("removed", "added" or "summarized")."""
        w = {"removed": self.removed, "added": self.added, "summarized": self.summarized}[which]
        items = (w.topLevelItem(i) for i in range(w.topLevelItemCount()))
        return [item.text(1) for item in items if item is not None]
