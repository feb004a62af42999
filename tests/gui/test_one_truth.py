"""One truth on screen: every widget that shows the window, threshold, tokens before, predicted
after or tokens after shows the same value, read back from the widgets' own text."""

from __future__ import annotations

import re
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from fixtures.qt_app import mount
from fixtures.samples import sample_path
from fixtures.scenarios import write_session
from sessionlens.engine import FIGURE_LABELS, outside_transcript
from sessionlens.gui.compaction.accept_dialog import AcceptDialog

RUN_MS = 60_000
_NUMBER = r"(\d[\d,]*)"


def _values(label: str, text: str) -> list[int]:
    """Every number that follows ``label`` in ``text`` (HTML tags and a colon allowed)."""
    plain = re.sub(r"<[^>]+>", "", text)
    return [int(v.replace(",", ""))
            for v in re.findall(re.escape(label) + r":?\s*" + _NUMBER, plain)]


def _read(widgets: dict[str, str], label: str) -> dict[str, list[int]]:
    return {name: vals for name, text in widgets.items() if (vals := _values(label, text))}


def _check_screen(qtbot: Any, ctx: Any, parts: Any) -> None:
    f = ctx.controller.figures
    assert f is not None
    tokens, chart = ctx.window.tokens, ctx.window.tokens.chart
    texts = {"token totals": tokens.totals.text(), "cut preview": tokens.prediction.text(),
             "compaction panel": parts.panel.cut_label.text()}
    L = FIGURE_LABELS
    for key, expected in (("context_window", f.context_window), ("threshold", f.threshold),
                          ("tokens_before", f.tokens_before),
                          ("predicted_tokens_after", f.predicted_tokens_after)):
        seen = _read(texts, L[key])
        assert seen, f"no widget shows {L[key]}"
        found = {v for vals in seen.values() for v in vals}
        assert found == {expected}, (key, seen)
    # the chart draws the same three lines
    assert chart.window_line.value() == f.context_window
    assert chart.threshold_line.value() == f.threshold
    if f.first_kept_entry_id is not None:
        assert chart.after_line.value() == f.predicted_tokens_after
    assert "window" in texts["token totals"] and len(_read(texts, L["context_window"])) >= 2

    # after a run: the panel, Compare (both modes), the A/B table and Accept say the same
    with qtbot.waitSignal(parts.controller.writes_ready, timeout=RUN_MS) as blocker:
        qtbot.mouseClick(parts.panel.run_button, Qt.MouseButton.LeftButton)
    record = blocker.args[0]
    prepared = record.write_plan("successor")
    assert prepared is not None
    dlg = AcceptDialog(record, record.transcript)
    qtbot.addWidget(dlg)
    parts.compare.refresh()
    after_texts = {"panel status": parts.panel.status.text(), "compare": parts.compare.counts.text(),
                   "accept": dlg.facts.text()}
    ab = [parts.compare.ab.item(r, c).text() for r in range(parts.compare.ab.rowCount())
          for c in range(parts.compare.ab.columnCount())
          if parts.compare.ab.item(r, c) is not None]
    after_texts["A/B"] = " ".join(ab)
    seen_after = _read(after_texts, L["tokens_after"])
    assert set(seen_after) >= {"panel status", "compare", "accept", "A/B"}, seen_after
    assert {v for vals in seen_after.values() for v in vals} == {prepared.tokens_after}
    seen_before = _read(after_texts, L["tokens_before"])
    assert {v for vals in seen_before.values() for v in vals} == {f.tokens_before}
    assert prepared.first_kept_entry_id in dlg.facts.text()
    assert not [w for w in dlg.findChildren(QLabel) if "<timestamp>" in w.text()]


def _open_copy(qtbot: Any, make_main_window: Any, tmp_path: Path, samples_dir: Path,
               prefix: str, keep_recent: int) -> tuple[Any, Any]:
    """A copy of the sample (a run may write beside it) open in a main window, planned."""
    src = sample_path(samples_dir, prefix)
    copy = tmp_path / src.name
    shutil.copyfile(src, copy)
    ctx = make_main_window()
    return ctx, mount(qtbot, ctx, copy, keep_recent=keep_recent)


def test_one_value_per_figure_on_a_generated_session(qtbot: Any, qloop: Any,
                                                     make_main_window: Any,
                                                     tmp_path: Path) -> None:
    ctx = make_main_window()
    parts = mount(qtbot, ctx, write_session(tmp_path / "s", store=True))
    _check_screen(qtbot, ctx, parts)


@pytest.mark.samples
def test_one_value_per_figure_on_a_real_openclaw_session(qtbot: Any, qloop: Any,
                                                         make_main_window: Any, tmp_path: Path,
                                                         samples_dir: Path) -> None:
    ctx, parts = _open_copy(qtbot, make_main_window, tmp_path, samples_dir, "04_", 4000)
    # why exact is below reported: the engine's figure, on the totals line's tooltip
    t, view = ctx.controller.transcript, ctx.controller.tokens
    assert outside_transcript(t, view.report) == 10_315
    assert "Not in the file: ~10,315 of the reported context" in ctx.window.tokens.totals.toolTip()
    _check_screen(qtbot, ctx, parts)


@pytest.mark.samples
def test_the_cut_preview_says_how_many_of_the_summarized_the_last_compaction_kept(
        qtbot: Any, qloop: Any, make_main_window: Any, tmp_path: Path,
        samples_dir: Path) -> None:
    """Sample 01 is pi's own session. Today's pi (the default rule, pi-1.6) summarizes the
    tail its last compaction kept again, in its region; the pi-0.58 rule leaves it out, and
    this cut takes it out of the context, so SessionLens summarizes it with the rest."""
    ctx, parts = _open_copy(qtbot, make_main_window, tmp_path, samples_dir, "01_", 20_000)
    plan = ctx.controller.plan
    assert plan is not None and plan.cut_rule == "pi-1.6" and not plan.carried_tail_entry_ids
    ctx.controller.apply_overrides(replace(ctx.controller.overrides, cut_rule="pi-0.58"))
    qtbot.waitUntil(lambda: ctx.controller.plan is not None
                    and ctx.controller.plan.cut_rule == "pi-0.58", timeout=10_000)
    plan, f = ctx.controller.plan, ctx.controller.figures
    assert plan is not None and f is not None and plan.cut_rule == "pi-0.58"
    carried = len(plan.carried_tail_entry_ids)
    assert carried > 0 and f.entries_summarized == len(plan.summarized_entry_ids)
    text = re.sub(r"<[^>]+>", "", ctx.window.tokens.prediction.text())
    assert (f"{f.entries_summarized:,} {FIGURE_LABELS['entries_summarized']} "
            f"({carried:,} of them the last compaction kept verbatim)") in text
    # the chart shades what leaves the context from the first carried entry to the cut
    chart, pos = ctx.window.tokens.chart, ctx.controller.path_pos
    assert chart.summarized.getRegion() == (
        pos[plan.carried_tail_entry_ids[0]], pos[plan.first_kept_entry_id])
    assert (f"{carried:,} of the {FIGURE_LABELS['entries_summarized']} are the tail the last "
            "compaction kept verbatim: pi-0.58 alone would drop them unsummarized"
            ) in parts.panel.cut_label.text()
