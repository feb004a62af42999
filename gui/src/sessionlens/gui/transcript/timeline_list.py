"""The timeline's row view: a one-column table with fixed-height rows.

A QListView lays out every row on each reset, asking the Python model for its row count
once per row; with a worker thread holding the GIL each of those calls waits for it, and a
batch of 2,000 rows stalled the event loop for 40-95 ms on a 100 MB session while it was
being counted. A table's vertical header with a fixed section size places rows by
arithmetic, so a reset of 100,000 rows costs one row-count call and only the rows on
screen are ever asked for.
"""

from __future__ import annotations

from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView, QWidget

from .timeline_delegate import TimelineDelegate


class TimelineList(QTableView):
    """What the timeline shows its rows in: single selection, whole rows, no grid."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        delegate = TimelineDelegate(self)
        self.setItemDelegate(delegate)
        self.setShowGrid(False)
        self.setWordWrap(False)
        self.setCornerButtonEnabled(False)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setHorizontalScrollBarPolicy(self.horizontalScrollBarPolicy().ScrollBarAlwaysOff)
        across = self.horizontalHeader()
        across.hide()
        across.setStretchLastSection(True)
        down = self.verticalHeader()
        down.hide()
        down.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        down.setDefaultSectionSize(delegate.row_height(self.font()))
        down.setMinimumSectionSize(1)
