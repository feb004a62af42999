"""Qt models over the engine's lineage: the points of a chain, and one file's branch outline.

Thin adapters (style.md §3 habit 6): the engine decided every fact (nodes, generations,
inherited compactions, folds, sizes); these models only index tuples and format text.
``ItemRole`` returns the engine object behind a row.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import (
    QAbstractItemModel,
    QAbstractTableModel,
    QCoreApplication,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
)
from PySide6.QtGui import QBrush, QColor, QFont

from sessionlens.gui.colors import ACCENTS
from sessionlens.gui.icons import icon
from sessionlens.gui.roles import EntryIdRole, IconKeyRole, ItemRole

if TYPE_CHECKING:
    from sessionlens.engine import BranchOutline, Lineage, LineageNode, OutlineNode
    from sessionlens.gui.transcript.timeline_rows import TimelineRow

Index = QModelIndex | QPersistentModelIndex

#: Colour of each node kind (the graph uses the same table).
KIND_COLORS: dict[str, str] = {
    "transcript": "#2f7ed8",
    "compaction": ACCENTS["type-compaction"],
    "checkpoint": "#1f9e89",
    "archive": "#8a8f98",
}


def _tr(text: str) -> str:
    return QCoreApplication.translate("LineageModel", text)


def node_detail(n: LineageNode, *, short: bool = False) -> str:
    """Facts about a node in one line (``short``: what fits beside a node in the graph)."""
    parts: list[str] = []
    if n.kind == "transcript":
        parts.append(_tr("%1 compactions").replace("%1", str(n.compactions)))
        if n.relation and not short:
            parts.append(_tr(n.relation))
        if n.store_key:
            parts.append(_tr("store count %1").replace("%1", str(n.store_compactions)) if short
                         else _tr("store %1: compactionCount %2").replace("%1", n.store_key)
                         .replace("%2", str(n.store_compactions)))
        if not n.exists:
            parts.append(_tr("file missing"))
    elif n.kind == "compaction":
        parts.append(_tr("%1 chars").replace("%1", f"{n.summary_chars or 0:,}"))
        if n.tokens_before is not None:
            parts.append(_tr("%1 tok before").replace("%1", f"{n.tokens_before:,}"))
        if n.inherited and not short:
            parts.append(_tr("inherited from the previous file"))
        if not n.on_active_path:
            parts.append(_tr("off the active path"))
    elif n.kind == "checkpoint":
        where = [_tr("store") if short else _tr("store record")] if n.in_store else []
        where += [_tr("file")] if n.exists else [_tr("no file")]
        parts.append(" + ".join(where))
        if n.reason and not short:
            parts.append(n.reason)
    elif n.path is not None:
        parts.append(n.path.name)
    if n.timestamp and not short:
        parts.append(n.timestamp[:19].replace("T", " "))
    return " · ".join(parts)


class LineageNodesModel(QAbstractTableModel):
    """Every point of the lineage, in the engine's order (generation, then kind)."""

    COLUMNS = ("Point", "Generation", "Facts", "File")

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._nodes: tuple[LineageNode, ...] = ()

    def set_lineage(self, lineage: Lineage | None, *, openable_only: bool = False) -> None:
        self.beginResetModel()
        nodes = lineage.nodes if lineage is not None else ()
        self._nodes = tuple(n for n in nodes if n.path is not None) if openable_only else nodes
        self.endResetModel()

    def node(self, row: int) -> LineageNode:
        return self._nodes[row]

    def row_of(self, key: str) -> int:
        return next((i for i, n in enumerate(self._nodes) if n.key == key), -1)

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._nodes)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return _tr(self.COLUMNS[section])
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        n = self._nodes[index.row()]
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if col == 0:
                return _point_text(n)
            if col == 1:
                return n.generation
            if col == 2:
                return node_detail(n)
            return n.path.name if n.path is not None else "—"
        if role == Qt.ItemDataRole.ToolTipRole:
            return str(n.path) if n.path is not None else node_detail(n)
        if role == Qt.ItemDataRole.DecorationRole and col == 0:
            return QColor(KIND_COLORS[n.kind])
        if role == ItemRole:
            return n
        if role == EntryIdRole:
            return n.entry_id
        return None


def _point_text(n: LineageNode) -> str:
    if n.kind == "transcript":
        return _tr("gen %1 · %2").replace("%1", str(n.generation)).replace("%2", n.title)
    owner = n.path.name if n.path is not None else ""
    return f"{_tr(n.title)} · {owner[:28]}"


class BranchOutlineModel(QAbstractItemModel):
    """The entry tree of one file with side branches folded under their branch points.

    Index internal ids are node indexes into the engine's ``BranchOutline`` (+1, so 0 stays
    "no node"); the active path is shown in bold, off-path entries in the muted colour.
    """

    COLUMNS = ("Entry", "Label", "Time")

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._outline: BranchOutline | None = None
        self._rows: Mapping[str, TimelineRow] = {}
        self._row_in_parent: list[int] = []
        self._bold = QFont()
        self._bold.setBold(True)
        self._muted = QBrush(QColor("#8a8f98"))
        self._fold_bg = QBrush(QColor(KIND_COLORS["checkpoint"] + "22"))

    def set_outline(self, outline: BranchOutline | None, rows: Mapping[str, TimelineRow]) -> None:
        self.beginResetModel()
        self._outline, self._rows = outline, rows
        self._row_in_parent = [0] * (len(outline.nodes) if outline is not None else 0)
        if outline is not None:
            for r, i in enumerate(outline.top):
                self._row_in_parent[i] = r
            for n in outline.nodes:
                for r, i in enumerate(n.children):
                    self._row_in_parent[i] = r
        self.endResetModel()

    def outline_node(self, index: Index) -> OutlineNode | None:
        if not index.isValid() or self._outline is None:
            return None
        return self._outline.nodes[index.internalId() - 1]

    def _children(self, parent: Index) -> tuple[int, ...]:
        if self._outline is None:
            return ()
        kids: tuple[int, ...] = self._outline.top if not parent.isValid() else \
            self._outline.nodes[parent.internalId() - 1].children
        return kids

    def index(self, row: int, column: int, parent: Index = QModelIndex()) -> QModelIndex:  # noqa: B008
        kids = self._children(parent)
        if not 0 <= row < len(kids) or not 0 <= column < len(self.COLUMNS):
            return QModelIndex()
        return self.createIndex(row, column, kids[row] + 1)

    def parent(self, index: Index = QModelIndex()) -> QModelIndex:  # type: ignore[override]  # noqa: B008
        node = self.outline_node(index)
        if node is None or node.parent < 0 or self._outline is None:
            return QModelIndex()
        return self.createIndex(self._row_in_parent[node.parent], 0, node.parent + 1)

    def index_of_entry(self, entry_id: str) -> QModelIndex:
        """The index showing ``entry_id`` (invalid if the outline does not hold it)."""
        if self._outline is None or entry_id not in self._outline.node_of_entry:
            return QModelIndex()
        i = self._outline.node_of_entry[entry_id]
        return self.createIndex(self._row_in_parent[i], 0, i + 1)

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        if parent.isValid() and parent.column() != 0:
            return 0
        return len(self._children(parent))

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return len(self.COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return _tr(self.COLUMNS[section])
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        node = self.outline_node(index)
        if node is None:
            return None
        row = self._rows.get(node.entry_id)
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if col == 0:
                return self._entry_text(node, row)
            if col == 1:
                return node.label or ""
            return row.time if row is not None and node.kind == "entry" else ""
        if role == Qt.ItemDataRole.ToolTipRole:
            if node.kind == "branch" and node.summary:
                return _tr("Branch summary:") + "\n" + node.summary
            return row.preview if row is not None else node.entry_id
        if role == Qt.ItemDataRole.DecorationRole and col == 0:
            key = "type-branch" if node.kind == "branch" else (row.icon_key if row else None)
            return icon(key) if key else None
        if role == Qt.ItemDataRole.FontRole and node.kind == "entry" and node.on_active_path:
            return self._bold
        if role == Qt.ItemDataRole.ForegroundRole and not node.on_active_path:
            return self._muted
        if role == Qt.ItemDataRole.BackgroundRole and node.kind == "branch":
            return self._fold_bg
        if role == ItemRole:
            return node
        if role == EntryIdRole:
            return node.entry_id
        if role == IconKeyRole:
            return row.icon_key if row is not None else None
        return None

    def _entry_text(self, node: OutlineNode, row: TimelineRow | None) -> str:
        if node.kind == "branch":
            # a top-level fold is a second root (orphans, Claude Code boundaries), not a branch
            what = _tr("Other root") if node.parent < 0 else _tr("Branch")
            count = _tr("1 entry") if node.size == 1 else _tr("%1 entries").replace(
                "%1", str(node.size))
            text = f"{what} · {count}"
            if node.summary:
                first = " ".join(node.summary.split())
                text += " · " + _tr("summarized: ") + first[:80]
            return text
        title = f"{row.title}: {row.preview}" if row is not None else node.entry_id
        if node.is_branch_point:
            folds = len(node.children)
            title += "   " + (_tr("[1 branch here]") if folds == 1 else
                                _tr("[%1 branches here]").replace("%1", str(folds)))
        return title
