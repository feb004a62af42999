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
