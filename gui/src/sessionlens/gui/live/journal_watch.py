"""JournalWatch: the integrations' journal followed while the app runs.

An agent's integration (the pi extension, the OpenClaw plugin, the Claude Code and Codex
hooks) appends a line to ``state/integrations/journal.jsonl`` for each compaction it saw.
Qt's ``QFileSystemWatcher`` says when the file (or, before it exists, its folder) changes;
nothing polls. Reading runs off the UI thread as one job of the app's task runner at a time
(a change while it runs is read by one more job), from the offset read so far, so each line
is reported once. What was in the journal when the app started is not news: ``start`` only
takes its end as the starting offset.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal

from sessionlens.engine import (
    JournalEntry,
    JournalRead,
    JournalTail,
    entries_for,
    journal_end,
    journal_path,
    read_journal_since,
)
from sessionlens.gui.tasks import CancelCheck, Progress, TaskRunner

#: Changes within this many ms are read together (an append is a write, then an fsync).
BATCH_MS = 100


@dataclass(frozen=True, slots=True)
class JournalNews:
    """Lines appended since the last read, and those about ``focus`` (the opened file)."""

    entries: tuple[JournalEntry, ...]
    focus: Path | None
    about_focus: tuple[JournalEntry, ...]


class JournalWatch(QObject):
    """Follows the journal under ``state_dir``; ``appended`` carries a ``JournalNews``."""

    appended = Signal(object)   # JournalNews
    failed = Signal(str)

    def __init__(self, tasks: TaskRunner, state_dir: Path,
                 focus: Callable[[], Path | None] = lambda: None,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._tasks, self._state, self._focus = tasks, Path(state_dir), focus
        self.path = journal_path(self._state)
        self.offset: int | None = None      # None: not started
        self._busy = self._again = False
        self._watcher = QFileSystemWatcher(self)
        self._watcher.fileChanged.connect(self._changed)
        self._watcher.directoryChanged.connect(self._changed)
        self._batch = QTimer(self, singleShot=True, interval=BATCH_MS)
        self._batch.timeout.connect(self._read)

    def start(self) -> None:
        """Take the journal's present end as the start, then follow it (once)."""
        if self.offset is not None or self._busy:
            return
        state = self._state

        def job(_r: Progress, _c: CancelCheck) -> int:
            return journal_end(state)

        self._busy = True
        self._tasks.run(job, on_done=self._started, on_error=self._error)

    def _started(self, offset: int) -> None:
        self._busy = False
        self.offset = offset
        self._follow()
        self._again = False
        self._batch.start()     # whatever was appended before the watch took hold

    def _follow(self) -> None:
        """Watch the file, or the nearest folder above it that exists (until it does)."""
        watched = set(self._watcher.files()) | set(self._watcher.directories())
        for p in (self.path, self.path.parent, self._state):
            if p.exists():
                if str(p) not in watched:
                    self._watcher.addPath(str(p))
                if p == self.path:
                    break

    def _changed(self, _path: str) -> None:
        self._batch.start()

    def _read(self) -> None:
        if self.offset is None:
            return
        if self._busy:
            self._again = True
            return
        state, offset, focus = self._state, self.offset, self._focus()

        def job(_r: Progress, _c: CancelCheck) -> tuple[JournalTail, tuple[JournalEntry, ...]]:
            tail = read_journal_since(state, offset)
            mine = entries_for(JournalRead(tail.entries), [str(focus)]) if focus else ()
            return tail, mine

        self._busy = True
        self._tasks.run(job, on_done=lambda out: self._read_done(out, focus),
                        on_error=self._error)

    def _read_done(self, out: tuple[JournalTail, tuple[JournalEntry, ...]],
                   focus: Path | None) -> None:
        tail, mine = out
        self._busy = False
        self.offset = tail.offset
        self._follow()
        if tail.entries:
            self.appended.emit(JournalNews(tail.entries, focus, mine))
        if self._again:
            self._again = False
            self._batch.start()

    def _error(self, exc: BaseException) -> None:
        self._busy = False
        self.failed.emit(str(exc))
