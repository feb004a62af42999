"""The Live page with sessions being written, for ``--screenshot --view live``.

Copies of the open file and of up to two more sessions beside it go to a folder of the
cache (``<cache>/live-screenshot``, emptied first), freshly written, so the picture shows
what the dock shows while agents run, without ever watching (or touching) the user's own
sessions. The widest session is selected so its next cut fills the lower half.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from sessionlens.engine import discover_sessions

if TYPE_CHECKING:
    from sessionlens.gui.context import AppContext

#: How many sessions the picture shows being written.
SESSIONS_SHOWN = 3
#: The agent folders the copies go to (OpenClaw names its agents).
AGENT_IDS = ("main", "ops", "research")


def _copies(source: Path, folder: Path) -> list[Path]:
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    others = [s.path for s in discover_sessions([source.parent])
              if s.path.resolve() != source.resolve() and s.path.suffix == ".jsonl"]
    out = []
    for i, path in enumerate([source, *others][:SESSIONS_SHOWN]):
        # laid out as OpenClaw keeps sessions, so an OpenClaw file is still taken for one
        target = folder / "agents" / AGENT_IDS[i] / "sessions" / path.name
        target.parent.mkdir(parents=True)
        out.append(Path(shutil.copy(path, target)))
    return out


def show_live(ctx: AppContext, on_ready: Callable[[], None]) -> bool:
    """Open the Live page over copies of the open file and its neighbours; ``on_ready``
    runs once the list and the selected session's next cut are shown."""
    parts, t, win = ctx.live, ctx.controller.transcript, ctx.window
    if parts is None or t is None or win is None:
        return False
    folder = ctx.paths.cache_dir / "live-screenshot"
    copies = _copies(Path(t.path), folder)
    parts.controller.set_roots(lambda: [folder])
    state = {"selected": False}

    def rows_shown(rows: tuple[object, ...]) -> None:
        if len(rows) >= len(copies) and not state["selected"]:
            state["selected"] = True
            parts.panel.table.selectRow(0)
            parts.controller.select(parts.controller.rows[0].path)

    parts.controller.rows_changed.connect(rows_shown)
    parts.controller.preview_ready.connect(lambda *_a: on_ready())
    parts.controller.failed.connect(lambda _m: on_ready())
    parts.action.trigger()
    return True
