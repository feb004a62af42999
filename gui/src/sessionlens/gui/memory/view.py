"""The Memory tab: every compaction of the session, worst first, with why it is suspect.

Shows the engine's ``MemoryHealth`` as it is (``model.HealthModel``). Selecting a row asks
for that compaction to be selected in the timeline; "Open audit" (or double-click, or
Enter) asks for its audit in the Audit tab.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QItemSelection, QPoint, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMenu,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from sessionlens.gui.table_fit import fit_columns

from .journal_view import JournalView
from .model import COLUMNS, SEVERITY_COLORS, HealthModel, HealthRole

#: The coverage column wraps at this width (seven classes would not fit on one line).

if TYPE_CHECKING:
    from sessionlens.engine import CompactionHealth, MemoryHealth


#: Room for two or three classes a line (the cell wraps between them).
COVERAGE_WIDTH = 180
FLAGS_WIDTH = 160


class MemoryPanel(QWidget):
    """The memory-health table with its summary line and the row actions."""

    #: The user picked a row: select this compaction in the timeline.
    compaction_selected = Signal(str)
    #: Show this compaction's audit (the Audit tab).
    audit_requested = Signal(str)
    #: compaction id: undo it (the lineage view's undo plans, confirms and restores)
    undo_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.health: MemoryHealth | None = None
        self.summary = QLabel(self.tr("No session open."))
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.model = HealthModel(self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(True)
        self.table.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        # the last column takes the spare room, the rest fit their content, and the table
        # is never narrower than its header texts
        fit_columns(self.table, stretch=COLUMNS.index("flush"))
        # coverage wraps between classes: a fixed width at least as wide as its header
        coverage = COLUMNS.index("coverage")
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(coverage, QHeaderView.ResizeMode.Interactive)
        header.resizeSection(coverage, max(COVERAGE_WIDTH, header.sectionSizeHint(coverage)))
        flags = COLUMNS.index("flags")  # wraps too: one flag a line, long ones on two
        header.setSectionResizeMode(flags, QHeaderView.ResizeMode.Interactive)
        header.resizeSection(flags, max(FLAGS_WIDTH, header.sectionSizeHint(flags)))
        self.table.verticalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.ResizeToContents)
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.table.customContextMenuRequested.connect(self._menu)
        self.table.selectionModel().selectionChanged.connect(self._on_selection)
        self.table.activated.connect(lambda i: self._request_audit(i.row()))
        self.table.doubleClicked.connect(lambda i: self._request_audit(i.row()))
        self.open_audit = QPushButton(self.tr("Open audit"))
        self.open_audit.setToolTip(self.tr("Show the selected compaction's audit: what it "
                                           "kept, what it dropped, the recovery pack"))
        self.open_audit.setEnabled(False)
        self.open_audit.clicked.connect(lambda: self._request_audit(self._current_row()))
        self.undo = QPushButton(self.tr("Undo this compaction…"))
        self.undo.setToolTip(self.tr("Go back to the checkpoint SessionLens took before it "
                                     "wrote this compaction (and repoint sessions.json); "
                                     "compactions the agent wrote have no checkpoint"))
        self.undo.setEnabled(False)
        self.undo.clicked.connect(lambda: self._request_undo(self._current_row()))
        self.details = QLabel()
        self.details.setWordWrap(True)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.details.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        top = QHBoxLayout()
        top.addWidget(self.summary, 1)
        top.addWidget(self.open_audit, 0, Qt.AlignmentFlag.AlignTop)
        top.addWidget(self.undo, 0, Qt.AlignmentFlag.AlignTop)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.details)
        self.journal = JournalView()
        layout.addWidget(self.journal)

    # public -----------------------------------------------------------------------------------
    def clear(self, text: str) -> None:
        self.health = None
        self.model.set_health(None)
        self.summary.setText(text)
        self.details.clear()
        self.open_audit.setEnabled(False)
        self.undo.setEnabled(False)

    def set_health(self, health: MemoryHealth) -> None:
        """Fill the table from the engine's health (already worst first)."""
        self.health = health
        self.model.set_health(health)
        rows = health.compactions
        guard = f"<br><small>{health.size_guard}</small>" if health.size_guard else ""
        if not rows:
            self.summary.setText(self.tr("This transcript holds no compaction: nothing was "
                                         "forgotten by summarizing yet.") + guard)
        else:
            counts = {s: sum(r.severity == s for r in rows) for s in SEVERITY_COLORS}
            parts = [f'<b style="color:{SEVERITY_COLORS[s]};">{n} {self.tr(s)}</b>'
                     for s, n in counts.items() if n]
            lost = sum("total-loss" in r.flags for r in rows)
            text = self.tr("%1 compaction(s), worst first: %2").replace(
                "%1", str(len(rows))).replace("%2", ", ".join(parts))
            if lost:
                text += " · " + self.tr("<b>%1 lost everything they replaced</b> (fallback "
                                        "placeholder)").replace("%1", str(lost))
            if health.soft_threshold is not None:
                where = health.flush_record or self.tr("%1 flush turn(s) in the file").replace(
                    "%1", str(len(health.flush_turn_ids)))
                text += "<br><small>" + self.tr(
                    "memory flush runs at ~%1 tokens (%2 below the threshold %3); %4").replace(
                    "%1", f"{health.soft_threshold:,}").replace(
                    "%2", f"{health.soft_threshold_tokens:,}").replace(
                    "%3", f"{health.compaction_threshold:,}").replace("%4", where) + "</small>"
            self.summary.setText(text + guard)
        self.table.resizeRowsToContents()
        self.details.clear()
        self.open_audit.setEnabled(False)
        self.undo.setEnabled(False)

    def select_compaction(self, compaction_id: str) -> None:
        """Highlight ``compaction_id``'s row (selected elsewhere: the timeline, the chart)."""
        row = self.model.row_of(compaction_id)
        if row < 0 or row == self._current_row():
            return
        self.table.selectRow(row)  # re-announcing the selected id is a no-op for the session

    # internals --------------------------------------------------------------------------------
    def _current_row(self) -> int:
        rows = self.table.selectionModel().selectedRows()
        return rows[0].row() if rows else -1

    def _on_selection(self, _sel: QItemSelection, _old: QItemSelection) -> None:
        row = self._current_row()
        self.open_audit.setEnabled(row >= 0)
        self.undo.setEnabled(row >= 0)
        if row < 0:
            return
        item = self.model.item(row)
        self._show_details(item)
        self.compaction_selected.emit(item.compaction_id)

    def _show_details(self, item: CompactionHealth) -> None:
        self.open_audit.setEnabled(True)
        self.undo.setEnabled(True)
        lines = [self.tr("Compaction %1 (#%2, line %3): %4").replace(
            "%1", item.compaction_id).replace("%2", str(item.number)).replace(
            "%3", str(item.line)).replace("%4", item.trigger_reason)]
        lines += [f"⚠ {d}" for d in item.flag_details]
        if item.flush_detail and not {"flush-missed", "flush-skipped"} & set(item.flags):
            lines.append(self.tr("memory flush: %1").replace("%1", item.flush_detail))
        self.details.setText("\n".join(lines))

    def _compaction_at(self, row: int) -> str | None:
        if 0 <= row < self.model.rowCount():
            return str(self.model.data(self.model.index(row, 0), HealthRole).compaction_id)
        return None

    def _request_audit(self, row: int) -> None:
        if (cid := self._compaction_at(row)) is not None:
            self.audit_requested.emit(cid)

    def _request_undo(self, row: int) -> None:
        if (cid := self._compaction_at(row)) is not None:
            self.undo_requested.emit(cid)

    def _menu(self, pos: QPoint) -> None:
        index = self.table.indexAt(pos)
        if not index.isValid():
            return
        menu = QMenu(self)
        menu.addAction(self.tr("Open audit"), lambda: self._request_audit(index.row()))
        menu.addAction(self.tr("Undo this compaction…"), lambda: self._request_undo(index.row()))
        menu.exec(self.table.viewport().mapToGlobal(pos))
