"""The lineage graph: a session's transcripts by generation, with what hangs off each.

Columns are generations (the engine's ``LineageNode.generation``); in each column a
transcript is followed by its compactions, checkpoints and archives (edges of kind
compaction-in / checkpoint-of / archive-of drawn as a spine). Successors, forks and
restores are arrows between columns. Kinds differ by shape and colour: transcript = box,
compaction = diamond, checkpoint = disc, archive = dashed box; a missing file has a red
dashed outline; the open transcript a thick one. Click or the arrow keys select
(``node_selected``); double-click or Enter asks to open that point
(``open_requested(path, entry_id)``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetrics,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QPainterPath,
    QPen,
    QPolygonF,
)
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsPathItem,
    QGraphicsPolygonItem,
    QGraphicsScene,
    QGraphicsSimpleTextItem,
    QGraphicsView,
    QStyleOptionGraphicsItem,
    QWidget,
)

from sessionlens.gui.colors import ERROR
from sessionlens.gui.lineage.model import KIND_COLORS, node_detail

if TYPE_CHECKING:
    from sessionlens.engine import Lineage, LineageNode

COL_W = 340.0
BOX_W, BOX_H = 262.0, 60.0
#: A point's row may run past its box, up to the next generation's column.
ROW_W = COL_W - 30.0
ROW_H = 26.0
INDENT = 22.0
TOP = 56.0
ATTACHED = ("compaction-in", "checkpoint-of", "archive-of")
LINKS = {"successor": Qt.PenStyle.SolidLine, "fork": Qt.PenStyle.DashLine,
         "restored": Qt.PenStyle.DotLine}


def _tr(text: str) -> str:
    return QCoreApplication.translate("LineageGraph", text)


class NodeItem(QGraphicsItem):
    """One lineage node; paints its own shape and title."""

    def __init__(self, node: LineageNode, current: bool, dark: bool) -> None:
        super().__init__()
        self.node, self.current, self.dark = node, current, dark
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable, True)
        self.setAcceptHoverEvents(True)
        self.setToolTip(f"{node.title}\n{node_detail(node)}\n{node.path or ''}"
                        + (f"\nentry {node.entry_id}" if node.entry_id else ""))
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self._font = QFont()
        self._font.setPointSizeF(8.5)
        self._bold = QFont(self._font)
        self._bold.setBold(True)

    @property
    def is_box(self) -> bool:
        return self.node.kind in ("transcript",)

    def boundingRect(self) -> QRectF:
        if self.is_box:
            return QRectF(-3, -3, BOX_W + 6, BOX_H + 6)
        return QRectF(-2, -2, ROW_W - INDENT + 4, ROW_H)

    def anchor_left(self) -> QPointF:
        return self.mapToScene(QPointF(0, BOX_H / 2 if self.is_box else 10))

    def anchor_right(self) -> QPointF:
        if self.is_box:
            return self.mapToScene(QPointF(BOX_W, BOX_H / 2))
        return self.mapToScene(QPointF(BOX_W - INDENT, 10))

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem,
              widget: QWidget | None = None) -> None:
        n = self.node
        fg = QColor("#e6edf3" if self.dark else "#1f2328")
        muted = QColor("#8b949e" if self.dark else "#6e7781")
        color = QColor(KIND_COLORS[n.kind])
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        selected = self.isSelected()
        outline = QPen(QColor(ERROR) if not n.exists else color,
                       3.0 if (self.current or selected) else 1.4)
        if not n.exists or n.kind == "archive":
            outline.setStyle(Qt.PenStyle.DashLine)
        if selected:
            outline.setColor(QColor("#d4a017"))
        fill = QColor(color)
        if self.is_box:
            fill.setAlpha(60 if self.dark else 34)
            painter.setPen(outline)
            painter.setBrush(QBrush(fill))
            painter.drawRoundedRect(QRectF(0, 0, BOX_W, BOX_H), 7, 7)
            painter.setPen(fg)
            painter.setFont(self._bold)
            width = int(BOX_W - 16)
            title = QFontMetrics(self._bold).elidedText(n.title, Qt.TextElideMode.ElideMiddle,
                                                        width)
            painter.drawText(QPointF(8, 17), title)
            painter.setFont(self._font)
            painter.setPen(muted)
            fm = QFontMetrics(self._font)
            when = (n.timestamp or "")[:16].replace("T", " ")
            sid = (n.session_id or "?")[:8]
            relation = _tr(n.relation) if n.relation else ""
            line2 = f"{sid} · {when}" + (f" · {relation}" if relation else "")
            painter.drawText(QPointF(8, 34), fm.elidedText(line2, Qt.TextElideMode.ElideRight,
                                                           width))
            painter.drawText(QPointF(8, 50), fm.elidedText(
                node_detail(n, short=True), Qt.TextElideMode.ElideRight, width))
            return
        fill.setAlpha(110 if n.inherited else 255)
        painter.setPen(outline if selected or not n.exists else QPen(color.darker(130), 1.2))
        painter.setBrush(QBrush(fill))
        if n.kind == "compaction":
            painter.drawPolygon(QPolygonF([QPointF(8, 2), QPointF(15, 10), QPointF(8, 18),
                                           QPointF(1, 10)]))
        elif n.kind == "checkpoint":
            painter.drawEllipse(QRectF(1, 3, 14, 14))
        else:
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(QRectF(1, 4, 14, 12))
        painter.setFont(self._bold if selected else self._font)
        painter.setPen(muted if n.inherited or not n.on_active_path else fg)
        fm = QFontMetrics(self._font)
        text = f"{n.title} · {node_detail(n, short=True)}"
        painter.drawText(QPointF(22, 14), fm.elidedText(
            text, Qt.TextElideMode.ElideRight, int(ROW_W - INDENT - 26)))


class LineageGraphView(QGraphicsView):
    """Draws a Lineage; emits which node is selected and which point to open."""

    node_selected = Signal(str)              # node key ("" when nothing is selected)
    open_requested = Signal(object, object)  # Path, entry id or None

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setScene(QGraphicsScene(self))
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.items_by_key: dict[str, NodeItem] = {}
        self.show_inherited = False
        self.dark = False
        self._lineage: Lineage | None = None
        self._current: Path | None = None
        self.scene().selectionChanged.connect(self._on_selection)

    # feeding --------------------------------------------------------------------------------
    def set_lineage(self, lineage: Lineage | None, current: Path | None = None) -> None:
        self._lineage, self._current = lineage, current
        self._rebuild()

    def set_show_inherited(self, show: bool) -> None:
        self.show_inherited = show
        self._rebuild()

    def set_dark(self, dark: bool) -> None:
        self.dark = dark
        self.setBackgroundBrush(QColor("#1f2329" if dark else "#ffffff"))
        self._rebuild()

    def visible_nodes(self) -> list[LineageNode]:
        return [item.node for item in self.items_by_key.values()]

    def _rebuild(self) -> None:
        selected = self.selected_key()
        scene = self.scene()
        scene.blockSignals(True)
        scene.clear()
        self.items_by_key = {}
        scene.blockSignals(False)
        lin = self._lineage
        if lin is None:
            return
        shown = [n for n in lin.nodes if self.show_inherited or not n.inherited]
        keys = {n.key for n in shown}
        attached: dict[str, list[LineageNode]] = {}
        owned: set[str] = set()
        by_key = {n.key: n for n in shown}
        for e in lin.edges:
            if e.kind in ATTACHED and e.source in keys and e.target in keys:
                attached.setdefault(e.source, []).append(by_key[e.target])
                owned.add(e.target)
        columns: dict[int, float] = {}
        current = self._current.resolve() if self._current is not None else None
        for n in shown:
            if n.key in owned or n.kind != "transcript" and n.key in self.items_by_key:
                continue
            y = columns.get(n.generation, TOP)
            x = n.generation * COL_W + 16
            self._place(n, x, y, current)
            y += (BOX_H if n.kind == "transcript" else ROW_H) + 6
            kids = attached.get(n.key, [])
            for k in kids:
                self._place(k, x + INDENT, y, current)
                y += ROW_H
            if kids:
                self._spine(n.key, [k.key for k in kids])
            columns[n.generation] = y + 22
        for gen in columns:
            label = QGraphicsSimpleTextItem(self.tr("generation %1").replace("%1", str(gen)))
            label.setBrush(QColor("#8b949e" if self.dark else "#6e7781"))
            label.setPos(gen * COL_W + 16, TOP - 24)
            scene.addItem(label)
        for e in lin.edges:
            if e.kind in LINKS and e.source in self.items_by_key and e.target in self.items_by_key:
                self._arrow(self.items_by_key[e.source], self.items_by_key[e.target], e.kind)
        self._legend()
        rect = scene.itemsBoundingRect().adjusted(-12, -12, 24, 24)
        scene.setSceneRect(rect)
        if selected in self.items_by_key:
            self.items_by_key[selected].setSelected(True)
        here = next((i for i in self.items_by_key.values() if i.current), None)
        if here is not None:  # the open transcript is where the user starts looking
            self.ensureVisible(here, 40, 40)

    def _place(self, n: LineageNode, x: float, y: float, current: Path | None) -> None:
        item = NodeItem(n, n.kind == "transcript" and n.path == current, self.dark)
        item.setPos(x, y)
        item.setZValue(2)
        self.scene().addItem(item)
        self.items_by_key[n.key] = item

    def _spine(self, owner: str, kids: list[str]) -> None:
        top = self.items_by_key[owner].mapToScene(QPointF(12, BOX_H))
        path = QPainterPath(top)
        last = self.items_by_key[kids[-1]].anchor_left()
        path.lineTo(QPointF(top.x(), last.y()))
        for k in kids:
            a = self.items_by_key[k].anchor_left()
            path.moveTo(QPointF(top.x(), a.y()))
            path.lineTo(a)
        item = QGraphicsPathItem(path)
        item.setPen(QPen(QColor("#8b949e"), 1.0))
        self.scene().addItem(item)

    def _arrow(self, src: NodeItem, dst: NodeItem, kind: str) -> None:
        a, b = src.anchor_right(), dst.anchor_left()
        dx = max(30.0, (b.x() - a.x()) / 2)
        path = QPainterPath(a)
        path.cubicTo(QPointF(a.x() + dx, a.y()), QPointF(b.x() - dx, b.y()), b)
        head = QPolygonF([b, QPointF(b.x() - 9, b.y() - 5), QPointF(b.x() - 9, b.y() + 5)])
        color = QColor(KIND_COLORS["checkpoint"] if kind == "restored" else
                       ("#c9d1d9" if self.dark else "#57606a"))
        pen = QPen(color, 2.0 if kind == "successor" else 1.6)
        pen.setStyle(LINKS[kind])
        item = QGraphicsPathItem(path)
        item.setPen(pen)
        item.setZValue(1)
        item.setToolTip(self.tr(kind))
        self.scene().addItem(item)
        tip = QGraphicsPolygonItem(head)
        tip.setPen(QPen(color, 1.0))
        tip.setBrush(QBrush(color))
        tip.setZValue(1)
        self.scene().addItem(tip)

    def _legend(self) -> None:
        text = self.tr("▭ transcript   ◆ compaction   ● checkpoint   ⬚ archive      "
                       "—— successor   - - fork   ··· restored from checkpoint      "
                       "double-click a point to open it there")
        item = QGraphicsSimpleTextItem(text)
        item.setBrush(QColor("#8b949e" if self.dark else "#57606a"))
        item.setPos(16, 6)
        self.scene().addItem(item)

    # selection and activation ------------------------------------------------------------------
    def selected_key(self) -> str:
        for item in self.scene().selectedItems():
            if isinstance(item, NodeItem):
                return str(item.node.key)
        return ""

    def select_node(self, key: str) -> None:
        self.scene().clearSelection()
        item = self.items_by_key.get(key)
        if item is not None:
            item.setSelected(True)
            self.ensureVisible(item)

    def activate(self, key: str) -> None:
        """Ask to open the point ``key`` (double-click and Enter end up here)."""
        item = self.items_by_key.get(key)
        if item is not None and item.node.path is not None and item.node.exists:
            self.open_requested.emit(item.node.path, item.node.entry_id)

    def _on_selection(self) -> None:
        self.node_selected.emit(self.selected_key())

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        item = self.itemAt(event.position().toPoint())
        if isinstance(item, NodeItem):
            self.activate(item.node.key)
            return
        super().mouseDoubleClickEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = event.key()
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.selected_key():
            self.activate(self.selected_key())
            return
        step = {Qt.Key.Key_Left: (-1, 0), Qt.Key.Key_Right: (1, 0), Qt.Key.Key_Up: (0, -1),
                Qt.Key.Key_Down: (0, 1)}.get(Qt.Key(key))
        if step is not None and self.items_by_key:
            self.step(*step)
            return
        super().keyPressEvent(event)

    def step(self, dx: int, dy: int) -> None:
        """Select the nearest point in a direction (arrow keys walk the graph)."""
        here = self.items_by_key.get(self.selected_key())
        if here is None:
            here = next((i for i in self.items_by_key.values() if i.current),
                        next(iter(self.items_by_key.values())))
            self.select_node(here.node.key)
            return
        origin = here.scenePos()
        best: tuple[float, NodeItem] | None = None
        for item in self.items_by_key.values():
            d = item.scenePos() - origin
            along = d.x() * dx + d.y() * dy
            across = abs(d.y()) if dx else abs(d.x())
            if item is here or along <= 0 or (dx and across > along):
                continue  # sideways: only what lies within 45° of the arrow's direction
            score = along + 3 * across
            if best is None or score < best[0]:
                best = (score, item)
        if best is not None:
            self.select_node(best[1].node.key)
