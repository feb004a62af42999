"""The session browser lists the sessions of a folder and opens the one picked."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fixtures.qt_app import SETTLE_MS
from fixtures.scenarios import small_session


def test_session_browser_lists_and_opens_sessions(qtbot: Any, make_main_window: Any, tmp_path: Path) -> None:
    folder = tmp_path / "sessions"
    folder.mkdir()
    for name in ("0194a000-0000-7000-8000-000000000001", "0194a000-0000-7000-8000-000000000002"):
        small_session().write(folder / f"{name}.jsonl")
    ctx = make_main_window()
    browser = ctx.window.browser
    with qtbot.waitSignal(ctx.controller.sessions_ready, timeout=SETTLE_MS):
        ctx.controller.discover([folder])
    assert browser.model.session_count() == 2
    browser.filter.setText("000000000002")
    group = browser.proxy.index(0, 0)
    assert browser.proxy.rowCount(group) == 1
    child = browser.proxy.index(0, 0, group)
    with qtbot.waitSignal(ctx.controller.settled, timeout=SETTLE_MS):
        browser._open(child)
    assert ctx.controller.path is not None and ctx.controller.path.name.endswith("02.jsonl")
