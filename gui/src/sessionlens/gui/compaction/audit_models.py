"""Thin Qt models over an engine ``AuditReport``: its checks, coverage by class, dropped items.

Each model holds a tuple of engine objects and answers ``data()`` from them; ``set_report``
replaces everything inside a model reset. ``ItemRole`` returns the engine object itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtWidgets import QApplication, QStyle

from sessionlens.engine import CLASS_TITLES

if TYPE_CHECKING:
    from sessionlens.engine import AuditReport

ItemRole = Qt.ItemDataRole.UserRole + 1
#: Coverage ratio (0..1) for the bar delegate.
RatioRole = Qt.ItemDataRole.UserRole + 2

_Index = QModelIndex | QPersistentModelIndex


def class_title(cls: str) -> str:
    return str(CLASS_TITLES.get(cls, cls))


class _ReportModel(QAbstractTableModel):

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._rows: tuple[Any, ...] = ()

    def _items(self, report: AuditReport) -> tuple[Any, ...]:
        """The part of the report this model shows (each subclass picks its own)."""
        return ()

    def headers(self) -> tuple[str, ...]:
        """Column titles (each subclass names its own, translated)."""
        return ()

    def set_report(self, report: AuditReport | None) -> None:
        self.beginResetModel()
        self._rows = self._items(report) if report is not None else ()
        self.endResetModel()

    def item(self, row: int) -> Any:
        return self._rows[row]

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.headers())

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.headers()[section]
        return None


class ChecksModel(_ReportModel):
    """One row per audit check: name, pass/fail (with an icon), the engine's detail."""

    def headers(self) -> tuple[str, ...]:
        return self.tr("Check"), self.tr("Result"), self.tr("Reason")

    def _items(self, report: AuditReport) -> tuple[Any, ...]:
        return tuple(report.checks)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        check = self._rows[index.row()]
        col = index.column()
        if role == ItemRole:
            return check
        if role == Qt.ItemDataRole.DisplayRole:
            if col == 0:
                return check.name
            if col == 1:
                return self.tr("pass") if check.passed else self.tr("FAIL")
            return check.detail
        if role == Qt.ItemDataRole.DecorationRole and col == 1:
            pixmap = (QStyle.StandardPixmap.SP_DialogApplyButton if check.passed
                      else QStyle.StandardPixmap.SP_MessageBoxCritical)
            return QApplication.style().standardIcon(pixmap)
        if role == Qt.ItemDataRole.ToolTipRole:
            return "\n".join((check.detail, *check.reasons))
        return None


class CoverageModel(_ReportModel):
    """Identifier survival per class: kept, total and the ratio (drawn as a bar)."""

    def headers(self) -> tuple[str, ...]:
        return self.tr("Class"), self.tr("Kept"), self.tr("Total"), self.tr("Coverage")

    def _items(self, report: AuditReport) -> tuple[Any, ...]:
        return tuple(c for c in report.coverage if c.total > 0)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        cov = self._rows[index.row()]
        col = index.column()
        if role == ItemRole:
            return cov
        if role == RatioRole:
            return cov.ratio
        if role == Qt.ItemDataRole.DisplayRole:
            return (class_title(cov.cls), str(cov.found), str(cov.total),
                    f"{cov.ratio:.0%}")[col]
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (1, 2):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None


class DroppedModel(_ReportModel):
    """Every entity of the span the summary lacks; activating a row names its first entry."""

    def headers(self) -> tuple[str, ...]:
        return self.tr("Class"), self.tr("Value"), self.tr("Entries")

    def _items(self, report: AuditReport) -> tuple[Any, ...]:
        return tuple(report.dropped)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        item = self._rows[index.row()]
        col = index.column()
        if role == ItemRole:
            return item
        if role == Qt.ItemDataRole.DisplayRole:
            if col == 0:
                return class_title(item.cls)
            if col == 1:
                return item.value
            more = len(item.entry_ids) - 3
            shown = ", ".join(item.entry_ids[:3])
            return shown + (self.tr(" +%1 more").replace("%1", str(more)) if more > 0 else "")
        if role == Qt.ItemDataRole.ToolTipRole:
            return self.tr("Click to show entry %1 in the timeline").replace(
                "%1", item.entry_ids[0]) if item.entry_ids else item.value
        return None
