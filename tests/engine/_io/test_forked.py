"""``_io.forked``: the value comes from a forked child, or from here when the child fails."""

from __future__ import annotations

import os
import sys
import threading

import pytest

from sessionlens.engine._io.forked import Forked, allow_fork, fork_allowed

linux_only = pytest.mark.skipif(sys.platform != "linux", reason="forks only on Linux")


@linux_only
def test_the_value_is_computed_in_the_child() -> None:
    job = Forked(os.getpid, fork=True)
    assert job.forked
    assert job.result() != os.getpid()  # the child's pid: it ran there
    assert job.result() == job.result()  # asked twice, worked out once


@linux_only
def test_a_failing_child_is_made_up_for_here() -> None:
    parent = os.getpid()

    def only_here() -> str:
        if os.getpid() != parent:
            raise RuntimeError("fails in the child")
        return "computed by the parent"

    job = Forked(only_here, fork=True)
    assert job.forked and job.result() == "computed by the parent"


@linux_only
def test_a_value_that_cannot_be_pickled_is_made_here() -> None:
    parent = os.getpid()
    job = Forked(lambda: (lambda: os.getpid()), fork=True)  # a lambda does not pickle
    assert job.forked and job.result()() == parent


def test_no_fork_unless_the_process_allowed_it() -> None:
    allow_fork(False)
    job = Forked(os.getpid)
    assert not job.forked and job.result() == os.getpid()


@linux_only
def test_no_fork_while_another_thread_runs() -> None:
    allow_fork(True)
    try:
        stop = threading.Event()
        other = threading.Thread(target=stop.wait)
        other.start()
        try:
            assert not fork_allowed()
            assert not Forked(os.getpid).forked
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


@linux_only
def test_a_child_never_asked_for_its_value_is_ended() -> None:
    """An error before ``result`` must not leave a child blocked on a full pipe."""
    job = Forked(lambda: "x" * (1 << 20), fork=True)  # more than a pipe holds
    pid = job._pid
    job.close()
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # reaped already
    assert job.result() == "x" * (1 << 20)  # asked later: worked out here
