"""The hit list: one row per hit, drawn as rich text (header line, highlighted snippet).

The model turns each engine ``SearchHit`` into display text once; the delegate lays it out
with a ``QTextDocument`` so matches can be marked inside the snippet. What compaction did
with the hit is the coloured badge at the end of the header line.
"""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QPersistentModelIndex, QSize, Qt
from PySide6.QtGui import QAbstractTextDocumentLayout, QPainter, QPalette, QTextDocument
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

from sessionlens.engine import SearchHit
from sessionlens.gui.colors import ERROR
from sessionlens.gui.roles import DetailRole, ItemRole

#: Rich text of a row (header and snippet).
HtmlRole = DetailRole
_KEPT = "#2da44e"
_LIVE = "#8a8f98"
_MARK_BG = "#ffe08a"

Index = QModelIndex | QPersistentModelIndex


_BADGE_BG = "#ffffff"


def fate_text(hit: SearchHit) -> tuple[str, str]:
    """(badge text, colour) for what compaction did with the hit."""
    f = hit.fate
    if f.status == "kept":
        return f"kept by compaction {f.compaction_id}", _KEPT
    if f.status == "lost":
        return (f"lost at compaction {f.compaction_id} (missing {', '.join(f.missing)})",
                ERROR)
    if f.status == "unchecked":
        return f"replaced by compaction {f.compaction_id}", _LIVE
    return "not compacted", _LIVE


def snippet_html(hit: SearchHit) -> str:
    out, pos = [], 0
    for start, end in hit.highlights:
        out.append(html.escape(hit.snippet[pos:start]))
        out.append(f'<span style="background:{_MARK_BG}; color:#000">'
                   f"{html.escape(hit.snippet[start:end])}</span>")
        pos = end
    out.append(html.escape(hit.snippet[pos:]))
    return "".join(out)


def row_html(hit: SearchHit) -> str:
    when = (hit.timestamp or "")[:16].replace("T", " ")
    badge, colour = fate_text(hit)
    head = (f"<b>{html.escape(hit.agent or '-')}</b> · {html.escape(when)} · "
            f"{html.escape(hit.role)} · {html.escape(hit.path.name)} · "
            # on a light chip: the red "lost at" stays readable on a selected (blue) row
            f'<span style="color:{colour}; background-color:{_BADGE_BG}">&nbsp;{html.escape(badge)}'
            "&nbsp;</span>")
    return f"{head}<br/>{snippet_html(hit)}"


class HitModel(QAbstractListModel):
    """Hits, best first."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.hits: tuple[SearchHit, ...] = ()
        self._html: list[str] = []

    def set_hits(self, hits: tuple[SearchHit, ...]) -> None:
        self.beginResetModel()
        self.hits = hits
        self._html = [row_html(h) for h in hits]
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008, N802
        return 0 if parent.isValid() else len(self.hits)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or index.row() >= len(self.hits):
            return None
        hit = self.hits[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return f"{hit.agent} {hit.timestamp} {hit.snippet}"
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{hit.path}\nentry {hit.entry_id} · score {hit.score:.2f}"
        if role == HtmlRole:
            return self._html[index.row()]
        if role == ItemRole:
            return hit
        return None


class HitDelegate(QStyledItemDelegate):
    """Paints a row's rich text, wrapped to the view's width."""

    def _doc(self, option: QStyleOptionViewItem, index: Index) -> QTextDocument:
        doc = QTextDocument()
        doc.setDefaultFont(option.font)
        doc.setHtml(str(index.data(HtmlRole) or ""))
        doc.setTextWidth(max(80, option.rect.width() - 8))
        return doc

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        style = option.widget.style() if option.widget else None
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        opt.text = ""
        if style is not None:
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)
        doc = self._doc(option, index)
        ctx = QAbstractTextDocumentLayout.PaintContext()
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        group = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        ctx.palette.setColor(QPalette.ColorRole.Text, option.palette.color(group))
        painter.save()
        painter.translate(option.rect.topLeft().x() + 4, option.rect.topLeft().y() + 2)
        doc.documentLayout().draw(painter, ctx)
        painter.restore()

    def sizeHint(self, option: QStyleOptionViewItem, index: Index) -> QSize:  # noqa: N802
        doc = self._doc(option, index)
        return QSize(int(doc.idealWidth()), int(doc.size().height()) + 6)
