"""Render the master SVG icon to the PNG sizes a Linux desktop needs (hicolor theme).

Uses Qt's own SVG renderer, so the build needs nothing beyond the app's dependencies.
Usage: python packaging/render_icons.py resources/icons/sessionlens.svg OUT_DIR
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
APP_ID = "dev.sessionlens.SessionLens"


def render(svg: Path, out_dir: Path) -> list[Path]:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    _app = QGuiApplication.instance() or QGuiApplication([])
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"{svg}: not a valid SVG")
    written = []
    for size in SIZES:
        image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        renderer.render(painter)
        painter.end()
        target = out_dir / "hicolor" / f"{size}x{size}" / "apps" / f"{APP_ID}.png"
        target.parent.mkdir(parents=True, exist_ok=True)
        if not image.save(str(target)):
            raise SystemExit(f"{target}: could not write PNG")
        written.append(target)
    scalable = out_dir / "hicolor" / "scalable" / "apps" / f"{APP_ID}.svg"
    scalable.parent.mkdir(parents=True, exist_ok=True)
    scalable.write_bytes(svg.read_bytes())
    written.append(scalable)
    return written


if __name__ == "__main__":
    for path in render(Path(sys.argv[1]), Path(sys.argv[2])):
        print(path)
