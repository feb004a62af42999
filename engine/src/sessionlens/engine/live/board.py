"""Every session being written now: which files, followed how, and when they leave the list.

A session is live when its file changed within ``idle_seconds``. ``LiveBoard`` is told which
paths changed (by a watcher: ``watchfiles`` in the command line, Qt's in the app) and polls
only those; ``sweep`` lists newly written files under the roots and drops the idle ones, so
nothing walks the folders on every change. Files of formats SessionLens cannot follow
(archives, checkpoints, unknown files) are never added.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from sessionlens.engine.errors import SessionLensError
from sessionlens.engine.sessions.discovery import session_files

from .events import LiveEvent
from .session import LiveSession, Opener

__all__ = ["IDLE_SECONDS", "LiveBoard"]

#: A session unchanged for this long leaves the list (an agent waiting on its user is idle).
IDLE_SECONDS = 15 * 60


class LiveBoard:
    """The live sessions under ``roots`` (folders, or files always followed)."""

    def __init__(self, roots: Sequence[Path], *, idle_seconds: float = IDLE_SECONDS,
                 opener: Opener | None = None, clock: Callable[[], float] = time.time) -> None:
        self.roots = [Path(r).absolute() for r in roots]
        self.idle_seconds = idle_seconds
        self._opener = opener
        self._clock = clock
        self.sessions: dict[Path, LiveSession] = {}
        self._seen_at: dict[Path, float] = {}
        #: Files given by name are followed however old they are.
        self._pinned = {r.resolve() for r in self.roots if r.is_file()}

    def watch_paths(self) -> list[Path]:
        """What a watcher should watch: the roots that exist."""
        return [r for r in self.roots if r.exists()]

    def _recent(self, path: Path, now: float) -> bool:
        if path.resolve() in self._pinned:
            return True
        try:
            return now - os.stat(path).st_mtime <= self.idle_seconds
        except OSError:
            return False

    def _add(self, path: Path) -> list[LiveEvent]:
        try:
            session = LiveSession(path, opener=self._opener)
        except (OSError, SessionLensError):
            return []
        self.sessions[path] = session
        self._seen_at[path] = self._clock()
        return [session.started()]

    def sweep(self) -> list[LiveEvent]:
        """Add files written within the idle time; drop sessions idle for longer."""
        now = self._clock()
        events: list[LiveEvent] = []
        for path, _kind in session_files(self.roots):
            if path not in self.sessions and self._recent(path, now):
                events += self._add(path)
        for path, session in list(self.sessions.items()):
            if path.resolve() in self._pinned:
                continue
            if now - self._seen_at.get(path, now) > self.idle_seconds and not self._recent(
                    path, now):
                del self.sessions[path]
                events.append(session.event("idle", "idle: left the list"))
        return events

    def changed(self, paths: Iterable[Path]) -> list[LiveEvent]:
        """Poll the sessions of ``paths`` (adding a session file that is new)."""
        events: list[LiveEvent] = []
        for path in (Path(p).absolute() for p in paths):
            session = self.sessions.get(path)
            if session is None:
                if session_files([path]) and path.exists():
                    events += self._add(path)
                continue
            self._seen_at[path] = self._clock()
            found = session.poll()
            if any(e.kind == "removed" for e in found):
                del self.sessions[path]
            events += found
        return events
