"""Undo a SessionLens compaction from the lineage view: confirm, restore, store repointed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fixtures.scenarios import STORE_KEY, compacted_store_session
from sessionlens.engine import load_transcript


def test_undo_from_the_lineage_view_repoints_the_store(make_main_window: Any, qtbot: Any,
                                                       tmp_path: Path) -> None:
    folder = tmp_path / "sessions"
    store, wrote = compacted_store_session(folder)
    successor = wrote.successor_path
    assert successor is not None
    ctx = make_main_window()
    lin, panel = ctx.lineage.controller, ctx.lineage.panel
    ctx.window.workbench.setCurrentWidget(panel)
    with qtbot.waitSignal(lin.lineage_ready, timeout=10_000) as ready:
        ctx.controller.open(successor)
    comp = next(n for n in ready.args[0].lineage.of_kind("compaction")
                if n.path == successor and not n.inherited)
    assert comp.entry_id == wrote.compaction_entry_id

    # a refused confirmation writes nothing
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    asked: list[Any] = []
    lin.undo.confirm = lambda plan, _parent: asked.append(plan) or False
    panel.graph.select_node(comp.key)
    assert panel.undo_button.isEnabled()
    with qtbot.waitSignal(lin.undo.planned, timeout=10_000):
        panel.undo_button.click()
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before
    plan = asked[0]
    # the dialog says exactly what will change: the new file and the repointed record
    assert plan.checkpoint == wrote.checkpoint_path
    assert any(plan.restore.target.name in line and STORE_KEY in line for line in plan.changes)

    lin.undo.confirm = lambda _plan, _parent: True
    with qtbot.waitSignal(lin.undo.undone, timeout=10_000) as done:
        panel.undo_button.click()
    restored = done.args[0].successor_path
    rec = json.loads(store.read_text())[STORE_KEY]
    assert Path(rec["sessionFile"]).name == Path(restored).name
    assert rec["sessionId"] == load_transcript(restored).session_id
    assert successor.read_bytes() == before[successor.name]  # the compacted file is kept
    qtbot.waitUntil(lambda: ctx.controller.path == Path(restored)
                    and not ctx.controller.is_busy(), timeout=10_000)
    # the lineage is rebuilt around the restored file
    qtbot.waitUntil(lambda: lin.result is not None and any(
        n.path == Path(restored) for n in lin.result.lineage.of_kind("transcript")),
        timeout=10_000)
