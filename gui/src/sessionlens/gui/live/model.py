"""The Live list: one row per session being written, and the gauge drawn in its row.

The gauge is the context against the window, with a tick at the compaction threshold; it
turns amber from ``THRESHOLD_NEAR_FRACTION`` of the threshold and red past it, the same share at which
``sessionlens watch`` says "threshold near".
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QRect,
    Qt,
)
from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

from sessionlens.engine import AGENT_NAMES, THRESHOLD_NEAR_FRACTION
from sessionlens.gui.roles import ItemRole

from .controller import LiveRow

Index = QModelIndex | QPersistentModelIndex

COLUMNS = ("Agent", "Project", "Model", "Context", "Turns left", "Last entry")
GAUGE_COLUMN = 3


def short_project(project: str) -> str:
    """The last two parts of a project folder ("…/work/api"): the list is narrow."""
    parts = [p for p in project.replace("\\", "/").split("/") if p]
    return project if len(parts) <= 2 else "…/" + "/".join(parts[-2:])


def _k(n: int) -> str:
    return f"{n / 1000:.0f}k" if n >= 10_000 else f"{n:,}"


def gauge_text(row: LiveRow) -> str:
    g = row.gauge
    return f"{_k(g.context_tokens)} / {_k(g.threshold)} ({g.fraction_of_threshold:.0%})"


def age_text(stamp: str | None, now: datetime | None = None) -> str:
    """'12 s ago', '3 min ago', or the time, for an entry's ISO timestamp."""
    if not stamp:
        return "—"
    try:
        when = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return stamp
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    seconds = ((now or datetime.now(UTC)) - when).total_seconds()
    if 0 <= seconds < 60:
        return f"{seconds:.0f} s ago"
    if 0 <= seconds < 3600:
        return f"{seconds / 60:.0f} min ago"
    return when.astimezone().strftime("%m-%d %H:%M")


class LiveModel(QAbstractTableModel):
    """Rows of ``LiveRow``; ``ItemRole`` gives the row."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.rows: tuple[LiveRow, ...] = ()

    def set_rows(self, rows: tuple[LiveRow, ...]) -> None:
        self.beginResetModel()
        self.rows = rows
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008, N802
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008, N802
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.tr(COLUMNS[section])
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row = self.rows[index.row()]
        if role == ItemRole:
            return row
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            g = row.gauge
            return (AGENT_NAMES.get(row.agent, row.agent), short_project(row.project),
                    g.model or "—", gauge_text(row), "—" if g.turns_left is None else f"{g.turns_left:,}",
                    age_text(g.last_entry_at))[col]
        if role == Qt.ItemDataRole.ToolTipRole:
            g = row.gauge
            left = ("not enough turns yet to know the pace" if g.pace is None else
                    f"about {g.pace:,} tokens per user turn")
            return self.tr(f"{row.path}\nproject {row.project}\nmodel {g.model or 'unknown'}\n"
                           f"context {g.context_tokens:,} of window "
                           f"{g.context_window:,}; the agent compacts past {g.threshold:,}\n"
                           f"{left}")
        return None


class GaugeDelegate(QStyledItemDelegate):
    """Draws the context as a bar over the window with the threshold as a tick."""

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        row = index.data(ItemRole)
        if not isinstance(row, LiveRow):
            super().paint(painter, option, index)
            return
        g = row.gauge
        rect: QRect = option.rect.adjusted(3, 4, -3, -4)
        painter.save()
        if option.state & QStyle.StateFlag.State_Selected:
            painter.fillRect(option.rect, option.palette.highlight())
        window = max(1, g.context_window)
        frac = min(1.0, g.context_tokens / window)
        tick = min(1.0, g.threshold / window)
        share = g.fraction_of_threshold
        color = QColor("#d64541" if share >= 1 else "#e0a31a" if share >= THRESHOLD_NEAR_FRACTION
                       else "#3c9a5f")
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(128, 128, 128, 50))
        painter.drawRoundedRect(rect, 3, 3)
        painter.setBrush(color)
        painter.drawRoundedRect(QRect(rect.left(), rect.top(), int(rect.width() * frac),
                                      rect.height()), 3, 3)
        x = rect.left() + int(rect.width() * tick)
        painter.setPen(QColor("#444444"))
        painter.drawLine(x, rect.top() - 2, x, rect.bottom() + 2)
        painter.setPen(option.palette.text().color())
        painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, gauge_text(row))
        painter.restore()
