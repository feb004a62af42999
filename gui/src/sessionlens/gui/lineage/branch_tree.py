"""Branches inside the open file: the entry tree with side branches folded.

The timeline's tree mode lists every entry with its depth; this view is the outline
companion: the active path runs down the top level (bold), every branch point (marked
"[N branches here]") holds its side branches as folds that expand, and each fold shows its
size, label and the branch summary pi wrote when the user left it. Entry titles come from
the timeline's own rows (``timeline_rows.build_rows``), so both views describe an entry the
same way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QModelIndex, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from sessionlens.gui.lineage.model import BranchOutlineModel
from sessionlens.gui.roles import ItemRole

if TYPE_CHECKING:
    from sessionlens.gui.lineage.controller import OutlineResult


class BranchTreeView(QWidget):
    """QTreeView over BranchOutlineModel; emits the entry the user picked."""

    entry_activated = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = BranchOutlineModel(self)
        self.tree = QTreeView()
        self.tree.setModel(self.model)
        self.tree.setUniformRowHeights(True)
        self.tree.setAlternatingRowColors(True)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.tree.clicked.connect(self._on_clicked)
        self.tree.activated.connect(self._on_clicked)
        self.summary = QLabel()
        self.expand_all = QCheckBox(self.tr("Expand every branch"))
        self.expand_all.toggled.connect(self._on_expand_toggled)
        top = QHBoxLayout()
        top.addWidget(self.summary, 1)
        top.addWidget(self.expand_all)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addWidget(self.tree, 1)

    def set_outline(self, result: OutlineResult | None) -> None:
        if result is None:
            self.model.set_outline(None, {})
            self.summary.setText("")
            return
        self.model.set_outline(result.outline, result.rows)
        o = result.outline
        side = sum(b.parent >= 0 for b in o.branches)
        self.summary.setText(
            self.tr("%1 entries · %2 on the active path · %3 branch points · %4 side "
                    "branches · %5 other roots")
            .replace("%1", f"{len(result.transcript.entries):,}")
            .replace("%2", f"{len(result.transcript.active_path):,}")
            .replace("%3", str(len(o.branch_points))).replace("%4", str(side))
            .replace("%5", str(len(o.branches) - side)))
        self.tree.setColumnWidth(0, 520)
        if self.expand_all.isChecked():
            self.tree.expandAll()

    def _on_expand_toggled(self, on: bool) -> None:
        if on:
            self.tree.expandAll()
        else:
            self.tree.collapseAll()

    def _on_clicked(self, index: QModelIndex) -> None:
        node = index.data(ItemRole)
        if node is not None and node.kind == "entry":
            self.entry_activated.emit(node.entry_id)

    def show_entry(self, entry_id: str) -> None:
        """Select and reveal ``entry_id`` (folds on the way are opened)."""
        index = self.model.index_of_entry(entry_id)
        if not index.isValid():
            return
        parent = index.parent()
        while parent.isValid():
            self.tree.expand(parent)
            parent = parent.parent()
        self.tree.setCurrentIndex(index)
        self.tree.scrollTo(index)
