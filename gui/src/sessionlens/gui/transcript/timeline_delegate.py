"""Paints one timeline row: role stripe, icon, title, preview, tokens, time, markers.

Rows have one fixed height (the view uses uniform item sizes), and everything drawn comes
from prepared row data, so painting a screenful costs the same at 100 or 100,000 entries.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

from sessionlens.gui import colors
from sessionlens.gui.icons import icon
from sessionlens.gui.roles import DepthRole, ItemRole, MarksRole, TokensRole
from sessionlens.gui.transcript.timeline_rows import Mark, TimelineRow

INDENT = 14


class TimelineDelegate(QStyledItemDelegate):
    """Fixed-height painter for ``TimelineRow`` items."""

    def __init__(self, parent: object = None) -> None:
        super().__init__(parent)  # type: ignore[arg-type]
        self._height = 0
        #: Entry ids the user pinned (drawn with a pin glyph; set by ``compaction.pins``).
        self.pinned: frozenset[str] = frozenset()

    def sizeHint(self, option: QStyleOptionViewItem,
                 index: QModelIndex | QPersistentModelIndex) -> QSize:
        if not self._height:
            self._height = max(24, QFontMetrics(option.font).height() + 10)
        return QSize(200, self._height)

    def paint(self, p: QPainter, option: QStyleOptionViewItem,
              index: QModelIndex | QPersistentModelIndex) -> None:
        row: TimelineRow | None = index.data(ItemRole)
        if row is None:
            return
        marks = Mark(index.data(MarksRole) or 0)
        depth = int(index.data(DepthRole) or 0)
        tokens = index.data(TokensRole)
        r = QRect(option.rect)
        pal = option.palette
        dark = colors.is_dark(pal)
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        p.save()
        if marks & Mark.DIVIDER:
            p.fillRect(r, QColor(colors.DIVIDER_BG_DARK if dark else colors.DIVIDER_BG_LIGHT))
            p.setPen(colors.accent(row.icon_key))
            p.drawLine(r.left(), r.top(), r.right(), r.top())
        if selected:
            p.fillRect(r, pal.highlight())
        fg = pal.highlightedText().color() if selected else pal.text().color()
        muted = QColor(fg)
        muted.setAlpha(150)
        if marks & Mark.OFF_PATH:
            fg.setAlpha(120)
        p.fillRect(QRect(r.left(), r.top() + 2, 3, r.height() - 4), colors.accent(row.icon_key))
        x = r.left() + 8 + depth * INDENT
        icon(row.icon_key).paint(p, QRect(x, r.top() + (r.height() - 16) // 2, 16, 16))
        x += 22
        # right side: markers, tokens, time (drawn first so the text can elide before them)
        right = r.right() - 6
        fm = QFontMetrics(option.font)
        p.setPen(muted)
        if row.time:
            w = fm.horizontalAdvance(row.time)
            p.drawText(QRect(right - w, r.top(), w, r.height()), Qt.AlignmentFlag.AlignVCenter, row.time)
            right -= w + 10
        if tokens is not None:
            text = f"{tokens:,} tok"
            w = fm.horizontalAdvance(text)
            p.drawText(QRect(right - w, r.top(), w, r.height()), Qt.AlignmentFlag.AlignVCenter, text)
            right -= w + 8
        if row.entry_id in self.pinned:
            icon("mark-pinned").paint(p, QRect(right - 16, r.top() + (r.height() - 16) // 2,
                                               16, 16))
            right -= 20
        for flag, key in ((Mark.OVERFLOW, "mark-overflow"), (Mark.ERROR, "mark-error"),
                          (Mark.ABORTED, "mark-aborted"), (Mark.LABELLED, "type-label"),
                          (Mark.BRANCH_POINT, "type-branch")):
            if marks & flag:
                icon(key).paint(p, QRect(right - 16, r.top() + (r.height() - 16) // 2, 16, 16))
                right -= 20
        # title then preview
        bold = QFont(option.font)
        bold.setBold(True)
        p.setFont(bold)
        p.setPen(QColor(colors.ERROR) if marks & (Mark.ERROR | Mark.OVERFLOW) and not selected else fg)
        title = row.title + (f"  [{row.label}]" if row.label else "")
        bfm = QFontMetrics(bold)
        title = bfm.elidedText(title, Qt.TextElideMode.ElideRight, max(60, int((right - x) * 0.55)))
        tw = bfm.horizontalAdvance(title)
        p.drawText(QRect(x, r.top(), tw, r.height()), Qt.AlignmentFlag.AlignVCenter, title)
        x += tw + 10
        p.setFont(option.font)
        p.setPen(fg if not marks & Mark.DIVIDER else colors.accent(row.icon_key))
        if right - x > 20:
            preview = fm.elidedText(row.preview, Qt.TextElideMode.ElideRight, right - x)
            p.drawText(QRect(x, r.top(), right - x, r.height()), Qt.AlignmentFlag.AlignVCenter, preview)
        p.restore()
