"""The timeline's list model: prepared rows in, display data out.

Every row is prepared by ``timeline_rows``: all of them on the pool (``build_rows``), or
each when first shown (``PathRows``, what a load hands over so the timeline shows at once);
``data`` only indexes the rows and looks up one token count, so a 100,000-row view scrolls
smoothly. Filtering swaps in a tuple of visible indexes (also computed on the pool).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QPersistentModelIndex, Qt

from sessionlens.engine import TokenReport
from sessionlens.gui.roles import (
    DepthRole,
    DetailRole,
    EntryIdRole,
    IconKeyRole,
    ItemRole,
    MarksRole,
    TokensRole,
)

from .timeline_rows import PathRows, TimelineRow, entry_id_at

Index = QModelIndex | QPersistentModelIndex


class TimelineModel(QAbstractListModel):
    """Rows of the active path (or the whole tree), optionally filtered."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._rows: Sequence[TimelineRow] = ()
        self._visible: tuple[int, ...] | None = None
        self._tokens: TokenReport | None = None
        self._row_of_id: dict[str, int] = {}
        #: Qt asks for rowCount once per row while laying out (via index()); keep it one lookup
        self._count = 0

    # feeding ------------------------------------------------------------------------------
    def set_rows(self, rows: Sequence[TimelineRow], visible: tuple[int, ...] | None = None) -> None:
        """Replace every row (one reset; the view re-lays out only what is on screen)."""
        self.beginResetModel()
        self._rows = rows if isinstance(rows, tuple | PathRows) else tuple(rows)
        self._visible = visible
        self._count = len(self._rows) if visible is None else len(visible)
        self._row_of_id = {}
        self.endResetModel()

    def set_visible(self, visible: tuple[int, ...] | None) -> None:
        """Show only these row indexes (None shows all)."""
        self.beginResetModel()
        self._visible = visible
        self._count = len(self._rows) if visible is None else len(visible)
        self._row_of_id = {}
        self.endResetModel()

    def set_tokens(self, report: TokenReport | None) -> None:
        """New counts; the view repaints what is on screen (no dataChanged over 100k rows,
        which would make the view ask Python for every row)."""
        self._tokens = report

    # reading ------------------------------------------------------------------------------
    @property
    def rows(self) -> Sequence[TimelineRow]:
        return self._rows

    def row_at(self, row: int) -> TimelineRow:
        return self._rows[row if self._visible is None else self._visible[row]]

    def row_of_entry(self, entry_id: str) -> int | None:
        """The visible row showing ``entry_id`` (map built lazily, once per reset)."""
        if not self._row_of_id and self.rowCount():
            rows, vis = self._rows, self._visible
            self._row_of_id = {entry_id_at(rows, r if vis is None else vis[r]): r
                               for r in range(self.rowCount())}
        return self._row_of_id.get(entry_id)

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 - Qt signature
        return 0 if parent.isValid() else self._count

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or index.row() >= self.rowCount():
            return None
        r = self.row_at(index.row())
        if role == Qt.ItemDataRole.DisplayRole:
            return f"{r.title}  {r.preview}"
        if role == ItemRole:
            return r
        if role == EntryIdRole:
            return r.entry_id
        if role == IconKeyRole:
            return r.icon_key
        if role == MarksRole:
            return int(r.marks)
        if role == DepthRole:
            return r.depth
        if role == DetailRole:
            return r.time
        if role == TokensRole:
            if self._tokens is None:
                return None
            t = self._tokens.entries.get(r.entry_id)
            return None if t is None else t.exact
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{r.title} · {r.entry_id}" + (f" · label: {r.label}" if r.label else "")
        return None
