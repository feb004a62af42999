"""Session browser: the transcripts found on this machine, grouped, filterable, sortable.

Discovery runs on the task pool (it opens every file's header); double-clicking a session
opens it in the main window.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QSortFilterProxyModel, Qt, QTimer
from PySide6.QtGui import QResizeEvent, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QToolButton,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from sessionlens.engine import SessionInfo
from sessionlens.gui.icons import icon
from sessionlens.gui.roles import FilterRole, SortRole
from sessionlens.gui.session_controller import SessionController
from sessionlens.gui.sessions.model import COLUMNS, SessionTreeModel
from sessionlens.gui.table_fit import fit_columns, keep_headers_whole

#: The column a narrow dock hides.
SIZE_COLUMN = COLUMNS.index("Size")
#: Columns a narrow dock drops, first to last, so every session's name stays readable.
DROP_ORDER = tuple(COLUMNS.index(c) for c in ("Size", "Compactions", "Entries", "Last entry"))
#: A header section's room beyond its text (margins, the sort arrow).
_HEADER_PAD = 28
#: Pixels kept free beside the columns (a scrollbar appearing, rounding).
_SLACK = 12
#: The name column never asks for more than this (a long title is cut, its tooltip whole).
NAME_CAP = 190


class SessionBrowser(QWidget):
    """Tree of sessions by agent/project with a filter box."""

    def __init__(self, controller: SessionController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._c = controller
        self.model = SessionTreeModel(self)
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setSortRole(SortRole)
        self.proxy.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.proxy.setRecursiveFilteringEnabled(True)
        self.proxy.setFilterKeyColumn(0)
        self.proxy.setFilterRole(FilterRole)
        self.filter = QLineEdit(placeholderText=self.tr("Filter sessions…"), clearButtonEnabled=True)
        self.refresh = QToolButton()
        self.refresh.setToolTip(self.tr("Look for sessions again"))
        self.refresh.setIcon(icon("action-reload"))
        self.status = QLabel(self.tr("Looking for sessions…"))
        self.status.setWordWrap(True)
        self.tree = QTreeView()
        self.tree.setModel(self.proxy)
        self.tree.setSortingEnabled(True)
        self.tree.sortByColumn(4, Qt.SortOrder.DescendingOrder)
        self.tree.setUniformRowHeights(True)
        self.tree.setIndentation(12)
        self.tree.setAlternatingRowColors(True)
        self.tree.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        header = self.tree.header()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setStretchLastSection(False)
        header.setMinimumSectionSize(36)
        fit_columns(self.tree, 0)  # numbers and titles stay whole
        self._full_width = 0
        self._fit_columns()
        bar = QHBoxLayout()
        bar.addWidget(self.filter, 1)
        bar.addWidget(self.refresh)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addLayout(bar)
        lay.addWidget(self.tree, 1)
        lay.addWidget(self.status)
        self.filter.textChanged.connect(self.proxy.setFilterFixedString)
        self.proxy.layoutChanged.connect(self._span_groups)
        self.proxy.modelReset.connect(self._span_groups)
        self.proxy.rowsInserted.connect(self._span_groups)
        self.refresh.clicked.connect(self.rescan)
        self.tree.activated.connect(self._open)
        controller.sessions_ready.connect(self._on_sessions)
        controller.sessions_failed.connect(self.status.setText)

    def _fit_columns(self) -> None:
        """The name first: a narrow dock drops Size, then Compactions, Entries and Last
        entry (they come back when there is room) before it cuts a session's name."""
        self._full_width = keep_headers_whole(self.tree, optional=DROP_ORDER)
        self._drop_columns()

    def name_width(self) -> int:
        """What the Session column needs for its longest name (capped at ``NAME_CAP``)."""
        fm = self.tree.fontMetrics()
        widest = max((fm.horizontalAdvance(str(self.model.index(r, 0, g).data()))
                      for gr in range(self.model.rowCount())
                      for g in (self.model.index(gr, 0),)
                      for r in range(self.model.rowCount(g))), default=0)
        return min(NAME_CAP, widest + 2 * self.tree.indentation() + 16)

    def _drop_columns(self) -> None:
        # from the dock's own width (the tree's viewport is laid out after this resize),
        # less the margins, the frame and a vertical scrollbar
        tree = self.tree
        room = (self.width() - 8 - 2 * tree.frameWidth()
                - tree.verticalScrollBar().sizeHint().width())
        if room <= 0:
            return
        header = self.tree.header()
        need = max(self.name_width(), header.sectionSizeHint(0))  # the header stays whole too
        shown = list(range(1, self.model.columnCount()))
        # a hidden section hints 0: its width is measured from its header text and content
        hfm = header.fontMetrics()
        widths = {c: max(hfm.horizontalAdvance(str(self.model.headerData(
            c, Qt.Orientation.Horizontal))) + _HEADER_PAD, self.tree.sizeHintForColumn(c))
            for c in shown}
        hidden: set[int] = set()
        for col in DROP_ORDER:
            if need + sum(w for c, w in widths.items() if c not in hidden) + _SLACK <= room:
                break
            hidden.add(col)
        for col in shown:
            if self.tree.isColumnHidden(col) != (col in hidden):
                self.tree.setColumnHidden(col, col in hidden)
                if col not in hidden:  # back from hidden: its width, not the 0 it had
                    self.tree.resizeColumnToContents(col)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self._full_width:
            self._drop_columns()
            # once more after the layout settles: the header's sizes and the dock's width
            # are final only then (a window shown at 1440 and resized to 1280 kept them all)
            QTimer.singleShot(0, self, self._drop_columns)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        QTimer.singleShot(0, self, self._drop_columns)

    def rescan(self) -> None:
        self.status.setText(self.tr("Looking for sessions…"))
        self._c.discover()

    def _span_groups(self) -> None:
        """Group rows show their name across all columns."""
        for r in range(self.proxy.rowCount()):
            self.tree.setFirstColumnSpanned(r, QModelIndex(), True)

    def _on_sessions(self, sessions: list[SessionInfo]) -> None:
        self.model.set_rows(sessions)
        self.tree.expandAll()
        self._span_groups()
        for col in range(1, self.model.columnCount()):
            self.tree.resizeColumnToContents(col)
        self._fit_columns()
        n = self.model.session_count()
        self.status.setText(self.tr("No agent sessions found on this machine.") if n == 0 else
                            self.tr("%n session(s) found", "", n))

    def _open(self, index: QModelIndex) -> None:
        info = self.model.session_at(self.proxy.mapToSource(index))
        if info is not None:
            self._c.open(info.path)
