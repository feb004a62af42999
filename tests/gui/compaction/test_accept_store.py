"""Accept on a session of OpenClaw 2026.9's SQLite store: the app runs the engine's dry run,
the dialog offers the append OpenClaw's own compactor does (a successor is refused, and says
why), and Accept writes the compaction into the store; Undo puts the store back."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fixtures.openclaw_store import ALPHA_LEAF, unpack_store
from fixtures.qt_app import mount, settle
from sessionlens.engine import load_transcript
from sessionlens.gui.compaction.accept_dialog import AcceptDialog


def test_accept_writes_into_the_store_and_undo_restores_it(
        qtbot: Any, qloop: Any, make_app: Any, tmp_path: Path) -> None:
    db = unpack_store(tmp_path / "home")
    ctx = make_app()
    parts = mount(qtbot, ctx, db / "alpha", keep_recent=50)
    with qtbot.waitSignal(parts.controller.writes_ready, timeout=60_000) as ready:
        parts.panel.run()
    record = ready.args[0]
    assert "append" in str(record.write_plans["successor"])  # refused, naming the way
    dlg = AcceptDialog(record, record.transcript)
    qtbot.addWidget(dlg)
    assert dlg.mode() == "append" and dlg.write_button.isEnabled()
    # a store session is rows of a database file, not a transcript in a folder
    assert dlg.folder.text() == f"In the database {db.absolute()}:"
    assert "session in the database" in dlg.append.text()
    prepared = record.write_plan("append")
    assert [f.kind for f in prepared.files] == ["checkpoint", "append"]
    assert "transcript_events" in prepared.files[1].note
    with qtbot.waitSignal(parts.controller.accepted, timeout=60_000) as written:
        parts.controller.accept("append")
    result = written.args[0]
    assert result.compaction_entry_id == prepared.compaction_entry_id
    assert load_transcript(db / "alpha").leaf_id == prepared.compaction_entry_id
    settle(qtbot, ctx)
    with qtbot.waitSignal(parts.controller.undone, timeout=60_000):
        parts.controller.undo()
    assert load_transcript(db / "alpha").leaf_id == ALPHA_LEAF
    settle(qtbot, ctx)
