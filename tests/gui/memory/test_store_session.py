"""The Memory and Pruning tabs on a session of OpenClaw 2026.9.6's SQLite store (the
committed store, its ``openclaw.json`` beside it): the flush is said to be recorded in the
session row, not "0 flush turn(s) in the file", and the size guard's verdict is the active
SQLite history against ``maxActiveTranscriptBytes`` alone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fixtures.openclaw_store import unpack_store
from fixtures.qt_app import SETTLE_MS, open_and_settle


def _store_session(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    store = unpack_store(home)
    (home / ".openclaw" / "openclaw.json").write_text(json.dumps(
        {"agents": {"defaults": {"compaction": {"maxActiveTranscriptBytes": "4kb"}}}}))
    return store / "alpha"


def test_memory_tab_reads_the_flush_and_the_size_guard_from_the_store(
        qtbot: Any, make_main_window: Any, tmp_path: Path) -> None:
    ctx = make_main_window()
    with qtbot.waitSignal(ctx.memory.controller.health_ready, timeout=SETTLE_MS):
        open_and_settle(qtbot, ctx, _store_session(tmp_path))
    panel = ctx.memory.panel
    text = panel.summary.text()
    assert panel.model.rowCount() == 3
    assert "flush turn(s) in the file" not in text
    assert "the session row records the last flush: memoryFlush succeeded at compaction 1 " \
           "of compactionCount 3" in text
    assert "size guard: active SQLite history 4.9 KiB of 4.0 KiB: compacts before the next " \
           "turn" in text
    assert "truncateAfterCompaction" not in text
    flush = [panel.model.index(r, 0).siblingAtColumn(panel.model.columnCount() - 1).data()
             for r in range(panel.model.rowCount())]
    assert "ran" in flush and not any("never" in (f or "") for f in flush)


def test_pruning_tab_on_a_store_session(qtbot: Any, make_main_window: Any,
                                        tmp_path: Path) -> None:
    ctx = make_main_window()
    open_and_settle(qtbot, ctx, _store_session(tmp_path))
    parts = ctx.pruning
    ctx.window.workbench.setCurrentWidget(parts.panel)
    qtbot.waitUntil(lambda: parts.delay is not None, timeout=30_000)
    text = parts.panel.summary.text()
    assert "threshold 24,000" in text  # the store's window and 2026.8+'s reserve
    assert "not in file" not in text and "never ran" not in text
