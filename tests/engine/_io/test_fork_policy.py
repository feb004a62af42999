"""``_io.fork_policy``: a fork only when asked for, with no other thread and a spare core."""

from __future__ import annotations

import os
import sys
import threading

import pytest

from sessionlens.engine._io import fork_policy
from sessionlens.engine._io.fork_policy import allow_fork, fork_allowed

linux_only = pytest.mark.skipif(sys.platform != "linux", reason="forks only on Linux")


@pytest.fixture
def quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine with a core to spare and this thread alone."""
    monkeypatch.setattr(fork_policy, "spare_cores", lambda: 1)
    monkeypatch.setattr(threading, "active_count", lambda: 1)


@linux_only
def test_no_fork_unless_the_process_allowed_it(quiet: None) -> None:
    allow_fork(False)
    assert not fork_allowed()
    allow_fork(True)
    try:
        assert fork_allowed()
    finally:
        allow_fork(False)


@linux_only
def test_no_fork_while_another_thread_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fork_policy, "spare_cores", lambda: 1)
    allow_fork(True)
    try:
        stop = threading.Event()
        other = threading.Thread(target=stop.wait)
        other.start()
        try:
            assert not fork_allowed()
        finally:
            stop.set()
            other.join()
    finally:
        allow_fork(False)


@linux_only
@pytest.mark.parametrize(("load", "allowed"), [(0.3, True), (1.0, True), (1.8, False), (4.0, False)])
def test_a_fork_needs_a_spare_core(monkeypatch: pytest.MonkeyPatch, load: float,
                                   allowed: bool) -> None:
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setattr(os, "getloadavg", lambda: (load, load, load))
    monkeypatch.setattr(threading, "active_count", lambda: 1)
    allow_fork(True)
    try:
        assert fork_allowed() is allowed
    finally:
        allow_fork(False)
