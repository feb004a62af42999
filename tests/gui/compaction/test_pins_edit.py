"""Pins from the timeline, the editable summary under live audit, Accept writes "edited"."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

from fixtures.qt_app import mount, settle
from fixtures.scenarios import write_session
from sessionlens.engine import load_pins, load_transcript
from sessionlens.gui.compaction.pins import install_timeline_pins
from sessionlens.gui.transcript.timeline_view import TimelineView

RUN_MS = 30_000


def _run(qtbot: Any, parts: Any) -> Any:
    with qtbot.waitSignal(parts.controller.writes_ready, timeout=RUN_MS) as blocker:
        qtbot.mouseClick(parts.panel.run_button, Qt.MouseButton.LeftButton)
    return blocker.args[0]


def _type(qtbot: Any, parts: Any, text: str) -> Any:
    """Replace the summary's text as a user would and wait for its audit."""
    with qtbot.waitSignal(parts.editor.audited, timeout=RUN_MS) as blocker:
        parts.panel.summary.setPlainText(text)
    return blocker.args[0]


def test_pin_edit_and_accept_as_edited(qtbot: Any, qloop: Any, make_app: Any,
                                       tmp_path: Path) -> None:
    path = write_session(tmp_path / "sessions")
    ctx = make_app()
    timeline = TimelineView(ctx.controller)  # the timeline hears the load
    qtbot.addWidget(timeline)
    parts = mount(qtbot, ctx, path)
    action = install_timeline_pins(timeline, parts.pins)
    qtbot.waitUntil(lambda: timeline.model.rowCount() > 0, timeout=RUN_MS)
    before_cut = parts.controller.plan.summarized_entry_ids[0]
    ctx.controller.select(before_cut)
    qtbot.waitUntil(lambda: timeline.list.currentIndex().isValid(), timeout=RUN_MS)
    qtbot.waitUntil(lambda: parts.pins.places == (), timeout=RUN_MS)  # loaded: no pins yet
    action.trigger()
    qtbot.waitUntil(lambda: [p.entry_id for p in parts.pins.places] == [before_cut],
                    timeout=RUN_MS)
    # remembered in the app's own state folder, shown in the row and in the panel's list
    assert load_pins(load_transcript(path), ctx.paths.state_dir).entry_ids == (before_cut,)
    assert before_cut in timeline.list.itemDelegate().pinned  # type: ignore[attr-defined]
    assert action.text() == "Unpin entry"
    listed = parts.panel.pin_list.item(0).text()
    assert before_cut in listed and "quoted verbatim in the summary" in listed

    record = _run(qtbot, parts)
    pinned_text = load_transcript(path).entry(before_cut).message.text  # type: ignore[union-attr]
    first_line = pinned_text.splitlines()[0].strip()
    assert f"> {first_line}" in record.result.summary
    assert record.report.check("pinned").passed
    generated = record.result.summary

    # take the pinned words out: the live audit fails, naming the entry, in the Audit tab
    broken = _type(qtbot, parts, generated.replace(first_line, "(gone)"))
    check = broken.report.check("pinned")
    assert not check.passed and before_cut in check.detail
    rows = {parts.audit.checks_model.index(r, 0).data(): parts.audit.checks_model.index(r, 1).data()
            for r in range(parts.audit.checks_model.rowCount())}
    assert rows.get("pinned") == "FAIL"
    assert "FAILED" in parts.panel.edit_state.text()

    # a good edit: passes again; Compare shows generated vs edited
    edited = generated + "\n\nNote from the reviewer: module_3 needs a second look."
    good = _type(qtbot, parts, edited)
    assert good.report.check("pinned").passed and good.outcome.provenance.origin == "edited"
    parts.compare.set_mode("edited")
    _lt, left, _rt, right = parts.compare.texts()
    assert left == generated and right == edited
    qtbot.waitUntil(lambda: parts.panel.accept_button.isEnabled(), timeout=RUN_MS)

    parts.panel._confirm_accept = lambda rec, t, _p: ("successor", True)
    with qtbot.waitSignal(parts.controller.accepted, timeout=RUN_MS) as blocker:
        qtbot.mouseClick(parts.panel.accept_button, Qt.MouseButton.LeftButton)
    successor = blocker.args[0].successor_path
    last = json.loads(Path(successor).read_text().splitlines()[-1])
    assert last["summary"] == edited
    assert last["details"]["summaryProvenance"]["origin"] == "edited"
    assert last["details"]["summaryProvenance"]["providerKind"] == "offline"
    settle(qtbot, ctx)
