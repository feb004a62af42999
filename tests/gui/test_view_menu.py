"""View ▸ Dark mode, the workbench pages, ``--view`` and the reasons on disabled buttons."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication

from fixtures.agent_lines import asst, jl, user
from fixtures.qt_app import mount
from fixtures.scenarios import write_session
from sessionlens.gui.__main__ import split_subcommand
from sessionlens.gui.app import parse_args
from sessionlens.gui.prefs import Prefs
from sessionlens.gui.screenshot import VIEWS

RUN_MS = 30_000


def _claude_code_file(path: Path) -> Path:
    """Eight Claude Code turns, long enough to plan a cut with a small keep-recent."""
    rows, parent = [], None
    for i in range(8):
        rows.append(user(f"u{i}", parent, f"step {i}: fix src/app/m{i}.py " + "context " * 80))
        rows.append(asst(f"a{i}", f"u{i}", [{"type": "text", "text": f"fixed m{i} " + "ok " * 80}],
                         mid=f"m{i}"))
        parent = f"a{i}"
    path.write_bytes(jl(*rows))
    return path


def _window_lightness() -> int:
    return QApplication.palette().color(QPalette.ColorRole.Window).lightness()


def test_dark_toggle_flips_the_palette_and_the_pref(qtbot: Any, make_main_window: Any) -> None:
    ctx = make_main_window("--theme", "light")
    act = ctx.window.act_dark
    assert act in ctx.window.panels_menu.actions()
    assert not act.isChecked() and _window_lightness() >= 128
    act.trigger()
    assert act.isChecked() and _window_lightness() < 128
    assert Prefs(ctx.paths.settings_file).theme() == "dark"
    act.trigger()
    assert _window_lightness() >= 128 and ctx.prefs.theme() == "light"


def test_a_workflow_tab_gets_the_window(qtbot: Any, make_main_window: Any) -> None:
    ctx = make_main_window()
    win = ctx.window
    assert win.timeline.isVisible() and win.tokens.isVisible()
    assert win.show_tab("Audit")
    assert not win.timeline.isVisible() and not win.tokens.isVisible()
    assert win.act_focus.isChecked()
    win.act_focus.trigger()  # the user wants the timeline back beside the audit
    assert win.timeline.isVisible() and win.workbench.currentWidget() is ctx.compaction.audit
    assert win.show_tab("timeline") and win.timeline.isVisible()


@pytest.mark.parametrize("name", ["compaction", "audit", "compare", "lineage", "timeline"])
def test_view_names_pick_their_tab(qtbot: Any, make_main_window: Any, name: str) -> None:
    ctx = make_main_window()
    assert ctx.window.show_tab(VIEWS[name])
    expected = {"compaction": ctx.compaction.panel, "audit": ctx.compaction.audit,
                "compare": ctx.compaction.compare, "timeline": ctx.window.message,
                "lineage": ctx.lineage.panel if ctx.lineage is not None else None}[name]
    assert ctx.window.workbench.currentWidget() is expected


def test_view_option_is_listed_and_may_stand_anywhere(capsys: Any) -> None:
    args = parse_args(["--view", "audit", "x.jsonl", "--screenshot", "o.png"])
    assert args.view == "audit" and args.file == Path("x.jsonl")
    assert split_subcommand(["--view", "audit", "inspect", "f"], {"inspect"}) == (
        "inspect", ["f", "--view", "audit"])
    with pytest.raises(SystemExit):
        parse_args(["--help"])
    out = capsys.readouterr().out
    assert "--view NAME" in out and all(v in out for v in VIEWS)
    with pytest.raises(SystemExit):
        parse_args(["--view", "nowhere"])


def test_disabled_accept_says_why(qtbot: Any, qloop: Any, make_app: Any, tmp_path: Path) -> None:
    ctx = make_app()
    parts = mount(qtbot, ctx, write_session(tmp_path / "s"))
    assert not parts.panel.accept_button.isEnabled()
    assert "Run a compaction first" in parts.panel.accept_button.toolTip()
    assert "Run a compaction" in parts.panel.export_buttons["md"].toolTip()
    assert "Nothing was written" in parts.panel.undo_button.toolTip()


def test_accept_on_a_claude_code_file_names_the_new_session_it_will_write(
        qtbot: Any, qloop: Any, make_app: Any, tmp_path: Path) -> None:
    """A Claude Code transcript is written as a new session beside it: the Accept dialog
    lists that file (its real name, ``<new session id>.jsonl``) and nothing else; an append
    is refused, naming why."""
    from sessionlens.gui.compaction.accept_dialog import AcceptDialog

    ctx = make_app()
    folder = tmp_path / "-home-u-proj"
    folder.mkdir()
    path = _claude_code_file(folder / "6f1f3d48-482e-4da5-8a63-9fac6dba3231.jsonl")
    parts = mount(qtbot, ctx, path, keep_recent=200)
    with qtbot.waitSignal(parts.controller.writes_ready, timeout=RUN_MS) as ready:
        parts.panel.run()
    assert parts.panel.accept_button.isEnabled()
    record = ready.args[0]
    prepared = record.write_plan("successor")
    dlg = AcceptDialog(record, record.transcript)
    qtbot.addWidget(dlg)
    from sessionlens.gui.compaction.accept_dialog import PATH_ROLE

    paths = [dlg.files.item(r, 1).data(PATH_ROLE) for r in range(dlg.files.rowCount())]
    assert paths == [str(folder / f"{prepared.session_id}.jsonl")]
    assert "new Claude Code session" in dlg.files.item(0, 2).text().replace("\u200b", "")
    assert dlg.write_button.isEnabled()
    shot = Path(os.environ.get("SESSIONLENS_SHOT_DIR") or tmp_path) / "accept-claude-code.png"
    assert dlg.grab().save(str(shot)) and shot.stat().st_size > 0
    dlg.append.setChecked(True)
    assert not dlg.write_button.isEnabled()
    assert "--write successor" in dlg.problem.text()
    assert sorted(folder.iterdir()) == [path]                  # nothing written yet


def test_screenshot_of_a_missing_view_lists_the_ones_there(
        qtbot: Any, make_main_window: Any) -> None:
    ctx = make_main_window()
    titles = ctx.window.tab_titles()
    assert not ctx.window.show_tab("No such tab") and ctx.window.tab_titles() == titles
    available = [n for n, t in VIEWS.items() if t in titles]
    assert {"timeline", "compaction", "audit", "compare", "lineage"} <= set(available)


def test_the_chart_shows_a_plain_frame_after_a_failed_open(
        qtbot: Any, make_main_window: Any, tmp_path: Path) -> None:
    """After a failed first open the chart shows a plain 0…1 frame, not ±400 (x0.001)."""
    ctx = make_main_window()
    bad = tmp_path / "missing.jsonl"
    with qtbot.waitSignal(ctx.controller.failed, timeout=RUN_MS):
        ctx.controller.open(bad)
    (x0, x1), (y0, y1) = ctx.window.tokens.chart.getPlotItem().getViewBox().viewRange()
    assert (x0, x1, y0, y1) == (0, 1, 0, 1)


def test_the_trace_screenshot_follows_a_path_from_before_the_first_compaction() -> None:
    from fixtures.factories import TranscriptBuilder
    from sessionlens.gui.screenshot import trace_example

    b = TranscriptBuilder()
    b.user("hello, no paths here")
    b.assistant("I will read /srv/app/settings.toml first.")
    first_kept = b.user("thanks").id
    b.compaction("## Goal\nread it", first_kept)
    b.assistant("Now /var/log/later.log")
    assert trace_example(b.build()) == "/srv/app/settings.toml"
    plain = TranscriptBuilder()
    plain.user("nothing to trace")
    assert trace_example(plain.build()) is None


def test_the_memory_view_waits_for_the_health(qtbot: Any, make_main_window: Any,
                                              tmp_path: Path) -> None:
    from fixtures.scenarios import memory_session
    from sessionlens.gui.screenshot import wait_for_view

    (tmp_path / "s").mkdir()
    path, _ = memory_session(tmp_path / "s")
    ctx = make_main_window()
    with qtbot.waitSignal(ctx.controller.loaded, timeout=30_000):
        ctx.controller.open(path)
    signal = wait_for_view(ctx, "memory")
    if signal is not None:  # not filled yet: the screenshot waits for exactly this signal
        with qtbot.waitSignal(signal, timeout=30_000):
            pass
    qtbot.waitUntil(lambda: ctx.memory.panel.health is not None, timeout=30_000)
    assert wait_for_view(ctx, "memory") is None  # filled: nothing more to wait for
    assert ctx.memory.panel.model.rowCount() == 2
