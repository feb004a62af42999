"""The message view shows a user message with an image decoded into the document."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

from fixtures.qt_app import open_and_settle
from fixtures.scenarios import small_session

# a 1x1 red PNG
PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC")


def test_images_are_decoded_into_the_message_view(qtbot: Any, make_main_window: Any, tmp_path: Path) -> None:
    b = small_session()
    b.message({"role": "user", "content": [
        {"type": "text", "text": "see screenshot"},
        {"type": "image", "mimeType": "image/png", "data": base64.b64encode(PNG).decode()}]},
        id="img00001")
    ctx = make_main_window()
    open_and_settle(qtbot, ctx, b.write(tmp_path / "img.jsonl"))
    ctx.controller.select("img00001")
    doc = ctx.window.message.document()
    images = []
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fmt = it.fragment().charFormat()
            if fmt.isImageFormat():
                images.append(fmt.toImageFormat().name())
            it += 1
        block = block.next()
    assert len(images) == 1 and not doc.resource(2, images[0]).isNull()   # 2 = ImageResource
    assert "image could not be decoded" not in ctx.window.message.toPlainText()


def test_text_around_an_image_is_not_drawn_over_it(qtbot: Any, make_main_window: Any,
                                                   tmp_path: Path) -> None:
    """Every paragraph of an image message lies below the one before it (issue 19)."""
    from PySide6.QtCore import QBuffer, QByteArray
    from PySide6.QtGui import QColor, QImage

    img = QImage(220, 120, QImage.Format.Format_RGB32)
    img.fill(QColor("#3366cc"))
    data = QByteArray()
    buf = QBuffer(data)
    buf.open(QBuffer.OpenModeFlag.WriteOnly)
    img.save(buf, "PNG")
    b = small_session()
    b.message({"role": "user", "content": [
        {"type": "text", "text": "first paragraph\n\nthe last text line before the image"},
        {"type": "image", "mimeType": "image/png", "data": base64.b64encode(bytes(data)).decode()},
        {"type": "text", "text": "after the image"}]}, id="img00002")
    ctx = make_main_window()
    open_and_settle(qtbot, ctx, b.write(tmp_path / "img.jsonl"))
    ctx.controller.select("img00002")
    doc = ctx.window.message.document()
    layout = doc.documentLayout()
    rects, image_block = [], None
    block = doc.begin()
    while block.isValid():
        rects.append((block.text(), layout.blockBoundingRect(block)))
        it = block.begin()
        while not it.atEnd():
            if it.fragment().charFormat().isImageFormat():
                image_block = layout.blockBoundingRect(block)
            it += 1
        block = block.next()
    assert image_block is not None and image_block.height() >= 120
    for (_t1, upper), (t2, lower) in zip(rects, rects[1:], strict=False):
        assert lower.top() >= upper.bottom() - 0.5, t2
    texts = [t for t, _r in rects]
    assert any("the last text line before the image" in t for t in texts)
