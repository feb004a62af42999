"""Paints one timeline row: role stripe, icon, title, preview, tokens, time, markers.

Rows have one fixed height (the view uses uniform item sizes), and everything drawn comes
from prepared row data, so painting a screenful costs the same at 100 or 100,000 entries.
"""

from __future__ import annotations

from typing import NamedTuple

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPixmap
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

from sessionlens.gui import colors
from sessionlens.gui.icons import icon
from sessionlens.gui.roles import ItemRole, TokensRole
from sessionlens.gui.transcript.timeline_rows import Mark, TimelineRow

INDENT = 14
#: Rows whose elided texts are kept (a few screenfuls; cleared when full).
TEXT_CACHE_ROWS = 4000

_DIVIDER, _OFF_PATH = int(Mark.DIVIDER), int(Mark.OFF_PATH)
_ALARM = int(Mark.ERROR | Mark.OVERFLOW)
_MARK_ICONS = ((int(Mark.OVERFLOW), "mark-overflow"), (int(Mark.ERROR), "mark-error"),
               (int(Mark.ABORTED), "mark-aborted"), (int(Mark.LABELLED), "type-label"),
               (int(Mark.BRANCH_POINT), "type-branch"))


class _Fonts(NamedTuple):
    """The row font and its bold twin, with their metrics."""

    metrics: QFontMetrics
    bold: QFont
    bold_metrics: QFontMetrics


class TimelineDelegate(QStyledItemDelegate):
    """Fixed-height painter for ``TimelineRow`` items."""

    def __init__(self, parent: object = None) -> None:
        super().__init__(parent)  # type: ignore[arg-type]
        self._height = 0
        #: Entry ids the user pinned (drawn with a pin glyph; set by ``compaction.pins``).
        self.pinned: frozenset[str] = frozenset()
        self._font_cache: dict[str, _Fonts] = {}
        self._pixmaps: dict[tuple[str, float], QPixmap] = {}
        self._text_cache: dict[tuple[str, str, str | None, str, int], tuple[str, int, str]] = {}

    @staticmethod
    def row_height(font: QFont) -> int:
        """Every row's height: the font's line plus padding, never under 24 px."""
        return max(24, QFontMetrics(font).height() + 10)

    def sizeHint(self, option: QStyleOptionViewItem,
                 index: QModelIndex | QPersistentModelIndex) -> QSize:
        if not self._height:
            self._height = self.row_height(option.font)
        return QSize(200, self._height)

    def paint(self, p: QPainter, option: QStyleOptionViewItem,
              index: QModelIndex | QPersistentModelIndex) -> None:
        row: TimelineRow | None = index.data(ItemRole)
        if row is None:
            return
        marks = int(row.marks)  # plain ints: IntFlag arithmetic was a tenth of the paint
        tokens = index.data(TokensRole)
        r = QRect(option.rect)
        pal = option.palette
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        fonts = self._fonts(option.font)
        p.save()
        if marks & _DIVIDER:
            dark = colors.is_dark(pal)
            p.fillRect(r, QColor(colors.DIVIDER_BG_DARK if dark else colors.DIVIDER_BG_LIGHT))
            p.setPen(colors.accent(row.icon_key))
            p.drawLine(r.left(), r.top(), r.right(), r.top())
        if selected:
            p.fillRect(r, pal.highlight())
        fg = pal.highlightedText().color() if selected else pal.text().color()
        muted = QColor(fg)
        muted.setAlpha(150)
        if marks & _OFF_PATH:
            fg.setAlpha(120)
        p.fillRect(QRect(r.left(), r.top() + 2, 3, r.height() - 4), colors.accent(row.icon_key))
        x = r.left() + 8 + row.depth * INDENT
        icon_top = r.top() + (r.height() - 16) // 2
        self._icon(p, row.icon_key, x, icon_top)
        x += 22
        # right side: markers, tokens, time (drawn first so the text can elide before them)
        right = r.right() - 6
        fm = fonts.metrics
        p.setPen(muted)
        middle = Qt.AlignmentFlag.AlignVCenter
        if row.time:
            w = fm.horizontalAdvance(row.time)
            p.drawText(QRect(right - w, r.top(), w, r.height()), middle, row.time)
            right -= w + 10
        if tokens is not None:
            text = f"{tokens:,} tok"
            w = fm.horizontalAdvance(text)
            p.drawText(QRect(right - w, r.top(), w, r.height()), middle, text)
            right -= w + 8
        if row.entry_id in self.pinned:
            self._icon(p, "mark-pinned", right - 16, icon_top)
            right -= 20
        for flag, key in _MARK_ICONS:
            if marks & flag:
                self._icon(p, key, right - 16, icon_top)
                right -= 20
        # title then preview
        title, tw, preview = self._texts(row, fonts, right - x)
        p.setFont(fonts.bold)
        p.setPen(QColor(colors.ERROR) if marks & _ALARM and not selected else fg)
        p.drawText(QRect(x, r.top(), tw, r.height()), middle, title)
        x += tw + 10
        p.setFont(option.font)
        p.setPen(fg if not marks & _DIVIDER else colors.accent(row.icon_key))
        if right - x > 20:
            p.drawText(QRect(x, r.top(), right - x, r.height()), middle, preview)
        p.restore()

    # caches: a screenful repaints several times while a session opens ------------------------
    def _fonts(self, font: QFont) -> _Fonts:
        key = font.key()
        found = self._font_cache.get(key)
        if found is None:
            bold = QFont(font)
            bold.setBold(True)
            found = self._font_cache[key] = _Fonts(QFontMetrics(font), bold, QFontMetrics(bold))
            self._text_cache.clear()
        return found

    def _icon(self, p: QPainter, key: str, x: int, y: int) -> None:
        ratio = p.device().devicePixelRatioF() if p.device() is not None else 1.0
        pix = self._pixmaps.get((key, ratio))
        if pix is None:
            pix = self._pixmaps[(key, ratio)] = icon(key).pixmap(QSize(16, 16), ratio)
        p.drawPixmap(QRect(x, y, 16, 16), pix)

    def _texts(self, row: TimelineRow, fonts: _Fonts, room: int) -> tuple[str, int, str]:
        """The elided title, its width, and the preview elided to what is left of ``room``."""
        key = (row.entry_id, row.title, row.label, row.preview, room)
        found = self._text_cache.get(key)
        if found is None:
            if len(self._text_cache) > TEXT_CACHE_ROWS:
                self._text_cache.clear()
            title = row.title + (f"  [{row.label}]" if row.label else "")
            title = fonts.bold_metrics.elidedText(title, Qt.TextElideMode.ElideRight,
                                                  max(60, int(room * 0.55)))
            tw = fonts.bold_metrics.horizontalAdvance(title)
            rest = room - tw - 10
            preview = fonts.metrics.elidedText(row.preview, Qt.TextElideMode.ElideRight,
                                               rest) if rest > 20 else ""
            found = self._text_cache[key] = (title, tw, preview)
        return found
