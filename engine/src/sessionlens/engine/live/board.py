"""Every session being written now: which files, followed how, and when they leave the list.

A session is live when its file changed within ``idle_seconds``. ``LiveBoard`` is told which
paths changed (by a watcher: ``watchfiles`` in the command line, Qt's in the app) and polls
only those; ``sweep`` lists newly written files under the roots and drops the idle ones, so
nothing walks the folders on every change. Files of formats SessionLens cannot follow
(archives, checkpoints, unknown files) are never added.

OpenClaw's SQLite store holds many sessions in one database: the board follows each of its
live windows as its own session (``<db>/<session id>``), recent by the window's
``updated_at``, and a change of the database or of its ``-wal`` file (where OpenClaw's rows
land until a checkpoint) polls the store's sessions and adds windows that began since.
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
from .store_tail import live_windows, split_store_key, store_db_of, store_key

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
        #: When each store window was last updated, as last listed.
        self._window_at: dict[Path, float | None] = {}

    def watch_paths(self) -> list[Path]:
        """What a watcher should watch: the roots that exist (a store given by name: its
        folder, since OpenClaw's rows land in the ``-wal`` file beside it)."""
        return [r.parent if store_db_of(r) is not None and r.is_file() else r
                for r in self.roots if r.exists()]

    def watched_files(self) -> list[Path]:
        """The files whose changes the sessions follow (a store's database and ``-wal``)."""
        out: list[Path] = []
        for path in self.sessions:
            key = split_store_key(path)
            files = [path] if key is None else [key[0], key[0].with_name(key[0].name + "-wal")]
            out += [f for f in files if f not in out and f.exists()]
        return out

    def _pinned_path(self, path: Path) -> bool:
        key = split_store_key(path)
        return (key[0] if key is not None else path).resolve() in self._pinned

    def _recent(self, path: Path, now: float) -> bool:
        if self._pinned_path(path):
            return True
        if split_store_key(path) is not None:
            at = self._window_at.get(path)
            return at is not None and now - at <= self.idle_seconds
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

    def _store_sessions(self, db: Path) -> list[Path]:
        """The store's live windows as session paths (none when it cannot be read)."""
        try:
            windows = live_windows(db)
        except (OSError, SessionLensError):
            return []
        keys = [store_key(db, sid) for sid in windows]
        self._window_at.update(zip(keys, windows.values(), strict=True))
        return keys

    def _expand(self, path: Path) -> list[Path]:
        return self._store_sessions(path) if store_db_of(path) == path else [path]

    def sweep(self) -> list[LiveEvent]:
        """Add files written within the idle time; drop sessions idle for longer."""
        now = self._clock()
        events: list[LiveEvent] = []
        for found, _kind in session_files(self.roots):
            for path in self._expand(found):
                if path not in self.sessions and self._recent(path, now):
                    events += self._add(path)
        for path, session in list(self.sessions.items()):
            if self._pinned_path(path):
                continue
            if now - self._seen_at.get(path, now) > self.idle_seconds and not self._recent(
                    path, now):
                del self.sessions[path]
                events.append(session.event("idle", "idle: left the list"))
        return events

    def changed(self, paths: Iterable[Path]) -> list[LiveEvent]:
        """Poll the sessions of ``paths`` (adding a session file that is new)."""
        events: list[LiveEvent] = []
        for path in self._sessions_of(Path(p).absolute() for p in paths):
            session = self.sessions.get(path)
            if session is None:
                if split_store_key(path) is not None:
                    if self._recent(path, self._clock()):
                        events += self._add(path)
                elif session_files([path]) and path.exists():
                    events += self._add(path)
                continue
            found = session.poll()
            if found or split_store_key(path) is None:
                self._seen_at[path] = self._clock()
            if any(e.kind == "removed" for e in found):
                del self.sessions[path]
            events += found
        return events

    def _sessions_of(self, paths: Iterable[Path]) -> list[Path]:
        """The changed paths, a store's database or ``-wal`` standing for its sessions (the
        ones followed and the windows that began since)."""
        out: list[Path] = []
        for path in paths:
            db = store_db_of(path)
            if db is None:
                out += [path] if path not in out else []
                continue
            if not db.is_file():
                continue
            followed = [p for p in self.sessions if p.parent == db]
            out += [p for p in followed + self._store_sessions(db) if p not in out]
        return out
