"""The Lineage panel: graph of the chain, branches of the open file, drift, compare, restore.

Lays out and wires the lineage views around the injected ``LineageController``; holds no
domain logic (every fact is the engine's). Restore asks for confirmation through
``confirm_restore`` (a dialog by default; tests inject their own answer).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QLabel,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QTabWidget,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from sessionlens.gui.colors import is_dark
from sessionlens.gui.icons import icon
from sessionlens.gui.lineage.model import node_detail

from .branch_tree import BranchTreeView
from .compare import LineageCompareView
from .drift_view import DriftView
from .graph import LineageGraphView
from .restore_dialog import RestoreDialog

if TYPE_CHECKING:
    from sessionlens.engine import LineageNode, RestorePlan, WriteResult
    from sessionlens.gui.lineage.controller import CompareResult, LineageController, LineageResult

ConfirmRestore = Callable[["LineageNode", "RestorePlan | str", QWidget], bool]


def ask_restore(node: LineageNode, plan: RestorePlan | str, parent: QWidget) -> bool:
    """The dialog on the engine's dry run (or on why the restore cannot be done)."""
    return RestoreDialog(node, plan, parent).exec() == QDialog.DialogCode.Accepted


class LineagePanel(QWidget):
    """Tabs: Graph | Branches | Drift | Compare, with the point actions above them."""

    def __init__(self, controller: LineageController, *,
                 confirm_restore: ConfirmRestore = ask_restore,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._c = controller
        #: Asked before a restore writes (replaceable: tests answer it themselves).
        self.confirm_restore = confirm_restore
        self.graph = LineageGraphView()
        self.details = QLabel(self.tr("Open a transcript to see its lineage."))
        self.details.setWordWrap(True)
        self.branches = BranchTreeView()
        self.drift = DriftView()
        self.compare = LineageCompareView()
        self.refresh_button = QPushButton(icon("action-reload"), self.tr("Refresh"))
        self.inherited = QCheckBox(self.tr("Inherited compactions"))
        self.inherited.setToolTip(self.tr("Also draw the compactions a successor copied from "
                                          "its predecessor"))
        self.open_button = QPushButton(icon("action-open"), self.tr("Open here"))
        self.restore_button = QPushButton(self.tr("Restore / branch…"))
        self.undo_button = QPushButton(self.tr("Undo this compaction…"))
        self.undo_button.setToolTip(self.tr("Go back to the checkpoint SessionLens took before "
                                            "writing this compaction; sessions.json follows"))
        self.set_a = QPushButton(self.tr("Compare from"))
        self.set_b = QPushButton(self.tr("… to"))
        self.status = QLabel()
        # a tool bar folds what does not fit into its overflow menu, so the panel never
        # forces the window wider; the status line below may be cut, never the window
        bar = QToolBar()
        bar.setIconSize(bar.iconSize() * 0.75)
        for w in (self.refresh_button, self.inherited, self.open_button, self.restore_button,
                  self.undo_button, self.set_a, self.set_b):
            bar.addWidget(w)
        self.status.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        graph_tab = QSplitter(Qt.Orientation.Vertical)
        graph_tab.addWidget(self.graph)
        graph_tab.addWidget(self.details)
        graph_tab.setSizes([420, 40])
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(graph_tab, self.tr("Graph"))
        self.tabs.addTab(self.branches, self.tr("Branches in this file"))
        self.tabs.addTab(self.drift, self.tr("Drift"))
        self.tabs.addTab(self.compare, self.tr("Compare points"))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addWidget(bar)
        layout.addWidget(self.status)
        layout.addWidget(self.tabs, 1)
        self._wire()
        self._on_selected("")

    def _wire(self) -> None:
        c = self._c
        c.lineage_ready.connect(self._on_lineage)
        c.outline_ready.connect(self.branches.set_outline)
        c.compare_ready.connect(self._on_compared)
        c.restored.connect(self._on_restored)
        c.restore_ready.connect(self._on_restore_ready)
        c.failed.connect(self.status.setText)
        c.busy_changed.connect(lambda busy: self.status.setText(
            self.tr("Reading the chain…") if busy else self.status.text()))
        self.refresh_button.clicked.connect(c.refresh)
        self.inherited.toggled.connect(self.graph.set_show_inherited)
        self.graph.node_selected.connect(self._on_selected)
        for view in (self.graph, self.drift, self.compare):
            view.open_requested.connect(c.open_at)
        self.compare.compare_requested.connect(c.compare)
        self.open_button.clicked.connect(lambda: self.graph.activate(self.graph.selected_key()))
        self.restore_button.clicked.connect(self.restore_selected)
        self.undo_button.clicked.connect(self.undo_selected)
        c.undo.undone.connect(self._on_restored)
        c.undo.failed.connect(self.status.setText)
        self.set_a.clicked.connect(lambda: self._pick(True))
        self.set_b.clicked.connect(lambda: self._pick(False))

    def changeEvent(self, event: QEvent) -> None:
        """Follow a theme switch (the palette changes) without the window telling us."""
        if event.type() == QEvent.Type.PaletteChange:
            dark = is_dark(self.palette())
            if dark != self.graph.dark:
                self.graph.set_dark(dark)
                self.drift.apply_theme(dark)
        super().changeEvent(event)

    # lineage ---------------------------------------------------------------------------------
    def _on_lineage(self, result: LineageResult) -> None:
        self.graph.set_lineage(result.lineage, self._c.current_path)
        self.drift.set_report(result.drift)
        self.compare.set_lineage(result.lineage)
        lin = result.lineage
        self.status.setText(self.tr("%1 transcripts · %2 checkpoints · %3 archives · %4 "
                                    "compactions").replace(
            "%1", str(len(lin.of_kind("transcript")))).replace(
            "%2", str(len(lin.of_kind("checkpoint")))).replace(
            "%3", str(len(lin.of_kind("archive")))).replace(
            "%4", str(sum(not n.inherited for n in lin.of_kind("compaction"))))
            + (self.tr(" · %1 warnings").replace("%1", str(len(lin.diagnostics)))
               if lin.diagnostics else ""))
        if lin.diagnostics:
            self.status.setToolTip("\n".join(str(d) for d in lin.diagnostics))

    def selected_node(self) -> LineageNode | None:
        key = self.graph.selected_key()
        item = self.graph.items_by_key.get(key)
        return item.node if item is not None else None

    def _on_selected(self, key: str) -> None:
        node = self.selected_node()
        openable = node is not None and node.path is not None and node.exists
        self.open_button.setEnabled(openable)
        self.set_a.setEnabled(openable)
        self.set_b.setEnabled(openable)
        self.restore_button.setEnabled(openable and node is not None
                                       and node.kind in ("checkpoint", "transcript", "archive"))
        self.undo_button.setEnabled(openable and node is not None and node.kind == "compaction"
                                    and not node.inherited)
        if node is None:
            self.details.setText(self.tr("Select a point; double-click opens it there."))
            return
        where = str(node.path) if node.path else self.tr("(no file)")
        at = self.tr(" at entry %1").replace("%1", node.entry_id) if node.entry_id else ""
        self.details.setText(f"<b>{node.title}</b> — {node_detail(node)}<br>{where}{at}")

    def _pick(self, first: bool) -> None:
        key = self.graph.selected_key()
        if first:
            self.compare.set_points(key, None)
        else:
            self.compare.set_points(None, key)
            self.tabs.setCurrentWidget(self.compare)

    def _on_compared(self, result: CompareResult) -> None:
        self.compare.show_result(result)
        self.tabs.setCurrentWidget(self.compare)

    # restore ---------------------------------------------------------------------------------
    def restore_selected(self) -> None:
        """Load the source on the pool; the confirmation follows in ``_on_restore_ready``."""
        node = self.selected_node()
        if node is not None and node.path is not None:
            self.status.setText(self.tr("Reading %1…").replace("%1", node.path.name))
            self._c.prepare_restore(node)

    def undo_selected(self) -> None:
        """Undo the selected compaction (the engine's dry run is confirmed first)."""
        node = self.selected_node()
        if node is not None and node.path is not None and node.kind == "compaction":
            self.status.setText(self.tr("Planning the undo of %1…").replace("%1", node.title))
            self._c.undo.request(node.path, node.entry_id, self)

    def _on_restore_ready(self, node: LineageNode, plan: RestorePlan | str) -> None:
        if self.confirm_restore(node, plan, self) and not isinstance(plan, str):
            self.status.setText(self.tr("Writing…"))
            self._c.restore(node)
        else:
            self.status.setText(self.tr("Nothing written."))

    def _on_restored(self, result: WriteResult) -> None:
        written = ", ".join(str(p) for p in result.written)
        self.status.setText(self.tr("Wrote %1 — double-click it in the graph to open it.")
                            .replace("%1", written))
        self.status.setToolTip(written)
