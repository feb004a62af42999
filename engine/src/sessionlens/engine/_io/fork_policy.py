"""When this process may fork a helper onto another core, and how many cores are idle.

Why: after ``inspect`` has loaded a big file, the tokenizer's build holds the GIL for a third
of a second, so no thread can take it off the loader's way; a forked child can
(``tokens.count_worker``). Forking is only done where it is well defined, asked for and
worth it: on Linux, in a process with no other Python thread running, that called
``allow_fork`` (the CLI's own process does; the GUI never does, a Qt process must not fork),
with a core to spare (on a busy machine the two would only take turns at one core).
"""

from __future__ import annotations

import os
import sys
import threading

__all__ = ["allow_fork", "fork_allowed", "spare_cores"]

_allowed = False


def allow_fork(allowed: bool = True) -> None:
    """Let this process fork helpers (set by a whole-process CLI run, never by the GUI)."""
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
