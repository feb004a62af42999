"""Run a fleet audit: serially in this process, or on Dask (a local cluster, or one given).

The work is independent per session (``rows.audit_session``; small sessions travel
together, ``batches``), so it goes to an existing distributed engine rather than a pool
of our own: Dask's ``distributed`` scheduler
(``pip install 'sessionlens-engine[fleet]'``), imported only when a cluster is asked for.

- ``workers=0``: serial, in this process (the baseline the benchmark compares with).
- ``workers=None`` or N: a ``LocalCluster`` of processes on this machine (N workers, one
  thread each: the audit is CPU-bound Python, so threads would share one GIL).
- ``scheduler=ADDRESS``: an existing cluster. ``worker_roots`` maps a worker (its address,
  name or host, as Dask's ``workers=`` takes it) to the roots on that worker's own disk: the
  worker lists them and audits what it found, and only stamps and rows travel. Roots given
  without a worker are read by any worker (a shared file system).

Rows of unchanged sessions come from the ``RowCache`` (the client keeps it: workers need no
state folder); a session that fails is a ``SessionFailure`` in the result and the run goes
on; ``cancel()`` is polled between completions and stops what has not started.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sessionlens.engine.errors import ConfigError

from .listing import list_stamps
from .rows import SessionFailure, SessionRow, SessionStamp, audit_batch, audit_session

if TYPE_CHECKING:
    from .row_cache import RowCache

__all__ = ["BATCH_BYTES", "BATCH_SESSIONS", "FleetProgress", "FleetRun", "batches", "run_fleet"]

#: (sessions done, sessions in all, the row or failure just finished; None for cached ones).
FleetProgress = Callable[[int, int, "SessionRow | SessionFailure | None"], None]
#: How often a cluster run looks at ``cancel`` while no session finishes (seconds).
_POLL = 0.2
#: Small sessions go to the cluster together, up to this many bytes and sessions a task: a
#: task costs the scheduler, the client and a worker ~15-45 ms on this project's 2-core
#: machines, more than auditing a 10 KB session (benchmarks/fleet.py); a big session is a
#: task of its own, so progress still comes as sessions finish.
BATCH_BYTES = 1 << 20
BATCH_SESSIONS = 32


@dataclass(frozen=True, slots=True)
class FleetRun:
    """What a run produced, in a stable order (host, path)."""

    rows: tuple[SessionRow, ...]
    failures: tuple[SessionFailure, ...]
    #: Sessions whose row came from the cache, and sessions audited now.
    reused: int
    audited: int
    seconds: float
    #: "serial", "local cluster of 2 processes", "scheduler tcp://...".
    mode: str
    cancelled: bool = False


def _sorted(rows: list[SessionRow], failures: list[SessionFailure]) -> tuple[
        tuple[SessionRow, ...], tuple[SessionFailure, ...]]:
    return (tuple(sorted(rows, key=lambda r: (r.host, r.path))),
            tuple(sorted(failures, key=lambda f: (f.host, f.path))))


class _Tally:
    """Rows, failures and progress of one run; keeps fresh rows for the cache."""

    def __init__(self, total: int, on_progress: FleetProgress | None,
                 cache: RowCache | None) -> None:
        self.total, self.on_progress, self.cache = total, on_progress, cache
        self.rows: list[SessionRow] = []
        self.failures: list[SessionFailure] = []
        self.fresh: list[tuple[SessionStamp, SessionRow]] = []
        self.done = self.reused = 0

    def add(self, stamp: SessionStamp, result: SessionRow | SessionFailure, *,
            cached: bool = False) -> None:
        if isinstance(result, SessionRow):
            self.rows.append(result)
            if cached:
                self.reused += 1
            else:
                self.fresh.append((stamp, result))
        else:
            self.failures.append(result)
        self.done += 1
        if self.on_progress is not None:
            self.on_progress(self.done, self.total, None if cached else result)

    def keep(self) -> None:
        if self.cache is not None and self.fresh:
            self.cache.put_many(self.fresh)
            self.fresh.clear()


def run_fleet(roots: Sequence[Path | str] | None = None, *, workers: int | None = None,
              scheduler: str | None = None,
              worker_roots: Mapping[str, Sequence[Path | str]] | None = None,
              cache: RowCache | None = None, on_progress: FleetProgress | None = None,
              cancel: Callable[[], bool] | None = None,
              stamps: Sequence[SessionStamp] | None = None) -> FleetRun:
    """Audit every session under ``roots`` (None: the agents' default folders).

    ``stamps``: audit these sessions of this machine instead of listing ``roots`` (a caller
    that listed them already, to show the count first or to choose among them)."""
    start = time.perf_counter()
    stop = cancel or (lambda: False)
    if scheduler is None and worker_roots:
        raise ConfigError("roots per worker need a cluster: give --scheduler ADDRESS")
    if stamps is not None and (scheduler is not None or worker_roots):
        raise ConfigError("sessions listed here are audited here: no --scheduler with them")
    if scheduler is None and workers == 0:
        stamps = list_stamps(roots) if stamps is None else list(stamps)
        tally = _Tally(len(stamps), on_progress, cache)
        cancelled = False
        for stamp in stamps:
            if stop():
                cancelled = True
                break
            kept = cache.get(stamp) if cache is not None else None
            tally.add(stamp, kept or audit_session(stamp), cached=kept is not None)
        tally.keep()
        rows, failures = _sorted(tally.rows, tally.failures)
        return FleetRun(rows, failures, tally.reused, len(tally.rows) - tally.reused
                        + len(failures), time.perf_counter() - start, "serial", cancelled)
    return _run_dask(roots, workers, scheduler, worker_roots or {}, cache, on_progress, stop,
                     start, stamps)


def _client(workers: int | None, scheduler: str | None) -> tuple[Any, Any, str]:
    """(client, local cluster or None, mode words)."""
    try:
        import distributed
    except ImportError:
        raise ConfigError("a cluster run needs Dask: pip install 'sessionlens-engine[fleet]' "
                          "(or give --workers 0 for a serial run)") from None
    dd: Any = distributed  # untyped
    if scheduler is not None:
        try:
            return dd.Client(scheduler, timeout="10s"), None, f"scheduler {scheduler}"
        except (OSError, TimeoutError) as exc:
            raise ConfigError(f"cannot reach the Dask scheduler {scheduler}: {exc}") from None
    n = workers if workers is not None else max(1, os.cpu_count() or 1)
    cluster = dd.LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                              dashboard_address=None, silence_logs=logging.ERROR)
    return dd.Client(cluster), cluster, f"local cluster of {n} process{'es' if n != 1 else ''}"


def _list_on_cluster(client: Any, roots: Sequence[Path | str] | None, local: bool,
                     worker_roots: Mapping[str, Sequence[Path | str]],
                     stamps: Sequence[SessionStamp] | None) -> list[
                         tuple[SessionStamp, str | None]]:
    """(stamp, the worker that must audit it or None) for every session to audit."""
    if stamps is not None:
        return [(s, None) for s in stamps]
    if local:  # this machine's files: list them here, any worker may audit them
        return [(s, None) for s in list_stamps(roots)]
    jobs: list[tuple[Any, str | None]] = []
    if roots or not worker_roots:
        jobs.append((client.submit(list_stamps, [str(r) for r in roots] if roots else None,
                                   pure=False), None))
    for worker, its_roots in worker_roots.items():
        jobs.append((client.submit(list_stamps, [str(r) for r in its_roots], workers=[worker],
                                   allow_other_workers=False, pure=False), worker))
    out: list[tuple[SessionStamp, str | None]] = []
    for fut, owner in jobs:
        out.extend((s, owner) for s in fut.result())
    return out


def _run_dask(roots: Sequence[Path | str] | None, workers: int | None, scheduler: str | None,
              worker_roots: Mapping[str, Sequence[Path | str]], cache: RowCache | None,
              on_progress: FleetProgress | None, stop: Callable[[], bool],
              start: float, stamps: Sequence[SessionStamp] | None) -> FleetRun:
    import distributed

    dd: Any = distributed  # untyped
    client, cluster, mode = _client(workers, scheduler)
    cancelled = False
    try:
        found = _list_on_cluster(client, roots, cluster is not None, worker_roots, stamps)
        tally = _Tally(len(found), on_progress, cache)
        todo: list[tuple[SessionStamp, str | None]] = []
        for stamp, worker in found:
            kept = cache.get(stamp) if cache is not None else None
            if kept is not None:
                tally.add(stamp, kept, cached=True)
            else:
                todo.append((stamp, worker))
        pending: dict[Any, list[SessionStamp]] = {}
        for batch, worker in batches(todo):
            pin: dict[str, Any] = ({"workers": [worker], "allow_other_workers": False}
                                   if worker else {})
            pending[client.submit(audit_batch, batch, pure=False, **pin)] = batch
        while pending:
            if stop():
                cancelled = True
                client.cancel(list(pending))
                break
            try:
                done = dd.wait(list(pending), timeout=_POLL, return_when="FIRST_COMPLETED").done
            except TimeoutError:
                continue
            for fut in done:
                batch = pending.pop(fut)
                for stamp, result in zip(batch, _outcome(fut, batch), strict=True):
                    tally.add(stamp, result)
        tally.keep()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    rows, failures = _sorted(tally.rows, tally.failures)
    return FleetRun(rows, failures, tally.reused, len(tally.rows) - tally.reused + len(failures),
                    time.perf_counter() - start, mode, cancelled)


def batches(todo: Sequence[tuple[SessionStamp, str | None]]) -> list[
        tuple[list[SessionStamp], str | None]]:
    """Consecutive sessions of one worker (or of any) in tasks of at most ``BATCH_BYTES``
    and ``BATCH_SESSIONS``; a session bigger than that is a task alone."""
    out: list[tuple[list[SessionStamp], str | None]] = []
    size = 0
    for stamp, worker in todo:
        if (not out or out[-1][1] != worker or len(out[-1][0]) >= BATCH_SESSIONS
                or size + stamp.size > BATCH_BYTES):
            out.append(([], worker))
            size = 0
        out[-1][0].append(stamp)
        size += stamp.size
    return out


def _outcome(fut: Any, batch: list[SessionStamp]) -> list[SessionRow | SessionFailure]:
    """The task's rows, or a failure for each session of it (a worker that died, a task
    Dask could not run)."""
    if fut.status == "finished":
        result: list[SessionRow | SessionFailure] = fut.result()
        return result
    exc = fut.exception()
    return [SessionFailure(s.host, s.path, f"the task failed on the cluster: {exc}",
                           type(exc).__name__) for s in batch]
