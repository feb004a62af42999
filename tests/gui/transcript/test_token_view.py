"""The tokens-by-role breakdown keeps its labels at 1280×800: never narrower than its
labels and some bar."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fixtures.qt_app import open_and_settle
from fixtures.scenarios import small_session
from sessionlens.gui.transcript.token_view import BAR_ROOM


def test_role_labels_keep_their_room_at_1280(qtbot: Any, make_main_window: Any,
                                             tmp_path: Path) -> None:
    ctx = make_main_window()
    ctx.window.resize(1280, 800)
    open_and_settle(qtbot, ctx, small_session().write(tmp_path / "s.jsonl"))
    chart = ctx.window.tokens.breakdown
    qtbot.waitUntil(lambda: chart.bars is not None, timeout=30_000)
    qtbot.wait(50)
    axis = chart.getAxis("left")
    labels = [text for _pos, text in axis._tickLevels[0]]
    assert any(t.startswith("toolResult") for t in labels)
    widest = max(chart.fontMetrics().horizontalAdvance(t) for t in labels)
    assert axis.width() >= widest  # the labels are whole
    assert chart.width() >= axis.width() + BAR_ROOM  # and a bar beside them
    # the chart beside it asks for all the room (a narrow window): the labels stay
    split = chart.parentWidget().parentWidget()
    split.setSizes([5000, 1])
    qtbot.wait(50)
    assert chart.width() >= axis.width() + BAR_ROOM
