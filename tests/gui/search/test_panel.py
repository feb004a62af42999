"""The search panel: a shortcut away, indexes off the UI thread, hits open the transcript."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from fixtures.factories import TranscriptBuilder, structured_summary
from fixtures.search_sessions import Machine, machine
from sessionlens.gui.app import AppContext
from sessionlens.gui.roles import ItemRole
from sessionlens.gui.search.hit_list import HtmlRole

__all__ = ["machine"]  # the fixture


def _open_panel(qtbot: Any, make_main_window: Callable[..., AppContext],
                dirs: list[Path]) -> AppContext:
    ctx = make_main_window()
    qtbot.waitUntil(lambda: not ctx.controller.is_busy(), timeout=60_000)
    assert ctx.search is not None and ctx.window is not None
    ctx.search.controller.set_session_dirs(lambda: dirs)
    assert not ctx.search.dock.isVisible()
    ctx.window.activateWindow()
    ctx.search.action.trigger()  # what Ctrl+Shift+F does from anywhere
    assert ctx.search.dock.isVisible()
    qtbot.waitUntil(lambda: ctx.search is not None and ctx.search.controller.stats is not None,
                    timeout=60_000)
    return ctx


def _query(qtbot: Any, ctx: AppContext, text: str) -> list[Any]:
    assert ctx.search is not None
    panel = ctx.search.panel
    with qtbot.waitSignal(ctx.search.controller.results_ready, timeout=30_000):
        panel.query.setText(text)  # the typing pause, then the query job
    return [panel.model.data(panel.model.index(r, 0), ItemRole)
            for r in range(panel.model.rowCount())]


def test_a_hit_opens_its_transcript_at_the_entry(qtbot: Any, machine: Machine,
                                                 make_main_window: Callable[..., AppContext]
                                                 ) -> None:
    ctx = _open_panel(qtbot, make_main_window, machine.dirs)
    assert ctx.search is not None
    assert ctx.search.controller.stats is not None
    assert ctx.search.controller.stats.files == 3
    hits = _query(qtbot, ctx, "pgbouncer-eu7")
    path, entry = machine.facts["db"]
    assert (hits[0].path, hits[0].entry_id) == (path.resolve(), entry)
    panel = ctx.search.panel
    html = panel.model.data(panel.model.index(0, 0), HtmlRole)
    assert "main" in html and "not compacted" in html and "background:" in html
    assert "pgbouncer" in html.split("background:")[1]  # the match itself is marked
    QTest.keyClick(panel.query, Qt.Key.Key_Return)  # Enter opens the current hit
    qtbot.waitUntil(lambda: ctx.controller.transcript is not None
                    and ctx.controller.transcript.path.resolve() == path.resolve()
                    and ctx.controller.selected_id == entry, timeout=60_000)


def test_a_hit_says_which_compaction_lost_it(qtbot: Any, tmp_path: Path,
                                             make_main_window: Callable[..., AppContext]
                                             ) -> None:
    b = TranscriptBuilder(plain_users=True)
    fact = b.user("Deploy with the flag --region=ap-south-9 or it breaks.").id
    b.assistant("Understood.")
    kept = b.user("Next task please.").id
    compaction = b.compaction(structured_summary("- deploy flags: none recorded"), kept).id
    b.assistant("Working on it.")
    folder = tmp_path / "sessions"
    folder.mkdir()
    b.write(folder / "lost.jsonl")
    ctx = _open_panel(qtbot, make_main_window, [folder])
    hits = _query(qtbot, ctx, "ap-south-9")
    assert hits[0].entry_id == fact
    assert (hits[0].fate.status, hits[0].fate.compaction_id) == ("lost", compaction)
    assert ctx.search is not None
    html = ctx.search.panel.model.data(ctx.search.panel.model.index(0, 0), HtmlRole)
    assert f"lost at compaction {compaction}" in html
