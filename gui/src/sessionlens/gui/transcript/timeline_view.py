"""The timeline: entries of the active path (or the whole tree) with search and filters.

Filtering and tree building happen on the task pool through the controller; this widget
only collects what the user typed (debounced) and shows the prepared rows.
"""

from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel, QModelIndex, QSize, QTimer
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from sessionlens.gui import shortcuts
from sessionlens.gui.icons import icon
from sessionlens.gui.roles import EntryIdRole
from sessionlens.gui.session_controller import SessionController, TokenView
from sessionlens.gui.transcript.timeline_model import TimelineModel
from sessionlens.gui.transcript.timeline_rows import RowFilter, TimelineRow

from .timeline_list import TimelineList

ROLES = ("user", "assistant", "toolResult", "bashExecution", "custom")
TYPES = ("message", "compaction", "branch_summary", "custom_message", "custom", "label",
         "session_info", "model_change", "thinking_level_change", "reset", "leaf")


class TimelineView(QWidget):
    """Search bar + list; selecting a row selects the entry in the controller."""

    def __init__(self, controller: SessionController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._c = controller
        self.model = TimelineModel(self)
        self.search = QLineEdit(placeholderText=self.tr("Search entries…"), clearButtonEnabled=True)
        self.search.setMinimumWidth(90)
        self.role_box = QComboBox()
        self.role_box.addItem(self.tr("All roles"), "")
        for r in ROLES:
            self.role_box.addItem(r, r)
        self.type_box = QComboBox()
        self.type_box.addItem(self.tr("All types"), "")
        for t in TYPES:
            self.type_box.addItem(t, t)
        for box in (self.role_box, self.type_box):  # sized to "All types", not the longest
            box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            box.setMinimumContentsLength(9)
            box.setIconSize(QSize(1, 1))  # the items have no icons: no room kept for one
        self.problems = QToolButton()
        self.problems.setCheckable(True)
        self.problems.setToolTip(self.tr("Only errors, aborted turns and overflows"))
        self.problems.setIcon(icon("mark-error"))
        self.tree_toggle = QToolButton()
        self.tree_toggle.setCheckable(True)
        self.tree_toggle.setToolTip(self.tr("Tree mode: every branch"))
        self.tree_toggle.setIcon(icon("action-tree"))
        self.tree_toggle.setShortcut(shortcuts.sequence(shortcuts.TREE_MODE))
        self.count = QLabel()
        self.list = TimelineList()
        self.list.setModel(self.model)
        self.list.setObjectName("timeline")

        bar = QHBoxLayout()
        bar.setContentsMargins(0, 0, 0, 0)
        bar.addWidget(self.search, 3)
        bar.addWidget(self.role_box, 1)
        bar.addWidget(self.type_box, 1)
        bar.addWidget(self.problems)
        bar.addWidget(self.tree_toggle)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addLayout(bar)
        lay.addWidget(self.list, 1)
        lay.addWidget(self.count)

        self._debounce = QTimer(self, singleShot=True, interval=180)
        self._debounce.timeout.connect(self._apply_filter)
        self.search.textChanged.connect(self._debounce.start)
        self.role_box.currentIndexChanged.connect(self._apply_filter)
        self.type_box.currentIndexChanged.connect(self._apply_filter)
        self.problems.toggled.connect(self._apply_filter)
        self.tree_toggle.toggled.connect(controller.set_tree_mode)
        self.list.selectionModel().currentChanged.connect(self._on_current)
        self.list.doubleClicked.connect(self._jump_to_pair)
        controller.rows_changed.connect(self._on_rows)
        controller.visible_changed.connect(self._on_visible)
        controller.tokens_ready.connect(self._on_tokens)
        controller.entry_selected.connect(self._show_entry)
        controller.loaded.connect(lambda _t: self.tree_toggle.setChecked(False))

    def current_filter(self) -> RowFilter:
        return RowFilter(self.search.text(), self.role_box.currentData() or "",
                         self.type_box.currentData() or "", self.problems.isChecked())

    def _apply_filter(self) -> None:
        self._c.set_filter(self.current_filter())

    def _on_rows(self, rows: tuple[TimelineRow, ...], visible: tuple[int, ...] | None) -> None:
        self.model.set_rows(rows, visible)
        if self._c.tokens is not None:
            self.model.set_tokens(self._c.tokens.report)
        self._update_count()
        if self._c.selected_id:
            self._show_entry(self._c.selected_id)

    def _on_visible(self, visible: tuple[int, ...] | None) -> None:
        self.model.set_visible(visible)
        self._update_count()
        if self._c.selected_id:
            self._show_entry(self._c.selected_id)

    def _update_count(self) -> None:
        shown, total = self.model.rowCount(), len(self.model.rows)
        text = self.tr("%1 entries").replace("%1", f"{total:,}") if shown == total else \
            self.tr("%1 of %2 entries").replace("%1", f"{shown:,}").replace("%2", f"{total:,}")
        self.count.setText(text)

    def _on_tokens(self, view: TokenView) -> None:
        self.model.set_tokens(view.report)
        self.list.viewport().update()

    def _on_current(self, current: QModelIndex, _prev: QModelIndex) -> None:
        eid = current.data(EntryIdRole)
        if eid:
            self._c.select(str(eid))

    def _show_entry(self, entry_id: str) -> None:
        row = self.model.row_of_entry(entry_id)
        if row is None:
            return
        idx = self.model.index(row)
        # decide before selecting: selecting scrolls just enough to show the row (at an edge)
        hidden = not self.list.viewport().rect().contains(self.list.visualRect(idx))
        if self.list.currentIndex() != idx:
            self.list.selectionModel().setCurrentIndex(
                idx, QItemSelectionModel.SelectionFlag.ClearAndSelect)
        if hidden:
            self.list.scrollTo(idx, QAbstractItemView.ScrollHint.PositionAtCenter)

    def _jump_to_pair(self, index: QModelIndex) -> None:
        """Double-click a tool result to jump to the call that asked for it."""
        row = self.model.row_at(index.row())
        if row.pair_id:
            self._c.select(row.pair_id)

    def step(self, delta: int) -> None:
        """Move the selection by ``delta`` rows (keyboard shortcuts)."""
        n = self.model.rowCount()
        if n:
            cur = self.list.currentIndex().row()
            self.list.setCurrentIndex(self.model.index(max(0, min(n - 1, cur + delta))))
