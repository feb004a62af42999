"""One engine step at a time, each started only after the UI has painted the last result.

Starting the next worker at once makes it compete with the paint for the GIL, which the
user feels as a stall (benchmarks/gui_responsiveness.py); a short pause avoids that.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer

#: Pause before the next engine step starts (ms), so the UI paints the last result first
#: instead of painting while a worker competes for the GIL.
PAINT_FIRST_MS = 120


class PaintFirst(QObject):
    """Runs the latest step given to ``after_paint`` once the UI has had time to paint."""

    def __init__(self, parent: QObject | None = None, interval_ms: int = PAINT_FIRST_MS) -> None:
        super().__init__(parent)
        self._next: Callable[[], None] | None = None
        self._interval = interval_ms
        self._timer = QTimer(self, singleShot=True, interval=interval_ms)
        self._timer.timeout.connect(self._run)

    def after_paint(self, step: Callable[[], None], delay_ms: int | None = None) -> None:
        """Run ``step`` after a paint (after ``delay_ms``, default the usual pause); a step
        still waiting is replaced."""
        self._next = step
        self._timer.start(self._interval if delay_ms is None else delay_ms)

    def stop(self) -> None:
        self._timer.stop()
        self._next = None

    def _run(self) -> None:
        step, self._next = self._next, None
        if step is not None:
            step()
