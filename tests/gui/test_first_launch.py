"""With no arguments: the first launch opens the bundled sample and the session list;
later launches reopen the last session (the sample again when that file is gone), and the
README says exactly that."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fixtures.factories import TranscriptBuilder
from sessionlens.gui.app import initial_file, parse_args
from sessionlens.gui.paths import bundled_sample_path

README = Path(__file__).resolve().parents[2] / "README.md"


def test_first_launch_opens_the_sample_and_the_session_list(make_main_window: Any,
                                                            tmp_path: Path) -> None:
    ctx = make_main_window()
    args = parse_args(["--basedir", str(tmp_path / "basedir")])
    assert ctx.prefs.last_session() is None  # a first launch
    assert initial_file(args, ctx) == bundled_sample_path()
    assert ctx.window.browser_dock.isVisible()  # the sessions found on this machine
    last = TranscriptBuilder().write(tmp_path / "last.jsonl")
    ctx.prefs.set_last_session(last)
    assert initial_file(args, ctx) == last  # a later launch: the last session
    last.unlink()
    assert initial_file(args, ctx) == bundled_sample_path()


def test_the_readme_says_what_a_launch_opens() -> None:
    text = " ".join(README.read_text(encoding="utf-8").split())
    assert ("With no arguments the first launch opens a bundled sample session and the list "
            "of sessions found on this machine; later launches reopen the session you had "
            "open last") in text
    assert "every page but Timeline takes the whole width" not in text
    assert "sessions, settings, export, accept" in text  # --screenshot --view names
