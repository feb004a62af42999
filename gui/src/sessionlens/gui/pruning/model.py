"""Table model of the tool results pruning would clear before the next call.

One row per ``PrunedResult`` of the engine's preview; every number is the engine's own.
A plain table model rather than item objects: a long session has thousands of tool results.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

if TYPE_CHECKING:
    from sessionlens.engine import PruningDelay

Index = QModelIndex | QPersistentModelIndex

COLUMNS = ("Tool result", "Tool", "Sent now (tokens)", "Pruning trims", "Cleared since")
#: Numbers sit right-aligned so their digits line up.
NUMERIC = {2, 3}


class PrunedResultsModel(QAbstractTableModel):
    """The cleared tool results, in context order (the order the next call sends them)."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._rows: tuple[tuple[str, str, int, int, str], ...] = ()

    def set_delay(self, delay: PruningDelay | None) -> None:
        self.beginResetModel()
        results = delay.preview.results if delay is not None else ()
        self._rows = tuple((r.entry_id, r.tool_name or "—", r.tokens, r.trimmed_tokens,
                            r.pruned_since_entry_id or "—") for r in results)
        self.endResetModel()

    def entry_id(self, row: int) -> str | None:
        return self._rows[row][0] if 0 <= row < len(self._rows) else None

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        value = self._rows[index.row()][index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return f"{value:,}" if isinstance(value, int) else value
        if role == Qt.ItemDataRole.UserRole:  # the raw value, for sorting and tests
            return value
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() in NUMERIC:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.tr(COLUMNS[section])
        return None
