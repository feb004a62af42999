"""The Trace tab on a real chain: kept by the early compactions, then lost; the sentence is
the engine's, a row opens its entry, and "Trace this…" starts from a dropped item."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fixtures.chains import make_chain
from fixtures.qt_app import SETTLE_MS, open_and_settle
from sessionlens.engine import describe_trace, load_chain_transcripts, trace_fact

FACT = "ABC-1234"  # the chain's summaries carry it up to generation 3, then drop it


def _trace(qtbot: Any, ctx: Any, text: str) -> Any:
    with qtbot.waitSignal(ctx.trace.controller.ready, timeout=SETTLE_MS) as blocker:
        ctx.trace.panel.trace(text)
    return blocker.args[0]


def test_trace_shows_kept_then_lost_along_the_chain(
        qtbot: Any, make_main_window: Any, tmp_path: Path) -> None:
    files = make_chain(tmp_path, depth=5)
    last = files.transcripts[-1]
    ctx = make_main_window()
    open_and_settle(qtbot, ctx, last)
    answer = _trace(qtbot, ctx, FACT)
    panel = ctx.trace.panel
    statuses = panel.statuses()
    assert "kept" in statuses and "dropped" in statuses
    assert statuses.index("kept") < statuses.index("dropped")
    expected = trace_fact(load_chain_transcripts(last)[0], FACT)
    assert expected.lost_at is not None
    assert statuses.index("dropped") == expected.lost_at.number - 1
    assert answer.verdict == describe_trace(expected)
    assert f"lost at compaction {expected.lost_at.number}" in panel.verdict.text()


def test_trace_this_shows_the_tab_and_traces(
        qtbot: Any, make_main_window: Any, tmp_path: Path) -> None:
    files = make_chain(tmp_path, depth=4)
    ctx = make_main_window()
    open_and_settle(qtbot, ctx, files.transcripts[-1])
    with qtbot.waitSignal(ctx.trace.controller.ready, timeout=SETTLE_MS) as blocker:
        ctx.trace.trace("  /src/app/mod1.py ")  # as the context menus hand a selection over
    assert ctx.window.workbench.currentWidget() is ctx.trace.panel
    assert ctx.trace.panel.query.text() == "/src/app/mod1.py"
    assert blocker.args[0].trace.query == "/src/app/mod1.py"
    assert blocker.args[0].trace.mentions


def test_a_row_selects_its_entry(qtbot: Any, make_main_window: Any, tmp_path: Path) -> None:
    files = make_chain(tmp_path, depth=2)
    last = files.transcripts[-1]
    ctx = make_main_window()
    open_and_settle(qtbot, ctx, last)
    answer = _trace(qtbot, ctx, "gen 2 turn 1")
    mentions = [m for m in answer.trace.mentions if m.path == last]
    assert mentions
    row = answer.trace.mentions.index(mentions[0])
    ctx.trace.panel.mentions.cellClicked.emit(row, 0)
    assert ctx.controller.selected_id == mentions[0].entry_id


def test_the_text_column_keeps_the_room_beside_long_file_names(
        qtbot: Any, make_main_window: Any, tmp_path: Path) -> None:
    """A chain's successor names are long: the columns before Text stop at a cap, so Text
    (the mention itself) takes the rest at 1280×800 instead of a few characters."""
    from sessionlens.gui.trace.panel import COLUMN_CAP

    files = make_chain(tmp_path, depth=5)
    ctx = make_main_window()
    ctx.window.resize(1280, 800)
    open_and_settle(qtbot, ctx, files.transcripts[-1])
    ctx.window.show_tab("Trace")
    _trace(qtbot, ctx, "/src/app/mod1.py")  # written in the users' turns of generation 1
    table = ctx.trace.panel.mentions
    assert table.rowCount() > 0
    last = table.columnCount() - 1
    assert all(table.columnWidth(c) <= COLUMN_CAP for c in range(last))
    assert table.columnWidth(last) >= 300, table.columnWidth(last)
