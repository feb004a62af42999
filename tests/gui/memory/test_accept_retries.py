"""The Accept dialog lists the retry-storm copies the successor will leave out (the engine's
dry run) and can keep them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

from fixtures.qt_app import mount
from fixtures.scenarios import memory_session
from sessionlens.gui.compaction.accept_dialog import AcceptDialog
from sessionlens.gui.compaction.run import KEEP_RETRY_COPIES

RUN_MS = 30_000


def test_accept_dialog_lists_the_dropped_retry_copies(
        qtbot: Any, qloop: Any, make_app: Any, tmp_path: Path) -> None:
    path, ids = memory_session(tmp_path, retry_storm=True)
    ctx = make_app()
    parts = mount(qtbot, ctx, path, keep_recent=20)
    with qtbot.waitSignal(ctx.controller.plan_ready, timeout=RUN_MS):
        parts.controller.set_cut_entry_id(ids["retry0"])  # keep the storm, summarize before it
    assert parts.controller.plan is not None
    assert parts.controller.plan.first_kept_entry_id == ids["retry0"]
    with qtbot.waitSignal(parts.controller.writes_ready, timeout=RUN_MS) as blocker:
        qtbot.mouseClick(parts.panel.run_button, Qt.MouseButton.LeftButton)
    record = blocker.args[0]
    copies = record.write_plan("successor").dropped_retry_copies
    assert copies  # the engine's dry run drops the unanswered copies
    dialog = AcceptDialog(record, ctx.controller.transcript)
    qtbot.addWidget(dialog)
    listed = [dialog.retries.topLevelItem(i).text(0)
              for i in range(dialog.retries.topLevelItemCount())]
    assert listed == [c.entry_id for c in copies]
    assert set(listed) <= {ids["retry0"], ids["retry1"]}
    assert not dialog.retries.isHidden() and not dialog.keep_retries.isHidden()
    assert str(len(copies)) in dialog.retry_note.text()
    assert not dialog.keep_retry_copies()
    dialog.keep_retries.setChecked(True)
    assert dialog.keep_retry_copies()
    kept = record.write_plan(KEEP_RETRY_COPIES)
    assert kept is not None and kept.dropped_retry_copies == ()
    assert kept.tokens_after > record.write_plan("successor").tokens_after
    dialog.append.setChecked(True)
    assert not dialog.keep_retry_copies() and not dialog.keep_retries.isEnabled()
