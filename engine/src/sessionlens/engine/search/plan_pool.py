"""Planning the files of an update in job order: in this process, on a thread, or in
reading processes beside the one writer (``indexer``), with the writer helping when they
fall behind. Each plan is ``file_plan.plan_file``'s, whoever makes it.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from sessionlens.engine.sessions.discovery import summarize_session_file

from .chunking import TokenMeasure, token_measure
from .file_plan import plan_file
from .index_rows import BaseState, FilePlan
from .search_settings import SearchSettings

__all__ = ["Job", "plan_job", "plans_in_order"]

Cancel = Callable[[], bool]

#: Worker processes pay ~1 s to start; below this much to read, one process is quicker.
PARALLEL_MIN_BYTES = 64 << 20
#: The readers keep at least this many bytes of files planned ahead of the writer (and
#: at least one file each), so a run of small files lets them get far enough ahead to
#: cover a big one; with two files ahead the writer waited 6.8 s of a 51 s build, mostly
#: before the 12-15 MB files.
PLANS_AHEAD_BYTES = 32 << 20
#: The writer plans a file itself, rather than wait for the readers, once it has waited
#: more than this share of the time it spent writing: the readers are the slower side
#: (real transcripts: the writer idled 40% of a build), and planning there costs the
#: writer nothing. When writing is the slower side (the generated corpus) it never does.
STEAL_WAITED = 0.25
#: ... and only after waiting this long in all: while the readers start, the writer
#: waits half a second or so, and planning three files then cost the generated corpus's
#: writer (the slower side there) 1.5 s.
STEAL_AFTER_S = 1.0

_worker_measure: TokenMeasure | None = None
_worker_settings: SearchSettings | None = None


def _init_worker(settings: SearchSettings) -> None:
    global _worker_measure, _worker_settings
    # A reader builds a whole transcript's objects per file and no garbage to speak of: the
    # collector's passes over them cost it ~15% of its time (the generated corpus, 68 MB).
    # Off for good in this process; ``_plan_in_worker`` collects between files instead.
    gc.disable()
    _worker_settings = settings
    _worker_measure = token_measure(settings.chunk_encoding, helpers=False)


def _identity(path: Path) -> tuple[str | None, str | None]:
    """Agent and session id as the session list shows them (``discovery``'s quick scan)."""
    info = summarize_session_file(path)
    return (info.agent or info.format, info.session_id) if info is not None else (None, None)


def plan_job(path: str, base: BaseState | None, settings: SearchSettings,
             measure: TokenMeasure, cancel: Cancel | None = None) -> FilePlan:
    """The plan of one file (its agent and session id from the record, else discovery)."""
    agent: str | None
    if base is not None and base.agent is not None:  # a known file keeps its agent and id
        agent, session_id = base.agent, base.session_id
    else:
        agent, session_id = _identity(Path(path))
    return plan_file(Path(path), base, settings, measure, agent=agent, session_id=session_id,
                     cancel=cancel)


def _plan_in_worker(path: str, base: BaseState | None) -> FilePlan:
    assert _worker_settings is not None and _worker_measure is not None
    gc.collect()  # between files little is alive, so this pass is quick: any cycles go here
    return plan_job(path, base, _worker_settings, _worker_measure)


@dataclass(frozen=True, slots=True)
class Job:
    """One file to plan: its path, the index's record of it, and its size."""

    path: str
    base: BaseState | None
    size: int


def plans_in_order(jobs: list[Job], settings: SearchSettings, workers: int, helpers: bool,
                   cancel: Cancel | None) -> Iterator[tuple[Job, FilePlan]]:
    """Plans in job order; in ``workers`` processes when the job is big enough."""
    total = sum(j.size for j in jobs)
    measure = token_measure(settings.chunk_encoding, helpers=helpers, cancel=cancel)

    def plan(j: Job) -> FilePlan:
        return plan_job(j.path, j.base, settings, measure, cancel)

    if workers <= 1 or len(jobs) < 2:
        for j in jobs:
            yield j, plan(j)
        return
    if total < PARALLEL_MIN_BYTES:
        # one file ahead on a thread: SQLite lets go of the GIL while it writes the last one
        with ThreadPoolExecutor(1, thread_name_prefix="sessionlens-plan") as threads:
            ahead = threads.submit(plan, jobs[0])
            for i, j in enumerate(jobs):
                done = ahead.result()
                if i + 1 < len(jobs):
                    ahead = threads.submit(plan, jobs[i + 1])
                yield j, done
        return
    import multiprocessing  # here: only a big update reads in other processes
    from concurrent.futures.process import BrokenProcessPool, ProcessPoolExecutor

    # this process writes while ``workers - 1`` others read and chunk the next files (one
    # more reader on 2 cores was no faster: benchmarks/search.py, samples, 13.5-20.9 MB/s
    # against 17.8-18.3, with more CPU spent reading: 24-27 s against 18-22)
    planners = max(1, workers - 1)
    ctx = multiprocessing.get_context("spawn")  # never fork a process that may run Qt
    given = 0
    try:
        with ProcessPoolExecutor(planners, mp_context=ctx, initializer=_init_worker,
                                 initargs=(settings,)) as pool:
            #: plans not yet taken by the writer (a taken one is let go: kept, every plan
            #: of a first build would stay in memory until its end)
            futures: dict[int, Future[FilePlan]] = {}
            #: plans this process made itself while it would have waited for the readers
            local: dict[int, FilePlan] = {}
            nxt = 1  # the first job neither handed out nor planned here

            def hand_out() -> None:
                nonlocal nxt
                while nxt < len(jobs) and (len(futures) <= planners or sum(
                        jobs[i].size for i in futures) < PLANS_AHEAD_BYTES):
                    futures[nxt] = pool.submit(_plan_in_worker, jobs[nxt].path, jobs[nxt].base)
                    nxt += 1

            try:
                hand_out()  # the readers take a second or two to start and plan a file:
                first = plan(jobs[0])  # meanwhile this process plans the first itself
                yield jobs[0], first
                given = 1
                waited = written = 0.0  # seconds this process waited for plans / wrote
                while given < len(jobs):
                    if given in local:
                        result = local.pop(given)
                    elif (not futures[given].done() and nxt < len(jobs)
                          and waited > max(STEAL_AFTER_S, STEAL_WAITED * written)):
                        local[nxt] = plan(jobs[nxt])  # rather than wait: written in its turn
                        nxt += 1
                        continue
                    else:
                        t = time.monotonic()
                        result = futures.pop(given).result()
                        waited += time.monotonic() - t
                    hand_out()
                    t = time.monotonic()
                    yield jobs[given], result
                    written += time.monotonic() - t
                    given += 1
            finally:
                for fut in futures.values():
                    fut.cancel()
    except (BrokenProcessPool, OSError):  # no worker could start (a frozen app, a sandbox)
        for j in jobs[given:]:
            yield j, plan(j)
