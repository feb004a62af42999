"""Bringing the search index up to date with the transcripts on disk, incrementally.

Every update lists the session files (``sessions.discovery``: every registered agent's
folders, the user's added roots, and paths named for this update), compares each with its
record (size and mtime first, then the hash of the bytes already indexed), plans the
changed ones (``file_plan``, in worker processes when there is much to do) and writes each
file's rows in one transaction. A file that only grew costs its new entries; a rewritten
one is re-indexed; a removed one is dropped. Before committing, the writer checks that the
record still is what the plan was made against, so two processes updating at once never
write the same entries twice: the loser plans again from the winner's record.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from sessionlens.engine.agents.openclaw.openclaw_store import STORE_NAME
from sessionlens.engine.errors import LoadCancelled
from sessionlens.engine.sessions.discovery import session_files

from .chunking import TokenMeasure, token_measure
from .index_db import fts_text, transaction
from .index_rows import BaseState, ChunkRow, FilePlan
from .plan_pool import Job, plan_job, plans_in_order
from .search_settings import SearchSettings
from .store_plan import store_sessions

__all__ = ["INDEXED_KINDS", "IndexStats", "drop_file", "update_files"]

#: Live transcripts and the archives OpenClaw leaves on reset or delete (their history is
#: nowhere else); checkpoint and .bak copies are left out, they repeat a live file.
INDEXED_KINDS = frozenset({"primary", "archive-reset", "archive-deleted"})
#: How often a plan is redone when another process changed the record meanwhile.
_CONFLICT_RETRIES = 3
#: A first build commits this many bytes of transcripts at a time: FTS5 writes a segment
#: per transaction and merges segments as they pile up, so fewer, bigger segments cost less.
FIRST_BUILD_BATCH_BYTES = 48 << 20
#: FTS5's own settings (its defaults) and a first build's. A first build turns automatic
#: merging off until the end (524 MB generated: 11.9 MB/s against 9.6 with automerge 4);
#: holds 64 MB of pending tokens in memory before writing a segment, not 1 MB, so it
#: writes about one segment per batch instead of hundreds of small ones merged over and
#: over; and lets 64 segments pile up before a crisis merge, so a build of up to ~3 GB
#: merges once, in the final ``optimize``. benchmarks/search.py, generated 526 MB: the
#: writer's CPU 37.4 and 36.8 s against 43.1 and 42.7 with the defaults; query p95 93 ms
#: against 103-105.
FTS5_DEFAULTS = {"automerge": 4, "hashsize": 1 << 20, "crisismerge": 16}
FIRST_BUILD_FTS5 = {"automerge": 0, "hashsize": 64 << 20, "crisismerge": 64}

Progress = Callable[[int, int], None]
Cancel = Callable[[], bool]


@dataclass(frozen=True, slots=True)
class IndexStats:
    """What one update did."""

    files: int
    indexed: int
    removed: int
    entries_added: int
    chunks_added: int
    bytes_read: int
    seconds: float
    #: One line per file that could not be indexed ("path: reason"); the rest still is.
    problems: tuple[str, ...] = ()
    vectors_added: int = 0


def _rows(conn: sqlite3.Connection) -> dict[str, BaseState]:
    out = {}
    for r in conn.execute("SELECT id, path, size, mtime_ns, indexed_bytes, prefix_sha, "
                          "entry_count, resume, open_chunk, pinned, format, diagnostics, agent, "
                          "session_id FROM files"):
        out[r[1]] = BaseState(r[0], r[2], r[3], r[4], r[5], r[6], r[7], r[8], bool(r[9]),
                              r[10], r[11], r[12], r[13])
    return out


def _state(conn: sqlite3.Connection, path: str) -> BaseState | None:
    r = conn.execute("SELECT id, size, mtime_ns, indexed_bytes, prefix_sha, entry_count, "
                     "resume, open_chunk, pinned, format, diagnostics, agent, session_id FROM "
                     "files WHERE path=?", (path,)).fetchone()
    return None if r is None else BaseState(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7],
                                            bool(r[8]), r[9], r[10], r[11], r[12])


def _same(a: BaseState | None, b: BaseState | None) -> bool:
    if a is None or b is None:
        return a is b
    return (a.file_id, a.indexed_bytes, a.prefix_sha, a.entry_count, a.open_chunk) == (
        b.file_id, b.indexed_bytes, b.prefix_sha, b.entry_count, b.open_chunk)


def _delete_chunks(conn: sqlite3.Connection, where: str, args: tuple[object, ...]) -> None:
    rows = conn.execute(f"SELECT id, text FROM chunks WHERE {where}", args).fetchall()
    conn.executemany("INSERT INTO chunk_fts(chunk_fts, rowid, body) VALUES('delete', ?, ?)",
                     ((i, fts_text(text)) for i, text in rows))
    conn.execute(f"DELETE FROM chunks WHERE {where}", args)


def drop_file(conn: sqlite3.Connection, file_id: int, *, keep_record: bool = False) -> None:
    """Remove a file's chunks and compactions (and its record unless ``keep_record``)."""
    _delete_chunks(conn, "file_id=?", (file_id,))
    conn.execute("DELETE FROM compactions WHERE file_id=?", (file_id,))
    if not keep_record:
        conn.execute("DELETE FROM files WHERE id=?", (file_id,))


def _insert_chunks(conn: sqlite3.Connection, file_id: int, chunks: Sequence[ChunkRow]
                   ) -> int | None:
    """Insert ``chunks`` (inside the caller's transaction) and return the last one's id.

    The ids are handed out here, after the highest in use (what SQLite would pick), so
    both tables take all rows in one ``executemany`` each instead of two calls a chunk.
    """
    if not chunks:
        return None
    top = int(conn.execute("SELECT coalesce(max(id), 0) FROM chunks").fetchone()[0])
    ids = range(top + 1, top + 1 + len(chunks))
    conn.executemany("INSERT INTO chunks(id, file_id, text, segments, ts_min, ts_max, hash) "
                     "VALUES (?,?,?,?,?,?,?)",
                     ((i, file_id, c.text, c.segments, c.ts_min, c.ts_max, c.hash)
                      for i, c in zip(ids, chunks, strict=True)))
    conn.executemany("INSERT INTO chunk_fts(rowid, body) VALUES (?, ?)",
                     ((i, c.text if c.fts is None else c.fts)
                      for i, c in zip(ids, chunks, strict=True)))
    return ids[-1]


def _apply(conn: sqlite3.Connection, plan: FilePlan, pinned: bool) -> bool:
    """Write one plan in a transaction; False when the record changed since planning."""
    with transaction(conn):
        current = _state(conn, plan.path)
        if not _same(current, plan.base):
            return False
        pinned = pinned or bool(current and current.pinned)
        if plan.mode == "touch" and current is not None:
            conn.execute("UPDATE files SET size=?, mtime_ns=? WHERE id=?",
                         (plan.size, plan.mtime_ns, current.file_id))
            return True
        open_chunk = current.open_chunk if current is not None else None
        if current is not None and plan.mode in ("rewrite", "failed"):
            drop_file(conn, current.file_id, keep_record=True)
            open_chunk = None
        elif current is not None and plan.mode == "append" and plan.chunks \
                and open_chunk is not None:
            _delete_chunks(conn, "id=?", (open_chunk,))
        values = (plan.agent, plan.format, plan.session_id, plan.size, plan.mtime_ns,
                  plan.head_sha, plan.indexed_bytes, plan.prefix_sha, plan.entry_count,
                  plan.resume, int(pinned), plan.diagnostics, time.time())
        if current is None:
            file_id = int(conn.execute(
                "INSERT INTO files(agent, format, session_id, size, mtime_ns, head_sha, "
                "indexed_bytes, prefix_sha, entry_count, resume, pinned, diagnostics, "
                "indexed_at, path) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (*values, plan.path)).lastrowid or 0)
        else:
            file_id = current.file_id
            conn.execute("UPDATE files SET agent=?, format=?, session_id=?, size=?, "
                         "mtime_ns=?, head_sha=?, indexed_bytes=?, prefix_sha=?, "
                         "entry_count=?, resume=?, pinned=?, diagnostics=?, indexed_at=? "
                         "WHERE id=?", (*values, file_id))
        last = _insert_chunks(conn, file_id, plan.chunks)
        if last is not None or plan.mode in ("rewrite", "failed", "new"):
            open_chunk = last
        conn.execute("UPDATE files SET open_chunk=? WHERE id=?", (open_chunk, file_id))
        conn.executemany(
            "INSERT OR REPLACE INTO compactions(file_id, compaction_id, seq, previous_id, "
            "summary, replaced) VALUES (?,?,?,?,?,?)",
            ((file_id, c.compaction_id, c.seq, c.previous_id, c.summary, c.replaced)
             for c in plan.compactions))
    return True


def update_files(conn: sqlite3.Connection, settings: SearchSettings, dirs: Iterable[Path],
                 pinned: Sequence[Path] = (), *, on_progress: Progress | None = None,
                 cancel: Cancel | None = None, workers: int = 1,
                 helpers: bool = True) -> IndexStats:
    """Index what changed under ``dirs`` and ``pinned`` (kept even outside ``dirs``)."""
    started = time.monotonic()
    pinned_files = {str(f.resolve()) for f, _ in session_files(pinned, kinds=INDEXED_KINDS)}
    listing = {str(f.resolve()) for f, _ in session_files([*dirs, *pinned],
                                                          kinds=INDEXED_KINDS)}
    rows = _rows(conn)
    keep = set(listing)
    keep.update(p for p, r in rows.items() if r.pinned and os.path.isfile(p))
    stamps = _stamps(keep)  # OpenClaw's store: one record per session, not the database
    keep = {p for p in keep if Path(p).name != STORE_NAME} | set(stamps)
    removed = 0
    for path, gone in rows.items():
        if path not in keep:
            with transaction(conn):
                drop_file(conn, gone.file_id)
            removed += 1
    jobs = []
    for path in sorted(keep):
        stamp = stamps.get(path)
        if stamp is None:
            try:
                st = os.stat(path)
            except OSError:
                continue
            stamp = (st.st_size, st.st_mtime_ns)
        row = rows.get(path)
        if row is not None and (row.size, row.mtime_ns) == stamp:
            if path in pinned_files and not row.pinned:
                with transaction(conn):
                    conn.execute("UPDATE files SET pinned=1 WHERE id=?", (row.file_id,))
            continue
        jobs.append(Job(path, row, stamp[0]))
    total = sum(j.size for j in jobs)
    done = indexed = entries = chunks = 0
    problems: list[str] = []
    if on_progress is not None:
        on_progress(0, total)
    #: an empty index being filled: big transactions, FTS5 merging off until the end
    first_build = not rows and len(jobs) > 1
    if jobs:
        _set_fts5(conn, FIRST_BUILD_FTS5 if first_build else FTS5_DEFAULTS)
    batch = contextlib.ExitStack()  # the open batch's transaction; rolled back on errors
    batched = 0
    try:
        with batch:
            for job, plan in plans_in_order(jobs, settings, workers, helpers, cancel):
                if first_build and batched == 0:
                    batch.enter_context(transaction(conn))
                indexed, entries, chunks = _index_one(
                    conn, job, plan, settings, job.path in pinned_files, helpers, cancel,
                    problems, (indexed, entries, chunks))
                done += job.size
                batched += job.size
                if batched >= FIRST_BUILD_BATCH_BYTES:
                    batch.close()  # commit
                    batched = 0
                if on_progress is not None:
                    on_progress(done, total)
        if first_build:
            _optimize(conn)
    finally:
        if first_build:
            _set_fts5(conn, FTS5_DEFAULTS)
    return IndexStats(len(keep), indexed, removed, entries, chunks, total,
                      time.monotonic() - started, tuple(problems))


def _stamps(paths: Iterable[str]) -> dict[str, tuple[int, int]]:
    """(size, mtime) of every session of the OpenClaw stores among ``paths``: its row count
    and its window's ``updated_at`` (see ``store_plan``)."""
    out: dict[str, tuple[int, int]] = {}
    for path in paths:
        if Path(path).name == STORE_NAME:
            out.update({s.path: (s.size, s.mtime_ns) for s in store_sessions(Path(path))})
    return out


def _optimize(conn: sqlite3.Connection) -> None:
    """Merge a first build's segments into one. They are few but large (see
    ``FIRST_BUILD_FTS5``); left as they are, the crisis merge that a later small update
    sets off would rewrite them all in that update (9 s instead of 0.05 in the benchmark).
    Queries read one segment instead of several."""
    with transaction(conn):
        conn.execute("INSERT INTO chunk_fts(chunk_fts) VALUES('optimize')")


def _set_fts5(conn: sqlite3.Connection, values: dict[str, int]) -> None:
    """Set FTS5 configuration options (kept in the index file, so they outlast a crash:
    the next update with anything to index sets the defaults back)."""
    with transaction(conn):
        conn.executemany("INSERT INTO chunk_fts(chunk_fts, rank) VALUES(?, ?)",
                         values.items())


def _index_one(conn: sqlite3.Connection, job: Job, plan: FilePlan, settings: SearchSettings,
               pinned: bool, helpers: bool, cancel: Cancel | None, problems: list[str],
               counts: tuple[int, int, int]) -> tuple[int, int, int]:
    """Write one file's plan (planning again if another process got there first); returns
    the running (files indexed, entries added, chunks added)."""
    indexed, entries, chunks = counts
    measure: TokenMeasure | None = None
    if cancel is not None and cancel():
        raise LoadCancelled(job.path, "indexing cancelled")
    for _attempt in range(_CONFLICT_RETRIES):
        if _apply(conn, plan, pinned):
            break
        measure = measure or token_measure(settings.chunk_encoding, helpers=helpers,
                                           cancel=cancel)
        plan = plan_job(job.path, _state(conn, job.path), settings, measure, cancel)
    else:
        problems.append(f"{job.path}: changed by another process while indexing; "
                        "left for the next update")
    if plan.error:
        problems.append(plan.error)
    elif plan.mode not in ("touch", "failed"):
        indexed += 1
        entries += plan.entries_added
        chunks += len(plan.chunks)
    return indexed, entries, chunks
