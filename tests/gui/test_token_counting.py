"""The window shows the context's three numbers first, then the whole file's counts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fixtures.qt_app import open_and_settle
from fixtures.scenarios import small_session
from sessionlens.gui.roles import TokensRole


def test_context_first_then_the_whole_file(qtbot: Any, make_main_window: Any,
                                           tmp_path: Path) -> None:
    ctx = make_main_window()
    c, win = ctx.controller, ctx.window
    seen: list[dict[str, Any]] = []

    def on_tokens(view: Any) -> None:  # runs after the panels' own slots (connected first)
        model = win.timeline.model
        row = model.row_of_entry("u0000001")  # on the path, before the compaction's window
        seen.append({"scope": view.report.scope, "totals": win.tokens.totals.text(),
                     "row_tokens": model.data(model.index(row), TokensRole),
                     "bars": dict(win.tokens.breakdown._values), "busy": c.is_busy()})

    c.tokens_ready.connect(on_tokens)
    open_and_settle(qtbot, ctx, small_session().write(tmp_path / "s.jsonl"))
    first, last = seen[0], seen[-1]
    assert [s["scope"] for s in seen] == ["context", "file"]
    report = c.tokens.report
    assert report.complete and not c.is_busy()
    assert report.cached > 0  # what the context-first count learned is not counted again
    # the context's numbers are final at once; the file's are "counting", never 0
    assert f"{report.exact_context:,}" in first["totals"] and "counting" in first["totals"]
    assert first["row_tokens"] is None and first["bars"] == {} and first["busy"]
    assert f"{report.exact_total:,}" in last["totals"]
    assert last["row_tokens"] == report.entries["u0000001"].exact > 0
    assert last["bars"] == {k: v for k, v in (report.by_role or {}).items() if v > 0}


def test_a_second_window_on_the_same_file_counts_nothing_again(qtbot: Any, make_main_window: Any,
                                                               tmp_path: Path) -> None:
    path = small_session().write(tmp_path / "s.jsonl")
    first = make_main_window()
    open_and_settle(qtbot, first, path)
    assert first.controller.tokens.report.tokenized > 0
    again = make_main_window()  # same --basedir: the same count cache folder
    open_and_settle(qtbot, again, path)
    assert again.controller.tokens.report.tokenized == 0
    assert again.controller.tokens.report == first.controller.tokens.report
