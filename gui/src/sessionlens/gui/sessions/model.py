"""Session browser model: sessions found on this machine, grouped by agent and project.

A two-level tree (group -> session) over the engine's ``SessionInfo`` records. Sorting and
filtering are done by a QSortFilterProxyModel in the view (a few thousand rows at most).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtGui import QFont

from sessionlens.engine import SessionInfo
from sessionlens.gui.roles import FilterRole, ItemRole, SortRole

Index = QModelIndex | QPersistentModelIndex

COLUMNS = ("Session", "Entries", "Compactions", "Size", "Last entry")
#: Short headers (the dock is narrow); the full names are the header tooltips.
SHORT = ("Session", "Entries", "Comp.", "Size", "Last entry")
#: The last entry's time, or (in italics) the file's when its lines carry none.
LAST_COLUMN = COLUMNS.index("Last entry")


def group_key(info: SessionInfo) -> str:
    """The group a session is shown under: agent, then project when there is one."""
    project = getattr(info, "project", None)
    return f"{info.agent} · {project}" if project else str(info.agent)


def session_label(info: SessionInfo) -> str:
    """Short name for a session row: the agent's title for it when it gave one, else its id's
    first block (the full path is the tooltip)."""
    title = getattr(info, "title", None)
    if title:
        return str(title if len(title) <= 48 else title[:47] + "\u2026")
    sid = info.session_id or info.path.stem
    return str(sid.split("-")[0] if len(sid) > 12 else sid)


def human_size(n: int) -> str:
    size = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"


def _modified(info: SessionInfo) -> tuple[str, float]:
    """The session's last entry time (else the file's), as shown and as sorted."""
    m = info.last_activity
    if isinstance(m, datetime):
        return m.strftime("%Y-%m-%d"), m.timestamp()
    if isinstance(m, (int, float)):
        ts = float(m) / (1e9 if m > 1e12 else 1)
        return datetime.fromtimestamp(ts).strftime("%Y-%m-%d"), ts
    return str(m or ""), 0.0


class SessionTreeModel(QAbstractItemModel):
    """Groups at the top level, sessions under them; columns as in ``COLUMNS``."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._groups: list[str] = []
        self._members: list[list[SessionInfo]] = []

    def set_rows(self, sessions: Sequence[SessionInfo]) -> None:
        by_group: dict[str, list[SessionInfo]] = {}
        for s in sessions:
            by_group.setdefault(group_key(s), []).append(s)
        self.beginResetModel()
        self._groups = sorted(by_group)
        self._members = [by_group[g] for g in self._groups]
        self.endResetModel()

    def session_count(self) -> int:
        return sum(len(m) for m in self._members)

    # structure: internalId 0 marks a group row; n+1 marks a child of group n ---------------
    def index(self, row: int, column: int, parent: Index = QModelIndex()) -> QModelIndex:  # noqa: B008
        if not self.hasIndex(row, column, parent):
            return QModelIndex()
        if not parent.isValid():
            return self.createIndex(row, column, 0)
        return self.createIndex(row, column, parent.row() + 1)

    def parent(self, index: Index = QModelIndex()) -> QModelIndex:  # type: ignore[override]  # noqa: B008
        if not index.isValid():
            return QModelIndex()
        gid = int(index.internalId())
        return QModelIndex() if gid == 0 else self.createIndex(gid - 1, 0, 0)

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        if not parent.isValid():
            return len(self._groups)
        if int(parent.internalId()) == 0 and parent.column() == 0:
            return len(self._members[parent.row()])
        return 0

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.tr(SHORT[section])
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.ToolTipRole:
            return self.tr(COLUMNS[section])
        return None

    def session_at(self, index: Index) -> SessionInfo | None:
        if not index.isValid() or int(index.internalId()) == 0:
            return None
        return self._members[int(index.internalId()) - 1][index.row()]

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        col = index.column()
        gid = int(index.internalId())
        if gid == 0:
            members = self._members[index.row()]
            if col == 0 and role == Qt.ItemDataRole.DisplayRole:   # spans the row in the view
                return f"{self._groups[index.row()]}  ({len(members)})"
            if col == 0 and role == FilterRole:
                return self._groups[index.row()]
            if col == 0 and role == SortRole:
                return self._groups[index.row()].lower()
            if col == 1 and role == SortRole:
                return len(members)
            return None
        s = self._members[gid - 1][index.row()]
        if role == ItemRole:
            return s
        if role == FilterRole:
            return (f"{s.session_id} {s.path} {s.agent} {getattr(s, 'project', '')} "
                    f"{getattr(s, 'title', '') or ''}")
        if role == Qt.ItemDataRole.ToolTipRole:
            when = (self.tr("last entry %1 (from the transcript)").replace(
                "%1", f"{s.last_entry_at:%Y-%m-%d %H:%M} UTC") if s.last_entry_at is not None
                else self.tr("no entry time in the file: the date shown (in italics) is the "
                             "file's"))
            return (f"{session_label(s)}\n{s.path}\n{when}\n"
                    + self.tr("file modified %1").replace("%1", f"{s.modified:%Y-%m-%d %H:%M}")
                    + f"\n{s.entries:,} " + self.tr("entries") + f", {human_size(s.size)}")
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (1, 2, 3):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.FontRole and col == LAST_COLUMN and s.last_entry_at is None:
            font = QFont()
            font.setItalic(True)  # the file's time: the file carries no entry times
            return font
        if role not in (Qt.ItemDataRole.DisplayRole, SortRole):
            return None
        sort = role == SortRole
        if col == 0:
            name = session_label(s)
            return name.lower() if sort else name
        if col == 1:
            return s.entries if sort else f"{s.entries:,}"
        if col == 2:
            n = s.compactions
            return (-1 if n is None else n) if sort else ("?" if n is None else str(n))
        if col == 3:
            return s.size if sort else human_size(s.size)
        text, ts = _modified(s)
        return ts if sort else text
