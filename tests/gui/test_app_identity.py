"""The running app carries the desktop identity the packaging files declare (issue 10).

On Wayland the compositor matches a window to its .desktop file (name, icon, grouping)
through the app id Qt sends, which is QGuiApplication.desktopFileName(); on X11 the window
icon is what the window itself provides.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

DESKTOP = (Path(__file__).resolve().parents[2] / "packaging" / "linux"
           / "dev.sessionlens.SessionLens.desktop")


def test_running_app_has_the_desktop_id_and_the_app_icon(make_main_window: Any) -> None:
    ctx = make_main_window(show=False)
    assert DESKTOP.is_file()
    assert ctx.app.desktopFileName() == DESKTOP.name.removesuffix(".desktop")
    assert not ctx.app.windowIcon().isNull()
    assert ctx.window is not None
    assert not ctx.window.windowIcon().isNull()
    sizes = {(s.width(), s.height()) for s in ctx.app.windowIcon().availableSizes()}
    assert max(sizes) >= (256, 256)  # drawn from the master, sharp on HiDPI task bars
