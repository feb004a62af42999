"""List model over the loader's diagnostics (bad lines), for the diagnostics dock."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt

from sessionlens.gui.roles import ItemRole, SortRole

if TYPE_CHECKING:
    from sessionlens.engine import Diagnostic

Index = QModelIndex | QPersistentModelIndex


class DiagnosticsModel(QAbstractTableModel):
    """Columns: severity, line, reason (the file is the open transcript)."""

    COL_SEVERITY, COL_LINE, COL_REASON = range(3)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._rows: tuple[Diagnostic, ...] = ()

    def set_rows(self, rows: Sequence[Diagnostic]) -> None:
        self.beginResetModel()
        self._rows = tuple(rows)
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else 3

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return (self.tr("Severity"), self.tr("Line"), self.tr("Reason"))[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        d = self._rows[index.row()]
        col = index.column()
        if role == ItemRole:
            return d
        if role in (Qt.ItemDataRole.DisplayRole, SortRole):
            if col == self.COL_SEVERITY:
                return d.severity
            if col == self.COL_LINE:
                return d.line if role == SortRole else ("" if d.line is None else str(d.line))
            return d.reason
        if role == Qt.ItemDataRole.ToolTipRole:
            return str(d)
        return None
