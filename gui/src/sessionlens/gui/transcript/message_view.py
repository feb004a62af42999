"""The message view: one entry rendered for reading.

Text is Markdown, thinking and raw JSON are folded behind a link, tool arguments and
results are highlighted with pygments, images are decoded into the document, and the
entry's three token numbers sit in the header. Folding re-renders the one entry shown.
"""

from __future__ import annotations

import contextlib
import json
from typing import TYPE_CHECKING

from PySide6.QtCore import QUrl
from PySide6.QtGui import (
    QImage,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextImageFormat,
)
from PySide6.QtWidgets import QTextBrowser, QWidget

from sessionlens.engine import ImageBlock
from sessionlens.gui import colors
from sessionlens.gui.session_controller import SessionController

from . import message_render as mr

if TYPE_CHECKING:
    from sessionlens.engine import Entry

#: Widest an inline image is drawn (pixels); larger ones are scaled down.
MAX_IMAGE_WIDTH = 640


class MessageView(QTextBrowser):
    """Read-only rendering of the controller's selected entry."""

    def __init__(self, controller: SessionController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._c = controller
        self._entry: Entry | None = None
        self._open: set[str] = set()
        self.setOpenLinks(False)
        self.setObjectName("messageView")
        self.anchorClicked.connect(self._on_anchor)
        controller.entry_selected.connect(self._on_selected)
        controller.tokens_ready.connect(lambda _v: self.render_entry())
        controller.loaded.connect(self._on_loaded)
        self._placeholder()

    def _placeholder(self) -> None:
        self.setHtml("<p style='color:gray'>" + self.tr("Select an entry in the timeline to read it here.")
                     + "</p>")

    def _on_loaded(self, _t: object) -> None:
        self._entry = None
        self._placeholder()

    def _on_selected(self, entry_id: str) -> None:
        t = self._c.transcript
        if t is None:
            return
        self._entry = t.entry(entry_id)
        self._open.clear()
        self.render_entry()

    def _on_anchor(self, url: QUrl) -> None:
        s = url.toString()
        if s.startswith("fold:"):
            key = s[5:]
            self._open.symmetric_difference_update({key})
            bar = self.verticalScrollBar().value()
            self.render_entry()
            self.verticalScrollBar().setValue(bar)

    @property
    def entry(self) -> Entry | None:
        return self._entry

    def render_entry(self) -> None:
        """Rebuild the document for the current entry (cheap: one entry, clipped payloads)."""
        e = self._entry
        t = self._c.transcript
        if e is None or t is None:
            return
        dark = colors.is_dark(self.palette())
        doc = self.document()       # one document, cleared: no leak of one per selection
        doc.clear()
        doc.setDefaultFont(self.font())
        cur = QTextCursor(doc)
        tokens = self._c.tokens.report.entries.get(e.id) if self._c.tokens is not None else None
        cur.insertHtml(mr.header_html(e, t.labels.get(e.id), self.tr)
                       + mr.tokens_html(e, tokens, self._c.encoding, self.tr) + "<hr/>")
        for n, (kind, value) in enumerate(mr.block_parts(e)):
            self._new_block(cur)
            if kind == "markdown":
                text, rest = mr.clip(str(value))
                cur.insertMarkdown(text)
                if rest:
                    cur.insertHtml(f"<p><i>… {rest:,} {self.tr('more characters')}</i></p>")
            elif kind == "thinking":
                key = f"thinking{n}"
                title = self.tr("Thinking") + f" ({len(value):,} {self.tr('chars')})"
                cur.insertHtml(mr.fold_link(key, title, key in self._open))
                if key in self._open:
                    self._new_block(cur)
                    cur.insertHtml("<div style='color:gray'><i>"
                                   + mr.clip(str(value))[0].replace("&", "&amp;").replace("<", "&lt;")
                                   .replace("\n", "<br/>") + "</i></div>")
            elif kind == "tool":
                cur.insertHtml(f"<p><b>{self.tr('Tool call')}: {value.name}</b> "
                               f"<span style='color:gray'>{value.id}</span></p>")
                self._new_block(cur)
                cur.insertHtml(mr.code_html(mr.json_text(value.arguments), "json", dark))
            elif kind == "code":
                lang, text = value
                cur.insertHtml(mr.code_html(text, lang, dark))
            elif kind == "error":
                cur.insertHtml(mr.error_html(str(value)))
            elif kind == "image":
                self._insert_image(doc, cur, value, n)
        self._insert_raw(cur, e, dark)

    def _insert_image(self, doc: QTextDocument, cur: QTextCursor, block: object, n: int) -> None:
        data = mr.image_bytes(block) if isinstance(block, ImageBlock) else None
        img = QImage()
        if not data or not img.loadFromData(data):
            cur.insertHtml(mr.error_html(self.tr("image could not be decoded")))
            return
        if img.width() > MAX_IMAGE_WIDTH:
            img = img.scaledToWidth(MAX_IMAGE_WIDTH)
        name = f"img://{n}"
        doc.addResource(QTextDocument.ResourceType.ImageResource, QUrl(name), img)
        fmt = QTextImageFormat()
        fmt.setName(name)
        fmt.setWidth(img.width())
        fmt.setHeight(img.height())
        # the image in a paragraph of its own with room above and below, so the text line
        # before it is never drawn over its top edge
        block = QTextBlockFormat()
        block.setTopMargin(6)
        block.setBottomMargin(6)
        cur.setBlockFormat(block)
        cur.insertImage(fmt)

    @staticmethod
    def _new_block(cur: QTextCursor) -> None:
        """A fresh paragraph at the end (a plain insertBlock would inherit a rule or a code style)."""
        cur.movePosition(QTextCursor.MoveOperation.End)
        cur.insertBlock(QTextBlockFormat(), QTextCharFormat())

    def _insert_raw(self, cur: QTextCursor, e: Entry, dark: bool) -> None:
        self._new_block(cur)
        open_ = "raw" in self._open
        cur.insertHtml(mr.fold_link("raw", self.tr("Raw JSON line"), open_))
        if not open_ or self._c.transcript is None:
            return
        raw = self._c.transcript.raw_line(e).decode("utf-8", errors="replace")
        # a line that is not valid JSON is shown as it was read, not re-indented
        with contextlib.suppress(ValueError):
            raw = json.dumps(json.loads(raw), indent=2, ensure_ascii=False)
        self._new_block(cur)
        cur.insertHtml(mr.code_html(raw, "json", dark))
