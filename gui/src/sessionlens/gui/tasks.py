"""The one place that creates background work.

CPU-heavy engine calls (load, count, plan, filtering 100k rows) run on one small thread pool
owned here; their results and progress come back to the UI thread only through queued Qt
signals, so the UI thread never waits on them. Async work (LLM calls in later panels) runs
as asyncio tasks on the Qt loop through qasync (``start_coroutine``).

Jobs of the same ``group`` are latest-wins: starting one cancels the previous, whose result
is then dropped. That is what a draggable cut line or a search box needs.
"""

from __future__ import annotations

import asyncio
import gc
import itertools
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TypeVar

from PySide6.QtCore import QObject, Signal

#: What a job receives: report(done, total) and is_cancelled().
Progress = Callable[[int, int], None]
CancelCheck = Callable[[], bool]
Job = Callable[[Progress, CancelCheck], Any]

#: Progress is forwarded at most this often (seconds); more would flood the UI queue.
PROGRESS_INTERVAL = 0.05
#: How long a busy worker may keep the GIL before handing it to the UI thread (seconds).
#: CPython's default (5 ms) lets a CPU-bound job and Qt's many short Python callbacks
#: convoy into 40-70 ms event-loop gaps; 1 ms keeps them short at a small cost in throughput.
GIL_SWITCH_INTERVAL = 0.0002


T = TypeVar("T")


@dataclass(eq=False)
class TaskHandle:
    """A running job: cancel it, or ask whether it was cancelled."""

    id: int
    group: str | None
    _event: threading.Event = field(default_factory=threading.Event)

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()


@dataclass
class _Callbacks:
    on_done: Callable[[Any], None]
    on_error: Callable[[BaseException], None] | None
    on_progress: Callable[[int, int], None] | None


class _GcPause:
    """Keeps the cyclic GC off while big object graphs are built, then freezes them.

    A full collection over millions of fresh objects holds the GIL for hundreds of
    milliseconds, which the UI thread would feel as a stall; frozen objects are never
    scanned again.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._depth = 0

    def __enter__(self) -> None:
        with self._lock:
            if self._depth == 0:
                gc.disable()
            self._depth += 1

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self._depth -= 1
            if self._depth == 0:
                gc.freeze()
                gc.enable()


class TaskRunner(QObject):
    """Runs jobs off the UI thread and hands results back on it."""

    _finished = Signal(int, object)
    _errored = Signal(int, object)
    _progressed = Signal(int, int, int)

    def __init__(self, workers: int = 2, parent: QObject | None = None) -> None:
        super().__init__(parent)
        sys.setswitchinterval(min(sys.getswitchinterval(), GIL_SWITCH_INTERVAL))
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="sessionlens-job")
        self._ids = itertools.count(1)
        self._callbacks: dict[int, _Callbacks] = {}
        self._handles: dict[int, TaskHandle] = {}
        self._latest: dict[str, TaskHandle] = {}
        self._gc_pause = _GcPause()
        self._closed = False
        self._finished.connect(self._deliver_done)
        self._errored.connect(self._deliver_error)
        self._progressed.connect(self._deliver_progress)

    def run(self, job: Job, *, on_done: Callable[[Any], None],
            on_error: Callable[[BaseException], None] | None = None,
            on_progress: Callable[[int, int], None] | None = None,
            group: str | None = None, big: bool = False) -> TaskHandle:
        """Start ``job`` on the pool; ``big`` pauses the GC while it builds many objects."""
        handle = TaskHandle(next(self._ids), group)
        if self._closed:  # the app is quitting: nothing new starts, nothing is delivered
            handle.cancel()
            return handle
        if group is not None:
            previous = self._latest.get(group)
            if previous is not None:
                previous.cancel()
            self._latest[group] = handle
        self._callbacks[handle.id] = _Callbacks(on_done, on_error, on_progress)
        self._handles[handle.id] = handle
        self._pool.submit(self._work, job, handle, big)
        return handle

    def busy(self) -> bool:
        return bool(self._callbacks)

    def cancel_all(self) -> None:
        for h in list(self._handles.values()):
            h.cancel()

    def shutdown(self) -> None:
        """Cancel everything and wait for the workers (called when the app quits)."""
        self._closed = True
        self.cancel_all()
        self._pool.shutdown(wait=True, cancel_futures=True)

    def start_coroutine(self, coro: Awaitable[Any], *, on_done: Callable[[Any], None],
                        on_error: Callable[[BaseException], None] | None = None) -> asyncio.Future[Any]:
        """Schedule ``coro`` on the running asyncio loop (qasync's Qt loop)."""
        fut = asyncio.ensure_future(coro)

        def finish(f: asyncio.Future[Any]) -> None:
            if f.cancelled():
                return
            exc = f.exception()
            if exc is None:
                on_done(f.result())
            elif on_error is not None:
                on_error(exc)

        fut.add_done_callback(finish)
        return fut

    async def offload(self, fn: Callable[[], T]) -> T:
        """Run ``fn`` on the pool and await its result from a coroutine on the Qt loop.

        The engine's orchestrator awaits its CPU-bound steps (the audit) through this, so a
        run on the UI's loop never does that work on the UI thread. Cancelling the awaiting
        task drops the result (the job itself runs to its end)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()

        def done(result: T) -> None:
            if not future.done():
                future.set_result(result)

        def failed(exc: BaseException) -> None:
            if not future.done():
                future.set_exception(exc)

        handle = self.run(lambda _p, _c: fn(), on_done=done, on_error=failed)
        try:
            return await future
        except asyncio.CancelledError:
            handle.cancel()
            raise

    # worker side ----------------------------------------------------------------------------
    def _work(self, job: Job, handle: TaskHandle, big: bool) -> None:
        last = [0.0]

        def report(done: int, total: int) -> None:
            now = time.monotonic()
            if now - last[0] >= PROGRESS_INTERVAL or done >= total:
                last[0] = now
                self._progressed.emit(handle.id, done, total)

        def is_cancelled() -> bool:
            return handle.cancelled

        try:
            if big:
                with self._gc_pause:
                    result = job(report, is_cancelled)
            else:
                result = job(report, is_cancelled)
        except BaseException as exc:  # noqa: BLE001 - handed to the UI thread as an error
            self._errored.emit(handle.id, exc)
        else:
            self._finished.emit(handle.id, result)

    # UI side ---------------------------------------------------------------------------------
    def _take(self, task_id: int) -> _Callbacks | None:
        cb = self._callbacks.pop(task_id, None)
        handle = self._handles.pop(task_id, None)
        if handle is None or handle.cancelled:
            return None
        if handle.group is not None and self._latest.get(handle.group) is handle:
            del self._latest[handle.group]
        return cb

    def _deliver_done(self, task_id: int, result: object) -> None:
        cb = self._take(task_id)
        if cb is not None:
            cb.on_done(result)

    def _deliver_error(self, task_id: int, exc: object) -> None:
        cb = self._take(task_id)
        if cb is not None and cb.on_error is not None and isinstance(exc, BaseException):
            cb.on_error(exc)

    def _deliver_progress(self, task_id: int, done: int, total: int) -> None:
        cb = self._callbacks.get(task_id)
        handle = self._handles.get(task_id)
        if cb is not None and cb.on_progress is not None and handle and not handle.cancelled:
            cb.on_progress(done, total)
