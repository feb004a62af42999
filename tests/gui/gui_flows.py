"""Helpers for driving the main window in tests (waiting for the engine chain to finish)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sessionlens.gui.app import AppContext

#: Generous: the first token count also seeds the tokenizer cache.
SETTLE_MS = 60_000


def open_and_settle(qtbot: Any, ctx: AppContext, path: Path) -> None:
    """Open ``path`` and wait until loading, counting and planning are all done."""
    with qtbot.waitSignal(ctx.controller.settled, timeout=SETTLE_MS):
        ctx.controller.open(path)
    qtbot.waitUntil(lambda: not ctx.controller.is_busy() and ctx.controller.tokens is not None,
                    timeout=SETTLE_MS)
