"""Watching the open transcript for growth: an agent appends while the user looks.

Qt reports every write; a grown file is reported once it has been quiet for
``RELOAD_DEBOUNCE_MS``, so a burst of appends costs one reload, not one per line.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer

#: How long the file must be quiet before a grown transcript is reloaded (ms).
RELOAD_DEBOUNCE_MS = 700


class FileWatch(QObject):
    """Watches one file; calls ``on_quiet`` once it has changed and then been quiet."""

    def __init__(self, on_quiet: Callable[[], None], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._path: str | None = None
        self._watcher = QFileSystemWatcher(self)
        self._watcher.fileChanged.connect(self._on_changed)
        self._timer = QTimer(self, singleShot=True, interval=RELOAD_DEBOUNCE_MS)
        self._timer.timeout.connect(self._quiet)
        self._on_quiet = on_quiet

    def watch(self, path: Path) -> None:
        """Watch ``path`` instead of whatever was watched before."""
        watched = self._path = str(path)
        for stale in self._watcher.files():
            if stale != watched:
                self._watcher.removePath(stale)
        if watched not in self._watcher.files():
            self._watcher.addPath(watched)

    def _on_changed(self, path: str) -> None:
        if path == self._path:
            self._timer.start()

    def _quiet(self) -> None:
        if self._path is not None and self._path not in self._watcher.files():
            self._watcher.addPath(self._path)  # replaced files drop out of the list
        self._on_quiet()
