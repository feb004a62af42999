"""``--screenshot --view search``: the search dock over an index of the file's own folder;
``--view sessions|settings|export``: the session list, the Settings and the export dialogs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from fixtures.factories import TranscriptBuilder
from sessionlens.engine import search_index_dir
from sessionlens.gui.__main__ import split_subcommand
from sessionlens.gui.app import AppContext, parse_args
from sessionlens.gui.roles import ItemRole
from sessionlens.gui.screenshot import VIEWS, show_search


def test_query_is_an_option_of_the_app_not_a_subcommand() -> None:
    args = parse_args(["--screenshot", "o.png", "--view", "search", "--query", "k7 omega", "f"])
    assert (args.view, args.query, args.file) == ("search", "k7 omega", Path("f"))
    assert VIEWS["search"] == "Timeline"  # the timeline stays beside the dock
    # "inspect" after --query is its value, not a subcommand
    assert split_subcommand(["--query", "inspect", "f"], {"inspect"}) == (
        None, ["--query", "inspect", "f"])


def test_the_search_view_searches_the_files_folder_in_an_index_of_its_own(
        qtbot: Any, tmp_path: Path, make_main_window: Callable[..., AppContext]) -> None:
    folder = tmp_path / "sessions"
    folder.mkdir()
    b = TranscriptBuilder(plain_users=True)
    fact = b.user("The replica moved to rack k7-omega.").id
    b.assistant("Noted, rack k7-omega.")
    path = b.write(folder / "one.jsonl")
    other = tmp_path / "elsewhere"
    other.mkdir()
    TranscriptBuilder(plain_users=True).write(other / "two.jsonl")
    ctx = make_main_window()
    assert ctx.search is not None
    ctx.search.controller.set_session_dirs(lambda: [other])  # the user's own folders
    ctx.controller.open(path)
    qtbot.waitUntil(lambda: ctx.controller.transcript is not None
                    and not ctx.controller.is_busy(), timeout=60_000)
    ready: list[bool] = []
    assert show_search(ctx, "k7-omega", lambda: ready.append(True))
    qtbot.waitUntil(lambda: bool(ready), timeout=60_000)
    panel = ctx.search.panel
    hits = [panel.model.data(panel.model.index(r, 0), ItemRole)
            for r in range(panel.model.rowCount())]
    assert hits and {h.path for h in hits} == {path.resolve()}
    assert hits[0].entry_id == fact and panel.query.text() == "k7-omega"
    assert ctx.search.dock.isVisible()
    assert ctx.search.controller.stats is not None and ctx.search.controller.stats.files == 1
    assert (ctx.paths.cache_dir / "search-screenshot" / "index.sqlite3").is_file()
    # the user's index was never opened, so nothing of theirs was added or dropped
    assert not (search_index_dir(ctx.paths.cache_dir) / "index.sqlite3").exists()


@pytest.mark.parametrize("view", ["sessions", "settings", "export"])
def test_the_session_list_settings_and_export_views(qtbot: Any, tmp_path: Path, view: str,
                                                    make_main_window: Callable[..., AppContext]
                                                    ) -> None:
    """``--view sessions|settings|export``: each can be named and shows what it says."""
    from PySide6.QtWidgets import QFileDialog

    from sessionlens.gui.screenshot import DIALOG_VIEWS, open_dialog, show_sessions
    from sessionlens.gui.settings.dialog import SettingsDialog

    assert parse_args(["--screenshot", "o.png", "--view", view, "f"]).view == view
    path = TranscriptBuilder(plain_users=True).write(tmp_path / "one.jsonl")
    ctx = make_main_window()
    ctx.controller.open(path)
    qtbot.waitUntil(lambda: ctx.controller.transcript is not None
                    and not ctx.controller.is_busy(), timeout=60_000)
    assert ctx.window is not None
    if view == "sessions":
        assert view not in DIALOG_VIEWS
        ctx.window.browser_dock.hide()
        show_sessions(ctx)
        assert ctx.window.browser_dock.isVisible()
        return
    dialog = open_dialog(ctx, view)
    assert dialog is not None and dialog.isVisible()
    qtbot.addWidget(dialog)
    if view == "settings":
        assert isinstance(dialog, SettingsDialog)
        assert "raised to the floor" in dialog.reserve_source.text()
    else:
        assert isinstance(dialog, QFileDialog)
        assert dialog.selectedFiles()[0].endswith("-summary.md")
        assert Path(dialog.directory().absolutePath()) == path.parent.resolve()
    dialog.close()
