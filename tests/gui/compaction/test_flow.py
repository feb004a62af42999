"""The whole compaction flow in the real window with the offline provider: plan, run, compare,
audit, accept (successor and append), undo, discard, export, instruction history."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

from fixtures.qt_app import mount, settle
from fixtures.scenarios import COMPACTION_SESSION_ID, small_session, write_session
from fixtures.written import listing, read_rows
from sessionlens.engine import load_transcript
from sessionlens.gui.compaction.prefs import CompactionPrefs

RUN_MS = 30_000


def _run(qtbot: Any, parts: Any, instructions: str = "") -> Any:
    """Run and wait for the audit and the engine's dry runs of the write (Accept needs them)."""
    parts.panel.instructions.setPlainText(instructions)
    with qtbot.waitSignal(parts.controller.writes_ready, timeout=RUN_MS) as blocker:
        qtbot.mouseClick(parts.panel.run_button, Qt.MouseButton.LeftButton)
    return blocker.args[0]


def test_offline_run_writes_nothing_until_accept_then_successor_loads(
        qtbot: Any, qloop: Any, make_main_window: Any, tmp_path: Path) -> None:
    """In the real main window: the parts are its tabs, the timeline reloads after Accept."""
    folder = tmp_path / "sessions"
    path = write_session(folder, store=True)
    original = path.read_bytes()
    ctx = make_main_window()
    parts = mount(qtbot, ctx, path)
    before = listing(folder)

    record = _run(qtbot, parts, "Keep every module path and the pytest commands.")
    assert listing(folder) == before  # a finished, audited run has written nothing
    summarized = set(record.summarized_ids)
    # the plan's summarized ids are real entries of the file, read independently here
    ids_in_file = {r["id"] for r in read_rows(path) if r.get("type") != "session"}
    assert summarized and summarized <= ids_in_file
    assert record.report is not None and parts.audit.checks_model.rowCount() == len(
        record.report.checks)
    assert parts.panel.accept_button.isEnabled()
    assert record.result.summary in parts.panel.summary.toPlainText()

    chosen: dict[str, Any] = {}

    def confirm(rec: Any, t: Any, _parent: Any) -> tuple[str, bool]:
        chosen["planned"] = rec.write_plan("successor").files
        return "successor", True

    parts.panel._confirm_accept = confirm
    with qtbot.waitSignal(parts.controller.accepted, timeout=RUN_MS) as blocker:
        qtbot.mouseClick(parts.panel.accept_button, Qt.MouseButton.LeftButton)
    result = blocker.args[0]
    after = listing(folder)
    new_files = set(after) - set(before)
    assert path.read_bytes() == original  # successor mode never touches the original
    assert {p.name for p in result.written} == new_files | {"sessions.json"}
    assert after["sessions.json"] != before["sessions.json"]
    kinds = [w.kind for w in chosen["planned"]]
    assert kinds == ["checkpoint", "successor", "store"]
    assert chosen["planned"][2].path == folder / "sessions.json"
    assert {f.path for f in chosen["planned"]} == set(result.written)  # the real names

    successor = load_transcript(result.successor_path)
    last = successor.entry(successor.leaf_id)
    assert last.type == "compaction" and last.summary == record.result.summary
    assert successor.header is not None and successor.header.parent_session
    # the timeline now shows the successor
    qtbot.waitUntil(lambda: ctx.controller.path == result.successor_path
                    and not ctx.controller.is_busy(), timeout=RUN_MS)
    tabs = ctx.window.workbench
    titles = [tabs.tabText(i) for i in range(tabs.count())]
    at = titles.index("Compaction")
    assert titles[at:at + 3] == ["Compaction", "Compare", "Audit"]
    assert parts.panel.undo_button.isEnabled()

    with qtbot.waitSignal(parts.controller.undone, timeout=RUN_MS) as blocker:
        qtbot.mouseClick(parts.panel.undo_button, Qt.MouseButton.LeftButton)
    restored = load_transcript(blocker.args[0].successor_path)
    original_rows = [r for r in read_rows(path) if r.get("type") != "session"]
    assert [e.id for e in restored.entries] == [r["id"] for r in original_rows]
    # the session store follows the undo: its record now names the restored transcript
    import json

    records = json.loads((folder / "sessions.json").read_text())
    files = [r.get("sessionFile") for r in records.values() if isinstance(r, dict)]
    assert any(f and Path(f).name == blocker.args[0].successor_path.name for f in files)
    qtbot.waitUntil(lambda: ctx.controller.path == blocker.args[0].successor_path, timeout=RUN_MS)
    settle(qtbot, ctx)


def test_append_mode_changes_only_the_original_and_a_checkpoint(
        qtbot: Any, qloop: Any, make_app: Any, tmp_path: Path) -> None:
    folder = tmp_path / "s"
    path = write_session(folder)
    n_before = len(read_rows(path))
    ctx = make_app()
    parts = mount(qtbot, ctx, path)
    before = listing(folder)
    record = _run(qtbot, parts)
    parts.panel._confirm_accept = lambda *_a: ("append", True)
    with qtbot.waitSignal(parts.controller.accepted, timeout=RUN_MS) as blocker:
        parts.panel.accept_run()
    result = blocker.args[0]
    after = listing(folder)
    assert len(set(after) - set(before)) == 1  # the checkpoint
    assert after[path.name] != before[path.name]
    rows = read_rows(path)
    assert len(rows) == n_before + 1 and rows[-1]["type"] == "compaction"
    assert rows[-1]["summary"] == record.result.summary
    assert after[result.checkpoint_path.name] == before[path.name]
    appended = load_transcript(path)
    assert appended.entry(appended.leaf_id).type == "compaction"
    assert len(load_transcript(result.checkpoint_path).entries) == n_before - 1  # no header
    qtbot.waitUntil(lambda: ctx.controller.transcript is not None
                    and ctx.controller.transcript.file_size == path.stat().st_size, timeout=RUN_MS)
    settle(qtbot, ctx)


def test_discard_and_cancelled_accept_write_nothing(
        qtbot: Any, qloop: Any, make_app: Any, tmp_path: Path) -> None:
    folder = tmp_path / "s"
    path = write_session(folder, store=True)
    ctx = make_app()
    parts = mount(qtbot, ctx, path)
    before = listing(folder)
    _run(qtbot, parts)
    parts.panel._confirm_accept = lambda *_a: None  # the user closes the accept dialog
    parts.panel.accept_run()
    qtbot.wait(200)
    assert listing(folder) == before
    with qtbot.waitSignal(parts.controller.discarded, timeout=2000):
        qtbot.mouseClick(parts.panel.discard_button, Qt.MouseButton.LeftButton)
    assert parts.controller.current is None and not parts.panel.accept_button.isEnabled()
    assert listing(folder) == before


def test_export_three_formats_and_ab_compare(
        qtbot: Any, qloop: Any, make_app: Any, tmp_path: Path) -> None:
    path = write_session(tmp_path / "s")
    ctx = make_app()
    parts = mount(qtbot, ctx, path)
    first = _run(qtbot, parts, "first instructions")
    parts.panel.template.setCurrentText("safeguard")
    second = _run(qtbot, parts, "second instructions")
    assert [r.number for r in parts.controller.runs] == [first.number, second.number]
    parts.compare.set_mode("ab")
    left_title, left, right_title, right = parts.compare.texts()
    assert left == first.result.summary and right == second.result.summary
    assert parts.compare.ab.columnCount() == 2
    ab = parts.compare.ab
    rows = {ab.verticalHeaderItem(i).text(): i for i in range(ab.rowCount())}
    assert "first instructions" in ab.item(rows["Instructions"], 0).text()
    assert "safeguard" in ab.item(rows["Template / policy"], 1).text()
    assert parts.compare.left.toPlainText().strip() and parts.compare.right.toPlainText().strip()

    out = tmp_path / "exports"
    out.mkdir()
    for fmt in ("md", "json", "html"):
        parts.panel._ask_save_path = lambda f, _p: out / f"summary.{f}"
        with qtbot.waitSignal(parts.controller.exported, timeout=RUN_MS):
            parts.panel.export(fmt)
    data = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert data["summary"]["text"] == second.result.summary
    assert data["audit"]["passed"] == second.report.passed
    assert data["source"]["session_id"] == COMPACTION_SESSION_ID
    assert "## " in (out / "summary.md").read_text(encoding="utf-8")
    assert "<html" in (out / "summary.html").read_text(encoding="utf-8").lower()


def test_instruction_history_is_kept_in_qsettings(
        qtbot: Any, qloop: Any, make_app: Any, tmp_path: Path) -> None:
    path = write_session(tmp_path / "s")
    ctx = make_app()
    parts = mount(qtbot, ctx, path)
    _run(qtbot, parts, "keep the deploy commands")
    _run(qtbot, parts, "keep every path")
    history = parts.panel.form.history
    assert [history.itemData(i) for i in range(history.count())] == [
        "keep every path", "keep the deploy commands"]
    assert CompactionPrefs(ctx.paths.settings_file).history()[:2] == [
        "keep every path", "keep the deploy commands"]
    history.activated.emit(1)
    assert parts.panel.instructions.toPlainText() == "keep the deploy commands"


def test_dragged_cut_moves_the_planned_cut(
        qtbot: Any, qloop: Any, make_app: Any, tmp_path: Path) -> None:
    path = write_session(tmp_path / "s")
    ctx = make_app()
    parts = mount(qtbot, ctx, path)
    plan = parts.controller.plan
    users = [i for i in plan.valid_cut_entry_ids if i.startswith("u")]
    target = next(i for i in users[1:] if i != plan.first_kept_entry_id)
    ctx.controller.set_cut(target)  # what dragging the token view's cut line does
    qtbot.waitUntil(lambda: parts.controller.plan is not None
                    and parts.controller.plan.first_kept_entry_id == target, timeout=10_000)
    assert parts.controller.cut_entry_id == target
    qtbot.waitUntil(lambda: target in parts.panel.cut_label.text(), timeout=5000)
    # everything before the cut is summarized, read from the file by the test itself
    ids = [r["id"] for r in read_rows(path) if r.get("type") != "session"]
    expected = ids[:ids.index(target)]
    assert list(parts.controller.plan.summarize_entry_ids) == expected


def test_rerun_of_a_recorded_compaction_compares_with_what_it_wrote(
        qtbot: Any, qloop: Any, make_app: Any, tmp_path: Path) -> None:
    path = small_session().write(tmp_path / "small.jsonl")
    rows = read_rows(path)
    recorded = next(r for r in rows if r.get("type") == "compaction")
    ctx = make_app()
    parts = mount(qtbot, ctx, path, wait_plan=False)
    compare = parts.compare
    assert compare.compactions.currentData() == recorded["id"]
    with qtbot.waitSignal(parts.controller.audit_ready, timeout=RUN_MS) as blocker:
        qtbot.mouseClick(compare.rerun_button, Qt.MouseButton.LeftButton)
    record = blocker.args[0]
    assert record.rerun_of == recorded["id"]
    assert record.recorded_summary == recorded["summary"]
    # the re-run summarized what lies before the recorded firstKeptEntryId (read from the file)
    order = [r["id"] for r in rows if r.get("type") != "session"]
    first_kept = order.index(recorded["firstKeptEntryId"])
    assert set(record.summarized_ids) <= set(order[:first_kept + 1])
    assert compare.mode.currentData() == "recorded"
    left_title, left, _right_title, right = compare.texts()
    assert left == recorded["summary"] and right == record.result.summary
    assert not parts.controller.can_accept() and not parts.panel.accept_button.isEnabled()
    assert parts.audit.source.count() == 2
    parts.audit.source.setCurrentIndex(1)
    parts.audit.source.activated.emit(1)
    assert parts.audit.report is record.recorded_report
    assert recorded["id"] in parts.audit.verdict.text()
