"""Main flows in a real (offscreen) window: open, select, filter, drag the cut, reload."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from fixtures.factories import TranscriptBuilder, write_rows
from fixtures.qt_app import SETTLE_MS, open_and_settle
from fixtures.scenarios import small_session
from fixtures.written import path_to_root, read_rows
from sessionlens.gui.paths import bundled_sample_path
from sessionlens.gui.roles import EntryIdRole


def test_bundled_sample_opens_with_its_whole_active_path(qtbot: Any, make_main_window: Any) -> None:
    ctx = make_main_window()
    sample = bundled_sample_path()
    open_and_settle(qtbot, ctx, sample)
    rows = read_rows(sample)
    win = ctx.window
    assert win.timeline.model.rowCount() == len(path_to_root(rows))
    compactions = [r for r in rows if r.get("type") == "compaction"]
    assert len(ctx.controller.transcript.compactions) == len(compactions) >= 1
    assert ctx.controller.plan is not None
    assert "SessionLens" in win.windowTitle()
    assert win.diag_dock.isHidden()                  # the sample has no bad lines
    tips = win.tokens.chart._tips                    # compaction markers, with forensics on hover
    assert len(tips) == len(compactions)
    x = next(iter(tips))
    assert "trigger: overflow-retry" in win.tokens.chart._compaction_tip(x, 0.0, None)


def test_select_entry_shows_it_in_the_message_view(qtbot: Any, make_main_window: Any, tmp_path: Path) -> None:
    ctx = make_main_window()
    path = small_session().write(tmp_path / "s.jsonl")
    open_and_settle(qtbot, ctx, path)
    tl = ctx.window.timeline
    row = tl.model.row_of_entry("a0000007")
    assert row is not None
    rect = tl.list.visualRect(tl.model.index(row))
    tl.list.scrollTo(tl.model.index(row))
    rect = tl.list.visualRect(tl.model.index(row))
    qtbot.mouseClick(tl.list.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.waitUntil(lambda: ctx.controller.selected_id == "a0000007", timeout=5000)
    text = ctx.window.message.toPlainText()
    assert "Done with step 7." in text                 # Markdown rendered (no ** left)
    assert "Thinking" in text and "think about it" not in text   # folded by default
    assert "Exact" in text and "Reported" in text
    ctx.window.message._on_anchor(__import__("PySide6.QtCore", fromlist=["QUrl"]).QUrl("fold:thinking0"))
    assert "think about it" in ctx.window.message.toPlainText()


def test_tool_result_double_click_jumps_to_its_call(qtbot: Any, make_main_window: Any, tmp_path: Path) -> None:
    ctx = make_main_window()
    open_and_settle(qtbot, ctx, small_session().write(tmp_path / "s.jsonl"))
    tl = ctx.window.timeline
    idx = tl.model.index(tl.model.row_of_entry("r0000004"))
    tl._jump_to_pair(idx)
    assert ctx.controller.selected_id == "a0000004"
    assert tl.list.currentIndex().data(EntryIdRole) == "a0000004"


def test_filter_by_role_and_text(qtbot: Any, make_main_window: Any, tmp_path: Path) -> None:
    ctx = make_main_window()
    rows = small_session().lines
    open_and_settle(qtbot, ctx, write_rows(tmp_path / "s.jsonl", rows))
    tl = ctx.window.timeline
    on_path = set(path_to_root(rows))
    users = [r for r in rows if r.get("id") in on_path and r["type"] == "message"
             and r["message"]["role"] == "user"]
    tl.role_box.setCurrentIndex(tl.role_box.findData("user"))
    qtbot.waitUntil(lambda: tl.model.rowCount() == len(users), timeout=5000)
    tl.role_box.setCurrentIndex(0)
    qtbot.keyClicks(tl.search, "step 8")
    qtbot.waitUntil(lambda: tl.model.rowCount() == 2, timeout=5000)
    ids = {tl.model.index(r).data(EntryIdRole) for r in range(tl.model.rowCount())}
    assert ids == {"u0000008", "a0000008"}
    assert "2 of" in tl.count.text()
    tl.search.clear()
    qtbot.waitUntil(lambda: tl.model.rowCount() == len(on_path), timeout=5000)


def test_tree_mode_shows_every_entry(qtbot: Any, make_main_window: Any, tmp_path: Path) -> None:
    ctx = make_main_window()
    rows = small_session().lines
    open_and_settle(qtbot, ctx, write_rows(tmp_path / "s.jsonl", rows))
    tl = ctx.window.timeline
    tl.tree_toggle.setChecked(True)
    total = len([r for r in rows if r["type"] != "session"])
    qtbot.waitUntil(lambda: tl.model.rowCount() == total, timeout=5000)
    assert tl.model.row_of_entry("offpath1") is not None


def _drag_target(ctx: Any) -> tuple[int, str]:
    """A valid cut point other than the current one."""
    plan = ctx.controller.plan
    pos = ctx.controller.path_pos
    current = pos[plan.first_kept_entry_id]
    valid = sorted(pos[e] for e in plan.valid_cut_entry_ids if e in pos)
    earlier = [v for v in valid[1:] if v < current]   # valid[0] would summarize nothing
    assert earlier, "the sample must offer a valid cut point before the automatic one"
    x = earlier[len(earlier) // 2]
    return x, ctx.controller.transcript.active_path[x]


def test_dragging_the_cut_line_replans(qtbot: Any, make_main_window: Any) -> None:
    ctx = make_main_window()
    open_and_settle(qtbot, ctx, bundled_sample_path())
    before = ctx.controller.plan
    x, target = _drag_target(ctx)
    chart = ctx.window.tokens.chart
    with qtbot.waitSignal(ctx.controller.plan_ready, timeout=SETTLE_MS):
        chart.drag_cut_to(x + 0.4)                 # off-grid: snaps to the valid point
    qtbot.waitUntil(lambda: ctx.controller.plan.first_kept_entry_id == target, timeout=SETTLE_MS)
    after = ctx.controller.plan
    figures = ctx.controller.figures
    assert int(chart.cut.value()) == x
    assert figures.first_kept_entry_id == after.first_kept_entry_id
    assert after.predicted_tokens_after != before.predicted_tokens_after
    assert f"{figures.predicted_tokens_after:,}" in ctx.window.tokens.prediction.text()
    assert chart.after_line.value() == figures.predicted_tokens_after
    assert ctx.window.tokens.reset_cut.isEnabled()
    ctx.window.tokens.reset_cut.click()
    assert ctx.controller.plan.first_kept_entry_id == before.first_kept_entry_id


def test_reload_when_the_file_grows(qtbot: Any, make_main_window: Any, tmp_path: Path) -> None:
    ctx = make_main_window()
    path = small_session().write(tmp_path / "grow.jsonl")
    open_and_settle(qtbot, ctx, path)
    n = len(ctx.controller.transcript.entries)
    later = TranscriptBuilder.continuing(path)
    later.user("one more thing", plain=True, id="late0001")
    later.append_to(path)
    qtbot.waitUntil(lambda: ctx.controller.transcript is not None
                    and len(ctx.controller.transcript.entries) == n + 1, timeout=SETTLE_MS)
    assert ctx.window.timeline.model.row_of_entry("late0001") is not None


def test_bad_lines_go_to_the_diagnostics_panel(qtbot: Any, make_main_window: Any, tmp_path: Path) -> None:
    ctx = make_main_window()
    path = small_session().write(tmp_path / "bad.jsonl")
    with path.open("a", encoding="utf-8") as fh:
        fh.write("{broken\n")
    open_and_settle(qtbot, ctx, path)
    panel = ctx.window.diagnostics
    assert panel.model.rowCount() >= 1
    assert ctx.window.diag_dock.isVisible()


def test_recent_files_and_last_session_are_remembered(qtbot: Any, make_main_window: Any, tmp_path: Path) -> None:
    ctx = make_main_window()
    path = small_session().write(tmp_path / "r.jsonl")
    open_and_settle(qtbot, ctx, path)
    assert ctx.prefs.recent_files()[0] == path.resolve()
    assert ctx.prefs.last_session() == path
    ctx.window._refresh_recent()
    assert [a.text() for a in ctx.window.recent_menu.actions()] == [path.name]


@pytest.mark.samples
def test_real_sample_04_opens(qtbot: Any, make_main_window: Any, samples_dir: Path, tmp_path: Path) -> None:
    matches = sorted(samples_dir.glob("04_*.jsonl"))
    if not matches:
        pytest.skip("sample 04 is not in the samples folder")
    src = matches[0]
    local = Path(shutil.copy(src, tmp_path / src.name))
    ctx = make_main_window()
    open_and_settle(qtbot, ctx, local)
    rows = read_rows(local)
    assert ctx.window.timeline.model.rowCount() == len(path_to_root(rows))
    n_comp = sum(1 for r in rows if r.get("type") == "compaction")
    assert len(ctx.window.tokens.chart._tips) == n_comp


def test_dropping_a_file_opens_it(qtbot: Any, make_main_window: Any, tmp_path: Path) -> None:
    from PySide6.QtCore import QMimeData, QPointF, QUrl
    from PySide6.QtGui import QDropEvent

    ctx = make_main_window()
    path = small_session().write(tmp_path / "dropped.jsonl")
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    event = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime, Qt.MouseButton.NoButton,
                       Qt.KeyboardModifier.NoModifier)
    with qtbot.waitSignal(ctx.controller.settled, timeout=SETTLE_MS):
        ctx.window.dropEvent(event)
    assert ctx.controller.path == path


def test_cancel_stops_a_load_and_leaves_the_window_usable(qtbot: Any, make_main_window: Any,
                                                         tmp_path: Path) -> None:
    ctx = make_main_window()
    rows = small_session().lines
    big = rows + [dict(r, id=f"x{n:07d}", parentId=(f"x{n - 1:07d}" if n else rows[-1]["id"]))
                  for n, r in enumerate(rows[1:] * 400) if r["type"] == "message"]
    path = write_rows(tmp_path / "big.jsonl", big)
    ctx.controller.open(path)
    assert ctx.controller.is_busy()
    ctx.window.cancel_button.click()
    assert not ctx.controller.is_busy()
    assert ctx.window.progress.isHidden()
    qtbot.wait(200)                                       # a late result must not land
    small = write_rows(tmp_path / "small.jsonl", rows)
    open_and_settle(qtbot, ctx, small)
    assert ctx.controller.path == small


def test_settings_change_replans_with_new_keep_recent(qtbot: Any, make_main_window: Any) -> None:
    import dataclasses

    ctx = make_main_window()
    open_and_settle(qtbot, ctx, bundled_sample_path())
    before = ctx.controller.plan
    overrides = dataclasses.replace(ctx.controller.overrides, keep_recent_tokens=5_000)
    with qtbot.waitSignal(ctx.controller.plan_ready, timeout=SETTLE_MS):
        ctx.controller.apply_overrides(overrides, ctx.controller.encoding)
    after = ctx.controller.plan
    assert after.settings.keep_recent_tokens == 5_000
    assert ctx.controller.resolved.keep_recent_tokens.source == "app settings"
    assert ctx.prefs.compaction_overrides()["keep_recent_tokens"] == 5_000  # stored once
    assert len(after.kept_entry_ids) < len(before.kept_entry_ids)
