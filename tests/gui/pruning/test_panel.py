"""The pruning tab shows the engine's preview: per tool result and the trigger's delay."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

from fixtures.qt_app import open_and_settle
from fixtures.scenarios import compaction_session, write_session
from sessionlens.engine import load_transcript, pruning_delay


def _show_pruning(qtbot: Any, ctx: Any) -> Any:
    parts = ctx.pruning
    ctx.window.workbench.setCurrentWidget(parts.panel)
    qtbot.waitUntil(lambda: parts.delay is not None, timeout=30_000)
    return parts


def test_rows_and_sentence_are_the_engines_numbers(qtbot: Any, make_main_window: Any,
                                                   tmp_path: Path) -> None:
    path = compaction_session(turns=40).write(tmp_path / "long.jsonl")
    ctx = make_main_window()
    open_and_settle(qtbot, ctx, path)
    parts = _show_pruning(qtbot, ctx)
    c = ctx.controller
    figures = c.figures
    assert figures is not None, "a long session has a plan: the tab uses its context tokens"
    expected = pruning_delay(load_transcript(path), c.settings, keep_turns=3,
                             tokens=c.tokens.report, context_window=c.context_window(),
                             context_tokens=figures.context_tokens if figures else None)
    model = parts.panel.model
    assert expected.preview.results, "the scenario has tool results older than 3 turns"
    assert model.rowCount() == len(expected.preview.results)
    first = expected.preview.results[0]
    assert model.data(model.index(0, 0)) == first.entry_id
    assert model.data(model.index(0, 3), Qt.ItemDataRole.UserRole) == first.trimmed_tokens
    text = parts.panel.summary.text()
    assert f"save {expected.delay_tokens:,} tokens." in text
    assert f"threshold {c.threshold():,}" in text  # the token panel's threshold, same value
    assert f"Context {figures.context_tokens:,} →" in text  # and the plan's context


def test_without_a_plan_the_preview_still_shows(qtbot: Any, make_main_window: Any,
                                                tmp_path: Path) -> None:
    ctx = make_main_window()
    open_and_settle(qtbot, ctx, write_session(tmp_path / "s"))  # nothing to compact yet
    assert ctx.controller.figures is None
    parts = _show_pruning(qtbot, ctx)
    assert parts.panel.model.rowCount() > 0


def test_keeping_every_turn_prunes_nothing(qtbot: Any, make_main_window: Any,
                                           tmp_path: Path) -> None:
    ctx = make_main_window()
    open_and_settle(qtbot, ctx, write_session(tmp_path / "s"))
    parts = _show_pruning(qtbot, ctx)
    assert parts.panel.model.rowCount() > 0
    before = parts.delay
    parts.panel.keep.setValue(500)
    qtbot.waitUntil(lambda: parts.delay is not before, timeout=30_000)
    assert parts.panel.model.rowCount() == 0
    assert parts.panel.summary.text().startswith("Nothing to prune")


def test_activating_a_row_selects_its_entry(qtbot: Any, make_main_window: Any,
                                            tmp_path: Path) -> None:
    ctx = make_main_window()
    open_and_settle(qtbot, ctx, write_session(tmp_path / "s"))
    parts = _show_pruning(qtbot, ctx)
    entry = parts.panel.model.entry_id(1)
    with qtbot.waitSignal(ctx.controller.entry_selected, timeout=5_000) as sig:
        parts.panel.table.activated.emit(parts.panel.model.index(1, 0))
    assert sig.args == [entry]
