"""The background count of the whole file, after the context's three numbers are shown.

At most one runs; opening another file or recounting with another encoding stops it. Only
the worker counts (``count_file_view``: no helper threads), so the UI thread keeps a core.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from sessionlens.engine import CompactionSettings

from .session_steps import TokenView, count_file_view
from .tasks import CancelCheck, Progress, TaskHandle, TaskRunner

if TYPE_CHECKING:
    from sessionlens.engine import Transcript


class FileCount:
    """Starts, stops and tracks the one whole-file count."""

    def __init__(self, tasks: TaskRunner) -> None:
        self._tasks = tasks
        self._handle: TaskHandle | None = None

    @property
    def running(self) -> bool:
        return self._handle is not None

    def start(self, t: Transcript, view: TokenView, settings: CompactionSettings, *,
              on_done: Callable[[TokenView], None],
              on_error: Callable[[BaseException], None],
              on_progress: Callable[[int, int], None]) -> None:
        """Count ``t`` whole and hand ``view`` with the full report to ``on_done``."""
        def job(report: Progress, cancelled: CancelCheck) -> TokenView:
            return count_file_view(t, view, settings, report, cancelled)

        def done(result: TokenView) -> None:
            self._handle = None
            on_done(result)

        def failed(exc: BaseException) -> None:
            self._handle = None
            on_error(exc)

        self._handle = self._tasks.run(job, on_done=done, on_error=failed,
                                       on_progress=on_progress, group="count-file", big=True)

    def stop(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
