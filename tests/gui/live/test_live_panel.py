"""The Live dock follows sessions as they are written: gauge, next cut, pins, alerts."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fixtures.factories import TranscriptBuilder, text_of
from fixtures.openclaw_store import ALPHA_LEAF, append_events, unpack_store
from fixtures.openclaw_store import assistant_event as assistant
from fixtures.openclaw_store import compaction_event as compaction
from fixtures.openclaw_store import user_event as user
from sessionlens.engine import load_pins, load_transcript
from sessionlens.gui.app import AppContext
from sessionlens.gui.live.controller import LiveRow
from sessionlens.gui.live.mount import LiveParts
from sessionlens.gui.roles import ItemRole


def _session(folder: Path, name: str, turns: int, base: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    b = TranscriptBuilder(folder / name)
    for n in range(turns):
        b.user(f"task {n}: edit /srv/{folder.name}/module_{n}.py and run make test-{n}")
        # ~4k tokens a turn: eight turns are more than keep-recent holds
        b.assistant(f"edited module_{n}.py; make test-{n} passed\n{text_of(16_000)}",
                    usage=base + 9_000 * n)
    return b.write(folder / name)


def _open(qtbot: Any, make_main_window: Callable[..., AppContext], root: Path) -> AppContext:
    ctx = make_main_window()
    qtbot.waitUntil(lambda: not ctx.controller.is_busy(), timeout=60_000)
    assert ctx.live is not None and ctx.window is not None
    ctx.live.controller.set_roots(lambda: [root])
    assert ctx.live.controller.board is None  # nothing read before the page is shown
    ctx.live.action.trigger()
    qtbot.waitUntil(lambda: ctx.live is not None and len(ctx.live.controller.rows) == 3,
                    timeout=30_000)
    return ctx


def _row(live: LiveParts, path: Path) -> LiveRow:
    return next(r for r in live.controller.rows if r.path == path.absolute())


def test_live_dock_follows_appends_previews_the_cut_and_alerts_on_compaction(
        qtbot: Any, make_main_window: Callable[..., AppContext], tmp_path: Path) -> None:
    paths = [_session(tmp_path / agent, f"{agent}.jsonl", turns, 20_000)
             for agent, turns in (("alpha", 8), ("beta", 4), ("gamma", 2))]
    ctx = _open(qtbot, make_main_window, tmp_path)
    live = ctx.live
    assert live is not None and ctx.compaction is not None and ctx.window is not None
    panel = live.panel
    assert panel.model.rowCount() == 3 and not panel.empty.isVisible()
    before = _row(live, paths[0]).gauge

    # an appended turn moves that session's gauge, through Qt's watcher
    more = TranscriptBuilder.continuing(paths[0], first_id=500)
    more.user("now edit /srv/alpha/extra.py")
    more.assistant("done", usage=before.context_tokens + 4_000)
    more.append_to(paths[0])
    qtbot.waitUntil(lambda: _row(live, paths[0]).gauge.entries == before.entries + 2,
                    timeout=10_000)
    assert _row(live, paths[0]).gauge.context_tokens == before.context_tokens + 4_000
    assert _row(live, paths[0]).stale_entries == 2  # followed without reading it again

    # selecting it shows where the agent would cut next, and what is at stake
    panel.table.selectRow(next(i for i, r in enumerate(panel.model.rows)
                               if r.path == paths[0].absolute()))
    qtbot.waitUntil(lambda: "first kept" in panel.cut_figures.text(), timeout=20_000)
    assert "specifics live on only if the summary carries them" in panel.stake.text()
    assert "module_0.py" in panel.stake.text()
    assert panel.entries.count() > 0

    # an entry the cut would summarize can be pinned from there
    panel.entries.setCurrentRow(0)
    entry_id = panel.entries.item(0).data(ItemRole)
    panel.pin_button.click()
    qtbot.waitUntil(lambda: panel.pin_note.text().startswith("Pinned"), timeout=20_000)
    assert entry_id in load_pins(load_transcript(paths[0]), ctx.paths.state_dir).entry_ids

    # a compaction appearing raises the banner with its verdict, which opens its audit
    kept = more.user("carry on")
    more.compaction("## Goal\n- edit modules\n", first_kept=kept.id, tokens_before=60_000)
    more.append_to(paths[0])
    qtbot.waitUntil(lambda: panel.banner.isVisible(), timeout=15_000)
    assert "lost " in panel.banner_text.text() and "module_" in panel.banner_text.text()
    panel.banner_open.click()
    qtbot.waitUntil(lambda: ctx.controller.path == paths[0], timeout=20_000)
    assert ctx.window.workbench.currentWidget() is ctx.compaction.audit


def test_live_dock_follows_each_window_of_an_openclaw_store(
        qtbot: Any, make_main_window: Callable[..., AppContext], tmp_path: Path) -> None:
    db = unpack_store(tmp_path)
    writer = sqlite3.connect(db)  # the gateway holds it open: its rows land in the -wal
    with writer:  # both windows written a moment ago, so both are live
        writer.execute("UPDATE session_windows SET updated_at = ?", (int(time.time() * 1000),))
    ctx = make_main_window()
    qtbot.waitUntil(lambda: not ctx.controller.is_busy(), timeout=60_000)
    live = ctx.live
    assert live is not None
    live.controller.set_roots(lambda: [tmp_path])
    live.action.trigger()
    qtbot.waitUntil(lambda: len(live.controller.rows) == 2, timeout=30_000)
    alpha = db / "alpha"
    assert {r.path for r in live.controller.rows} == {alpha, db / "beta"}
    before = _row(live, alpha).gauge
    assert _row(live, alpha).agent == "openclaw"
    append_events(writer, "alpha", [user("u1", ALPHA_LEAF, "edit /srv/alpha/extra.py"),
                                    assistant("a1", "u1", "done", 15_000)],
                  now_ms=int(time.time() * 1000))
    qtbot.waitUntil(lambda: _row(live, alpha).gauge.entries == before.entries + 2,
                    timeout=10_000)
    assert _row(live, alpha).gauge.context_tokens == 15_000 != before.context_tokens
    assert _row(live, alpha).stale_entries == 2  # rows read by seq, not the store again
    append_events(writer, "alpha", [user("u2", "a1", "carry on"),
                                    compaction("c1", "u2", "u2")], compress=True,
                  now_ms=int(time.time() * 1000))
    qtbot.waitUntil(lambda: live.panel.banner.isVisible(), timeout=15_000)
    assert "lost " in live.panel.banner_text.text()
    writer.close()
