"""A computation run in a forked copy of this process, on another core, while this one goes on.

Why: after ``inspect`` has loaded a file, two independent pieces of work are left, the exact
count of the context (building the tokenizer holds the GIL for a third of a second) and the
memory-flush analysis. Threads would take turns at the GIL; a forked child runs beside the
parent, and sees the loaded transcript without a copy. Its answer comes back pickled through
a pipe.

Forking is only done where it is well defined, asked for and worth it: on Linux, in a process
with no other Python thread running, that called ``allow_fork`` (the CLI's own process does;
the GUI never does, a Qt process must not fork), with a core to spare (on a busy machine the
two would only take turns at one core). Anything that goes wrong in the child, or a child
that was never started, makes ``result`` compute the value in this process instead, so the
answer never depends on the fork.
"""

from __future__ import annotations

import os
import pickle
import signal
import sys
import threading
from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["Forked", "allow_fork", "fork_allowed", "spare_cores"]

_T = TypeVar("_T")

_allowed = False


def allow_fork(allowed: bool = True) -> None:
    """Let ``Forked`` fork this process (set by a whole-process CLI run, never by the GUI)."""
    global _allowed
    _allowed = allowed


def spare_cores() -> int:
    """Cores that look idle besides the one the calling process keeps busy itself, from the
    1-minute load average where the OS has one (all but one when it has none)."""
    cores = os.cpu_count() or 1
    try:
        busy = os.getloadavg()[0]
    except (AttributeError, OSError):  # not on this platform
        busy = 0.0
    # One unit of load is this process's own work.
    return max(0, int(cores - max(busy, 1.0) + 0.5))


def fork_allowed() -> bool:
    """True when a fork now would be safe and pay: Linux, asked for, no other thread
    running, a core to spare."""
    return (_allowed and sys.platform == "linux" and hasattr(os, "fork")
            and threading.active_count() == 1 and spare_cores() >= 1)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _read_all(fd: int) -> bytes:
    parts: list[bytes] = []
    while True:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return b"".join(parts)
        parts.append(chunk)


class Forked(Generic[_T]):
    """``make()`` started in a forked child when ``fork`` (default: ``fork_allowed()``); its
    value from ``result()``. ``make`` must be deterministic and write nothing the parent
    owns: on any failure of the child the parent runs it again itself."""

    def __init__(self, make: Callable[[], _T], *, fork: bool | None = None) -> None:
        self._make = make
        self._pid = 0
        self._fd = -1
        self._value: tuple[_T] | None = None
        #: Whether a child was started (the value may still come from this process).
        self.forked = False
        if not (fork_allowed() if fork is None else fork):
            return
        read_fd, write_fd = os.pipe()
        try:
            pid = os.fork()
        except OSError:
            os.close(read_fd)
            os.close(write_fd)
            return
        if pid == 0:  # the child: compute, hand the value over, leave without any teardown
            os.close(read_fd)
            code = 1
            try:
                data = pickle.dumps(make(), protocol=pickle.HIGHEST_PROTOCOL)
                _write_all(write_fd, data)
                code = 0
            except BaseException:  # noqa: BLE001 - any failure: the parent computes it
                pass
            finally:
                try:  # what it warned about must not die with its buffers
                    sys.stderr.flush()
                finally:
                    os._exit(code)
        os.close(write_fd)
        self._pid, self._fd, self.forked = pid, read_fd, True

    def result(self) -> _T:
        """The child's value, or ``make()`` here when there was no child or it failed."""
        if self._value is None:
            self._value = (self._collect(),)
        return self._value[0]

    def close(self) -> None:
        """End a child whose value was never asked for (an error on the way): killed and
        reaped, so it cannot block on a pipe nobody reads."""
        if not self._pid:
            return
        pid, self._pid = self._pid, 0
        os.close(self._fd)
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(pid, 0)

    def _collect(self) -> _T:
        if not self._pid:
            return self._make()
        pid, self._pid = self._pid, 0
        try:
            data = _read_all(self._fd)
        finally:
            os.close(self._fd)
            _, status = os.waitpid(pid, 0)
        if status == 0 and data:
            try:
                value: _T = pickle.loads(data)
                return value
            except Exception:  # noqa: BLE001 - a torn hand-over: compute it here
                pass
        return self._make()
