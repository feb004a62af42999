"""The Sessions dock shows every session's name at 1280×800 and 1600×1000, and when each
session last had an entry (not when its file was copied)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from fixtures.qt_app import SETTLE_MS
from fixtures.scenarios import small_session
from sessionlens.gui.sessions.model import COLUMNS, session_label


@pytest.mark.parametrize("size", [(1280, 800), (1600, 1000)], ids=["1280x800", "1600x1000"])
def test_every_name_is_whole_in_the_dock(qtbot: Any, make_main_window: Any, tmp_path: Path,
                                         size: tuple[int, int]) -> None:
    folder = tmp_path / "sessions"
    folder.mkdir()
    for n in range(6):
        small_session().write(folder / f"0194a000-0000-7000-8000-00000000000{n}.jsonl")
    ctx = make_main_window()
    ctx.window.resize(*size)
    browser = ctx.window.browser
    with qtbot.waitSignal(ctx.controller.sessions_ready, timeout=SETTLE_MS):
        ctx.controller.discover([folder])
    qtbot.wait(50)
    tree, fm = browser.tree, browser.tree.fontMetrics()
    group = browser.proxy.index(0, 0)
    width = tree.header().sectionSize(0) - 2 * tree.indentation()
    names = []
    for r in range(browser.proxy.rowCount(group)):
        index = browser.proxy.index(r, 0, group)
        info = browser.model.session_at(browser.proxy.mapToSource(index))
        assert info is not None and index.data() == session_label(info)
        names.append(index.data())
        assert fm.horizontalAdvance(index.data()) <= width, (index.data(), width)
        last = browser.proxy.index(r, COLUMNS.index("Last entry"), group)
        if not tree.isColumnHidden(last.column()):
            assert last.data() == "2026-02-01"  # the entries' day, not today's copy
    assert len(names) == 6
    assert tree.horizontalScrollBar().maximum() == 0  # nothing off to the side


def test_an_empty_list_keeps_its_header_whole(qtbot: Any, make_main_window: Any,
                                              tmp_path: Path) -> None:
    from fixtures.qt_clipping import find_clipping

    ctx = make_main_window()
    ctx.window.resize(1280, 800)
    empty = tmp_path / "none"
    empty.mkdir()
    with qtbot.waitSignal(ctx.controller.sessions_ready, timeout=SETTLE_MS):
        ctx.controller.discover([empty])
    qtbot.wait(50)
    assert [c for c in find_clipping(ctx.window.browser) if "Session" in c.text] == []
