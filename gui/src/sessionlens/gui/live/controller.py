"""LiveController: the sessions being written now, followed with Qt's file watcher.

The engine's ``LiveBoard`` holds every live session; only this controller touches it, and
only from one background job at a time (a job that is running when files change again is
followed by one more, with every path that changed meanwhile). Qt's ``QFileSystemWatcher``
says which folders and files changed; nothing polls them. Every ``SWEEP_MS`` the board
drops idle sessions and looks for new files in folders the watcher could not follow. The
next-cut preview of the selected session is planned on a fresh load, at most every
``PREVIEW_MS`` while it grows. Nothing is read until the Live dock is first shown.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal

from sessionlens.engine import (
    IDLE_SECONDS,
    LiveBoard,
    LiveEvent,
    LiveGauge,
    NextCut,
    next_cut,
    open_transcript,
)
from sessionlens.gui.tasks import CancelCheck, Progress, TaskRunner

#: Changes within this many ms are read together.
BATCH_MS = 15
#: Idle sessions leave the list, and unwatched folders are looked at, this often.
SWEEP_MS = 30_000
#: The selected session's next-cut preview is planned again at most this often.
PREVIEW_MS = 2_000
#: How deep under a root the watcher follows folders (Codex: sessions/YYYY/MM/DD).
WATCH_DEPTH = 4


@dataclass(frozen=True, slots=True)
class LiveRow:
    """One line of the Live list."""

    path: Path
    agent: str
    project: str
    gauge: LiveGauge
    #: Entries appended since the file was last read whole.
    stale_entries: int


def _rows(board: LiveBoard) -> tuple[LiveRow, ...]:
    rows = []
    for path, s in board.sessions.items():
        header = s.opened.transcript.header
        parts = path.parts
        folder = (f"agent {parts[-3]}" if len(parts) >= 4 and parts[-2] == "sessions"
                  and parts[-4] == "agents" else path.parent.name)
        project = (header.cwd if header is not None and header.cwd else "") or folder
        rows.append(LiveRow(path, s.agent, project, s.gauge, s.stale_entries))
    return tuple(sorted(rows, key=lambda r: r.gauge.last_entry_at or "", reverse=True))


def _folders(roots: Sequence[Path]) -> list[str]:
    out: list[str] = []
    for root in roots:
        if not root.is_dir():
            continue
        base = len(root.parts)
        for dirpath, dirnames, _files in os.walk(root):
            out.append(dirpath)
            if len(Path(dirpath).parts) - base >= WATCH_DEPTH:
                dirnames.clear()
    return out


class LiveController(QObject):
    """The Live dock's model: rows, events, and the selected session's next cut."""

    rows_changed = Signal(object)        # tuple[LiveRow, ...]
    live_event = Signal(object)          # LiveEvent
    preview_ready = Signal(object, object)  # Path, NextCut
    failed = Signal(str)

    def __init__(self, tasks: TaskRunner, roots: Callable[[], Sequence[Path]], *,
                 idle_seconds: float = IDLE_SECONDS, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._tasks, self._roots, self._idle = tasks, roots, idle_seconds
        self.board: LiveBoard | None = None
        self.rows: tuple[LiveRow, ...] = ()
        self.selected: Path | None = None
        self._pending: set[Path] = set()
        self._busy = False
        self._started = False
        self._watcher = QFileSystemWatcher(self)
        self._watcher.fileChanged.connect(self._file_changed)
        self._watcher.directoryChanged.connect(self._folder_changed)
        self._batch = QTimer(self, singleShot=True, interval=BATCH_MS)
        self._batch.timeout.connect(self._flush)
        self._sweep = QTimer(self, interval=SWEEP_MS)
        self._sweep.timeout.connect(self._start_sweep)
        self._preview = QTimer(self, singleShot=True, interval=PREVIEW_MS)
        self._preview.timeout.connect(self._start_preview)

    # ------------------------------------------------------------------ starting

    def set_roots(self, roots: Callable[[], Sequence[Path]]) -> None:
        """Where to look for live sessions (before ``start``; tests and ``--screenshot``)."""
        self._roots = roots

    def start(self) -> None:
        """Find the live sessions and start following them (once)."""
        if self._started:
            return
        self._started = True
        roots = list(self._roots())
        idle = self._idle

        def job(_r: Progress, _c: CancelCheck) -> tuple[LiveBoard, list[LiveEvent], list[str]]:
            board = LiveBoard(roots, idle_seconds=idle)
            return board, board.sweep(), _folders(board.roots)

        self._busy = True
        self._tasks.run(job, on_done=self._on_started, on_error=self._on_error)

    def _on_started(self, out: tuple[LiveBoard, list[LiveEvent], list[str]]) -> None:
        board, events, folders = out
        self.board = board
        if folders:
            self._watcher.addPaths(folders)
        self._after(events)
        self._sweep.start()

    # ------------------------------------------------------------------ following

    def _file_changed(self, path: str) -> None:
        self._pending.add(Path(path))
        self._batch.start()

    def _folder_changed(self, folder: str) -> None:
        try:
            names = os.listdir(folder)
        except OSError:
            return
        self._pending.update(Path(folder) / n for n in names)
        self._batch.start()

    def _flush(self) -> None:
        if self._busy or self.board is None or not self._pending:
            return
        paths, self._pending = sorted(self._pending), set()
        self._run_board(lambda board: board.changed(paths))

    def _start_sweep(self) -> None:
        if self._busy or self.board is None:
            return
        self._run_board(LiveBoard.sweep)

    def _run_board(self, step: Callable[[LiveBoard], list[LiveEvent]]) -> None:
        """Run ``step`` on the board as the one background job that touches it."""
        assert self.board is not None
        board = self.board

        def job(_r: Progress, _c: CancelCheck) -> list[LiveEvent]:
            return step(board)

        self._busy = True
        self._tasks.run(job, on_done=self._after, on_error=self._on_error)

    def _after(self, events: list[LiveEvent]) -> None:
        self._busy = False
        assert self.board is not None
        files = [str(p) for p in self.board.watched_files()]
        watched = set(self._watcher.files())
        if missing := [f for f in files if f not in watched]:
            self._watcher.addPaths(missing)
        self.rows = _rows(self.board)
        self.rows_changed.emit(self.rows)
        for e in events:
            self.live_event.emit(e)
            if e.path == self.selected and e.kind in ("context", "compaction", "reloaded"):
                self._preview.start()
        if self._pending:
            self._batch.start()

    def _on_error(self, exc: BaseException) -> None:
        self._busy = False
        self.failed.emit(str(exc))

    # ------------------------------------------------------------------ the next cut

    def select(self, path: Path | None) -> None:
        """Show the next cut of ``path`` (planned now and again as it grows)."""
        self.selected = path
        if path is not None:
            self._start_preview()

    def _start_preview(self) -> None:
        path = self.selected
        if path is None:
            return

        def job(_r: Progress, _c: CancelCheck) -> NextCut:
            return next_cut(open_transcript(path))

        self._tasks.run(job, on_done=lambda cut: self.preview_ready.emit(path, cut),
                        on_error=self._on_error, group="live-preview")
