"""``sessionlens watch [FILE ... | --all] [--json]``: follow sessions while they are written.

Prints one line per event: the context as it grows ("context 151,204 of threshold 176,000,
about 3 turns left"), "threshold near", "past the threshold", and each compaction that
appears with its audit verdict ("lost 12 specifics: …"), so a terminal or a status line can
show them. ``--json`` prints each event as one JSON object per line (JSON Lines). Changes
are noticed by ``watchfiles`` (the OS's file notifications), not by polling.
"""

from __future__ import annotations

import argparse
import threading
from pathlib import Path

from sessionlens.engine.live.board import IDLE_SECONDS, LiveBoard
from sessionlens.engine.live.events import LiveEvent, event_json
from sessionlens.engine.sessions.discovery import default_session_dirs

from .output import emit_json_line, emit_lines, warn

__all__ = ["register", "run"]

#: How often idle sessions are dropped and quiet folders looked at again (ms).
SWEEP_MS = 30_000


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("watch", help="follow sessions while they are written: context against "
                                     "the threshold, and each compaction with its verdict")
    p.add_argument("files", nargs="*", type=Path, help="transcript files or folders to follow")
    p.add_argument("--all", action="store_true",
                   help="every session being written in the agents' own folders")
    p.add_argument("--idle", type=float, default=IDLE_SECONDS / 60, metavar="MINUTES",
                   help="a session unchanged this long leaves the list (default %(default)g)")
    p.add_argument("--for", dest="duration", type=float, default=None, metavar="SECONDS",
                   help="stop after this long (default: until interrupted)")
    p.add_argument("--json", action="store_true", help="one JSON object per event and line")
    p.set_defaults(func=run)


def _print(events: list[LiveEvent], as_json: bool) -> None:
    for event in events:
        if as_json:
            emit_json_line(event_json(event))
        else:
            emit_lines([f"{event.path.name}  {event.kind:<14} {event.detail}"])


def run(args: argparse.Namespace) -> int:
    from watchfiles import watch

    roots = list(args.files) + (default_session_dirs() if args.all or not args.files else [])
    board = LiveBoard(roots, idle_seconds=args.idle * 60)
    paths = board.watch_paths()
    if not paths:
        warn("sessionlens watch: nothing to watch (no such files or folders)")
        return 1
    stop = threading.Event()
    if args.duration is not None:
        threading.Timer(args.duration, stop.set).start()
    _print(board.sweep(), args.json)
    for changes in watch(*paths, stop_event=stop, step=10, debounce=200,
                         rust_timeout=SWEEP_MS, yield_on_timeout=True, raise_interrupt=False):
        if not changes:
            _print(board.sweep(), args.json)
            continue
        _print(board.changed(sorted({Path(p) for _, p in changes})), args.json)
    return 0
