"""pytest-qt fixtures for the GUI: a main-window factory sandboxed with --basedir.

Like napari's ``make_napari_viewer``: each test gets fresh windows whose settings, cache and
data live under ``tmp_path``; the task pool is shut down before the window goes away.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest

# the compaction tests' fixtures: a qasync loop, the app without a window, an OpenAI server
from fixtures.compaction_fixtures import make_app, openai_server, qloop  # noqa: E402, F401
from sessionlens.gui.app import AppContext, build, parse_args


@pytest.fixture
def make_main_window(qtbot: Any, tmp_path: Path) -> Iterator[Callable[..., AppContext]]:
    made: list[AppContext] = []

    def factory(*args: str, show: bool = True) -> AppContext:
        ctx = build(parse_args(["--basedir", str(tmp_path / "basedir"), *args]))
        assert ctx.window is not None
        qtbot.addWidget(ctx.window)
        if show:
            ctx.window.show()
        made.append(ctx)
        return ctx

    yield factory
    for ctx in made:  # let a chain in flight (load -> count -> plan) end before stopping
        qtbot.waitUntil(lambda ctx=ctx: not ctx.controller.is_busy(), timeout=60_000)
        ctx.tasks.shutdown()
