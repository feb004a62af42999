"""No text is cut anywhere: every main view at 1280×800 and 1600×1000, on a generated
transcript and on the real samples, walked label by label (issue 19)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QLabel, QPushButton, QTabWidget, QVBoxLayout, QWidget

from fixtures.qt_app import SETTLE_MS, open_and_settle
from fixtures.qt_clipping import find_clipping
from fixtures.samples import SAMPLES_DIR
from fixtures.scenarios import compaction_session
from sessionlens.gui.screenshot import VIEWS, start_view_run

SIZES = ((1280, 800), (1600, 1000))
#: The real samples the views are walked on (those present; the rest are skipped).
SAMPLE_PREFIXES = ("01_", "03_", "04_", "07_", "09_")


def _generated(folder: Path) -> Path:
    """A session with one recorded compaction and turns after it."""
    b = compaction_session(turns=8)
    b.compaction("## Goal\nFix the imports.\n", first_kept="u0000006", tokens_before=21_000)
    for t in range(3):
        b.user(f"After the compaction, step {t}: run the linter on src/app/module_{t}.py")
        b.assistant(f"Linted module_{t}: clean.")
    return b.write(folder / "generated.jsonl")


def _files(tmp_path: Path) -> list[Path]:
    files = [_generated(tmp_path)]
    for prefix in SAMPLE_PREFIXES:
        files += sorted(SAMPLES_DIR.glob(f"{prefix}*.jsonl"))[:1]
    return files


def _walk_views(qtbot: Any, ctx: Any) -> list[str]:
    """Every main view (and every tab inside it) checked; the problems, named."""
    win, problems = ctx.window, []
    for name, title in VIEWS.items():
        if not win.show_tab(title):
            continue  # a view this build does not have (the memory tab lives on another branch)
        qtbot.wait(30)
        page = win.workbench.currentWidget()
        inner = [t for t in page.findChildren(QTabWidget) if t.isVisible()] or [None]
        for tabs in inner:
            for i in range(tabs.count() if tabs is not None else 1):
                if tabs is not None:
                    tabs.setCurrentIndex(i)
                    qtbot.wait(20)
                problems += [f"[{name}] {c}" for c in find_clipping(win)]
    win.show_tab(VIEWS["timeline"])
    return problems


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_no_view_cuts_text(qtbot: Any, qloop: Any, make_main_window: Any, tmp_path: Path,
                           size: tuple[int, int]) -> None:
    ctx = make_main_window()
    ctx.window.resize(*size)
    problems: list[str] = []
    for path in _files(tmp_path):
        open_and_settle(qtbot, ctx, path)
        waiting = start_view_run(ctx, "audit")
        if waiting is not None:  # the run views then show a summary, its audit and diff
            with qtbot.waitSignal(waiting, timeout=SETTLE_MS):
                pass
        problems += [f"{path.name}: {p}" for p in _walk_views(qtbot, ctx)]
    assert not problems, "\n".join(problems)


def test_compaction_page_has_room(qtbot: Any, qloop: Any, make_main_window: Any,
                                  tmp_path: Path) -> None:
    """The options are not behind a scrollbar and the new summary shows many lines."""
    ctx = make_main_window()
    open_and_settle(qtbot, ctx, _generated(tmp_path))
    panel = ctx.compaction.panel
    for size in SIZES:
        ctx.window.resize(*size)
        ctx.window.show_tab("Compaction")
        qtbot.wait(50)
        assert not ctx.window.timeline.isVisible()  # the page has the window to itself
        scroll = panel.split.widget(0)
        # the scroll area hides its bar on a later layout pass; a page too tall keeps it
        qtbot.waitUntil(lambda scroll=scroll: not scroll.verticalScrollBar().isVisible(),
                        timeout=3000)
        lines = panel.summary.height() // panel.summary.fontMetrics().lineSpacing()
        assert lines >= 12, (size, lines)


def test_a_too_narrow_label_is_caught(qtbot: Any) -> None:
    """The checker can fail: a label, a button and overlapping siblings that cannot fit."""
    root = QWidget()
    qtbot.addWidget(root)
    lay = QVBoxLayout(root)
    label = QLabel("coverage 100.00% of every identifier")
    label.setObjectName("tooNarrow")
    label.setFixedWidth(40)
    button = QPushButton("Export the audited summary")
    button.setObjectName("narrowButton")
    button.setFixedWidth(60)
    lay.addWidget(label)
    lay.addWidget(button)
    loose = QLabel("over", root)
    loose.setObjectName("onTop")
    root.resize(300, 200)
    root.show()
    loose.setGeometry(label.geometry())
    loose.show()
    qtbot.wait(10)
    found = [str(c) for c in find_clipping(root)]
    assert any("tooNarrow" in f and "coverage 100.00%" in f for f in found), found
    assert any("narrowButton" in f and "Export the audited summary" in f for f in found), found
    assert any("overlap" in f and "onTop" in f for f in found), found
    label.setFixedWidth(280)
    button.setMinimumWidth(0)
    button.setMaximumWidth(10_000)
    loose.hide()
    qtbot.wait(10)
    assert not [str(c) for c in find_clipping(root)]
