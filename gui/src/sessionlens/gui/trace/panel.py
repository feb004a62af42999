"""The Trace tab: where a fact first appeared, who mentioned it, which compaction lost it.

Shows the engine's ``FactTrace`` as it is: the ``describe_trace`` sentence, every mention
(activating one selects its entry, opening its file first when it is another file of the
chain) and, per compaction in chain order, whether the summary or the kept tail carried it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

if TYPE_CHECKING:
    from sessionlens.gui.trace.controller import TraceAnswer, TraceController

#: Status colours: kept green, dropped red, absent grey (the audit panel's colours).
STATUS_COLORS = {"kept": "#1a7f37", "dropped": "#cf222e", "absent": "#6e7781"}
#: The widest a column other than the last may be (px); the last takes the rest.
COLUMN_CAP = 170
#: The path and entry id of a row, for activation.
_TARGET = Qt.ItemDataRole.UserRole + 21


def _table(headers: list[str]) -> QTableWidget:
    table = QTableWidget(0, len(headers))
    table.setHorizontalHeaderLabels(headers)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.verticalHeader().setVisible(False)
    table.setAlternatingRowColors(True)
    table.setWordWrap(False)
    header = table.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    header.setStretchLastSection(True)
    return table


def fit_leading_columns(table: QTableWidget) -> None:
    """Every column but the last fits its content up to ``COLUMN_CAP`` px (the full value is
    the tooltip), so the last one (the mention's text) keeps the room: a successor's file
    name alone once left the Text column a few characters wide."""
    table.resizeColumnsToContents()
    for col in range(table.columnCount() - 1):
        table.setColumnWidth(col, min(table.columnWidth(col), COLUMN_CAP))


class TracePanel(QWidget):
    """Query box, the verdict, mentions and what each compaction did."""

    #: (file path, entry id) to show.
    entry_activated = Signal(str, str)

    def __init__(self, controller: TraceController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.c = controller
        self.query = QLineEdit()
        self.query.setPlaceholderText(self.tr("Text or identifier to follow (a path, an error, "
                                              "an id, any words)"))
        self.query.returnPressed.connect(self.run)
        self.button = QPushButton(self.tr("Trace"))
        self.button.clicked.connect(self.run)
        self.verdict = QLabel(self.tr("Type a fact and press Trace, or right-click selected "
                                      "text in a message, or a dropped item in the Audit tab."))
        self.verdict.setWordWrap(True)
        self.verdict.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.mentions = _table([self.tr("File"), self.tr("Line"), self.tr("Entry"),
                                self.tr("Time"), self.tr("Role"), self.tr("Text")])
        self.compactions = _table([self.tr("#"), self.tr("Compaction"), self.tr("File"),
                                   self.tr("Time"), self.tr("Status"), self.tr("Kept by")])
        for table in (self.mentions, self.compactions):
            table.cellActivated.connect(lambda r, _c, t=table: self._activate(t, r))
            table.cellClicked.connect(lambda r, _c, t=table: self._activate(t, r))
        self.mentions_box = QGroupBox(self.tr("Mentions (click to show the entry)"))
        QVBoxLayout(self.mentions_box).addWidget(self.mentions)
        self.compactions_box = QGroupBox(self.tr("Compactions along the chain, oldest first"))
        QVBoxLayout(self.compactions_box).addWidget(self.compactions)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.compactions_box)
        split.addWidget(self.mentions_box)
        split.setSizes([220, 280])
        row = QHBoxLayout()
        row.addWidget(self.query, 1)
        row.addWidget(self.button)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(self.verdict)
        layout.addWidget(split, 1)
        controller.started.connect(self._on_started)
        controller.ready.connect(self.show_answer)
        controller.failed.connect(self.verdict.setText)

    # public -----------------------------------------------------------------------------------
    def trace(self, text: str) -> None:
        """Trace ``text`` as if typed (the context menus call this)."""
        self.query.setText(text.strip())
        self.run()

    def run(self) -> None:
        self.c.trace(self.query.text())

    def show_answer(self, answer: TraceAnswer) -> None:
        trace = answer.trace
        lost = trace.lost_at
        color = STATUS_COLORS["dropped"] if lost is not None else STATUS_COLORS["kept"]
        text = f'<b style="color:{color};">{answer.verdict}</b>'
        if trace.cls:
            text += "<br><small>" + self.tr("matched as a %1").replace("%1", trace.cls) + "</small>"
        for w in answer.warnings:
            text += f"<br><small>⚠ {w}</small>"
        self.verdict.setTextFormat(Qt.TextFormat.RichText)
        self.verdict.setText(text)
        self.compactions.setRowCount(len(trace.compactions))
        for r, c in enumerate(trace.compactions):
            how = (self.tr("summary") if c.in_summary else self.tr("kept tail")
                   if c.in_kept_tail else "—")
            status = c.status + (self.tr("  ← lost here") if lost is c else "")
            cells = [str(c.number), c.compaction_id + ("" if c.on_active_path
                                                       else self.tr(" (side branch)")),
                     c.path.name, (c.timestamp or "").replace("T", " ")[:16], status, how]
            self._fill(self.compactions, r, cells, (str(c.path), c.compaction_id),
                       STATUS_COLORS[c.status])
        self.mentions.setRowCount(len(trace.mentions))
        for r, m in enumerate(trace.mentions):
            cells = [m.path.name, str(m.line), m.entry_id, (m.timestamp or "").replace("T", " ")[:16],
                     m.role + ("" if m.on_active_path else self.tr(" (side branch)")), m.snippet]
            self._fill(self.mentions, r, cells, (str(m.path), m.entry_id), None)
        self.compactions_box.setTitle(self.tr("Compactions along the chain, oldest first: %1")
                                      .replace("%1", str(len(trace.compactions))))
        self.mentions_box.setTitle(self.tr("Mentions: %1 (click to show the entry)")
                                   .replace("%1", str(len(trace.mentions))))
        for table in (self.mentions, self.compactions):
            fit_leading_columns(table)

    def statuses(self) -> list[str]:
        """The status column, top to bottom (what a reader sees; tests read it)."""
        items = [self.compactions.item(r, 4) for r in range(self.compactions.rowCount())]
        return [item.text().split()[0] if item is not None else "" for item in items]

    # internals --------------------------------------------------------------------------------
    def _on_started(self, query: str) -> None:
        self.verdict.setTextFormat(Qt.TextFormat.PlainText)
        self.verdict.setText(self.tr("Tracing %1 through the chain…").replace("%1", repr(query)))

    @staticmethod
    def _fill(table: QTableWidget, row: int, cells: list[str], target: tuple[str, str],
              color: str | None) -> None:
        for col, value in enumerate(cells):
            item = QTableWidgetItem(value)
            item.setData(_TARGET, target)
            item.setToolTip(value)
            if color is not None and col == 4:
                item.setForeground(QColor(color))
            table.setItem(row, col, item)

    def _activate(self, table: QTableWidget, row: int) -> None:
        item = table.item(row, 0)
        target = item.data(_TARGET) if item is not None else None
        if target:
            self.entry_activated.emit(target[0], target[1])
