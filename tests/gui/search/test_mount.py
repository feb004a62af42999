"""Opening the search dock never widens the window past a 1,280 px screen."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.mark.parametrize("size", [(1280, 800), (1600, 1000)], ids=["1280x800", "1600x1000"])
def test_the_search_dock_fits_the_window(qtbot: Any, make_main_window: Any,
                                         size: tuple[int, int]) -> None:
    ctx = make_main_window()
    win = ctx.window
    win.resize(*size)
    qtbot.wait(20)
    assert win.browser_dock.isVisible()
    ctx.search.action.trigger()
    qtbot.waitUntil(lambda: ctx.search.dock.isVisible(), timeout=5000)
    qtbot.wait(50)
    assert win.width() == size[0]  # 1280: was 1441 (sessions + central + search side by side)
    tabbed = bool(win.tabifiedDockWidgets(ctx.search.dock))
    assert tabbed == (size[0] == 1280)  # at 1600 all three fit side by side
