"""Undo is one action from the Memory tab too: the lineage view's undo, same dialog, same store."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fixtures.scenarios import STORE_KEY, compacted_store_session, memory_session


def test_undo_from_the_memory_tab_repoints_the_store(make_main_window: Any, qtbot: Any,
                                                     tmp_path: Path) -> None:
    folder = tmp_path / "sessions"
    store, wrote = compacted_store_session(folder)
    successor = wrote.successor_path
    assert successor is not None
    ctx = make_main_window()
    mem, undo = ctx.memory, ctx.lineage.controller.undo
    with qtbot.waitSignal(mem.controller.health_ready, timeout=30_000):
        ctx.controller.open(successor)
    panel = mem.panel
    assert not panel.undo.isHidden()
    panel.select_compaction(wrote.compaction_entry_id)
    assert panel.undo.isEnabled()

    before = successor.read_bytes()
    undo.confirm = lambda _plan, _parent: True
    with qtbot.waitSignal(undo.undone, timeout=15_000) as done:
        panel.undo.click()
    restored = Path(done.args[0].successor_path)
    rec = json.loads(store.read_text())[STORE_KEY]
    assert Path(rec["sessionFile"]).name == restored.name
    assert successor.read_bytes() == before  # the compacted file is kept as it was
    qtbot.waitUntil(lambda: ctx.controller.path == restored and not ctx.controller.is_busy(),
                    timeout=15_000)


def test_an_agents_own_compaction_is_refused_with_its_reason(make_main_window: Any, qtbot: Any,
                                                             tmp_path: Path) -> None:
    (tmp_path / "s").mkdir()
    path, _ids = memory_session(tmp_path / "s")  # compactions the agent wrote: no checkpoint
    ctx = make_main_window()
    mem, undo = ctx.memory, ctx.lineage.controller.undo
    with qtbot.waitSignal(mem.controller.health_ready, timeout=30_000) as ready:
        ctx.controller.open(Path(path))
    first = ready.args[0].compactions[0].compaction_id
    mem.panel.select_compaction(first)
    before = {p.name: p.read_bytes() for p in Path(path).parent.iterdir()}
    told: list[Any] = []
    undo.confirm = lambda plan, _parent: told.append(plan) or False
    with qtbot.waitSignal(undo.failed, timeout=15_000) as failed:
        mem.panel.undo.click()
    assert isinstance(told[0], str) and failed.args[0] == told[0]
    assert {p.name: p.read_bytes() for p in Path(path).parent.iterdir()} == before


def test_a_big_file_is_examined_when_the_memory_tab_is_shown(make_main_window: Any, qtbot: Any,
                                                             tmp_path: Path,
                                                             monkeypatch: Any) -> None:
    import sessionlens.gui.memory.controller as controller
    from fixtures.qt_app import open_and_settle

    monkeypatch.setattr(controller, "EAGER_BYTES", 0)  # every file counts as big
    (tmp_path / "s").mkdir()
    path, _ids = memory_session(tmp_path / "s")
    ctx = make_main_window()
    open_and_settle(qtbot, ctx, path)
    mem = ctx.memory
    qtbot.wait(200)
    assert mem.controller.health is None and mem.controller.pending  # not examined yet
    with qtbot.waitSignal(mem.controller.health_ready, timeout=30_000):
        ctx.window.workbench.setCurrentWidget(mem.panel)
    assert mem.panel.model.rowCount() == 2
