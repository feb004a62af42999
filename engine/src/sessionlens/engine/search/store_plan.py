"""Indexing the sessions of OpenClaw's SQLite store (2026.8+), one ``<db>/<session>`` each.

A store holds every session of an agent as rows, so the index keeps one record per session
under the path the loader opens (``<db>/<session id>``), not one for the database. Its
"size" is the session's row count and its "mtime" the window's ``updated_at``: what changes
when OpenClaw appends. An update loads the session read-only (``agents.openclaw.openclaw_store``:
WAL included, nothing written beside it) and, when the entries the index saw are still its
first entries (their ids hashed, as ``file_plan`` hashes a file's bytes), indexes only the
rows after them: the store is followed by ``seq``, never re-read as a whole on an append.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from sessionlens.engine.agents.openclaw.openclaw_store import STORE_NAME, read_store_sessions
from sessionlens.engine.errors import LoadError, NotATranscriptError
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.model import Entry

from .chunking import ChunkerState, TokenMeasure, chunk_entries, indexed_text
from .index_rows import BaseState, FilePlan, PlanMode, chunk_rows, compaction_rows
from .search_settings import SearchSettings

__all__ = ["StoreSessionFile", "is_store_session", "plan_store_session", "store_sessions"]


@dataclass(frozen=True, slots=True)
class StoreSessionFile:
    """One session of a store as the indexer sees a file: its path, "size" and "mtime"."""

    path: str
    size: int
    mtime_ns: int


def is_store_session(path: Path) -> bool:
    return path.parent.name == STORE_NAME and not path.exists() and path.parent.is_file()


def store_sessions(db: Path) -> list[StoreSessionFile]:
    """The live windows of the store at ``db`` (none when it cannot be read)."""
    try:
        sessions = read_store_sessions(db)
    except LoadError:
        return []
    return [StoreSessionFile(str(db / s.id), s.events,
                             (s.window.updated_ms or 0) * 1_000_000 if s.window else 0)
            for s in sessions if s.archived is None]


def _ids_sha(entries: Sequence[Entry]) -> str:
    return hashlib.sha256("\n".join(e.id for e in entries).encode()).hexdigest()


def plan_store_session(path: Path, base: BaseState | None, settings: SearchSettings,
                       measure: TokenMeasure, *, agent: str | None = None,
                       session_id: str | None = None,
                       cancel: Callable[[], bool] | None = None) -> FilePlan:
    """The rows that bring the index's record of one store session up to date."""
    try:
        t = load_transcript(path, cancel=cancel)
    except NotATranscriptError:
        return FilePlan(str(path), "failed", base)
    except LoadError as exc:
        return FilePlan(str(path), "failed", base, error=str(exc))
    entries = t.entries
    now = next((s for s in store_sessions(path.parent) if s.path == str(path)), None)
    rows = now.size if now is not None else len(entries) + 1
    seen = FilePlan(str(path), "touch", base, size=rows,
                    mtime_ns=now.mtime_ns if now is not None else 0,
                    agent=agent or "openclaw", format=t.format,
                    session_id=session_id or t.session_id, head_sha=_ids_sha(entries[:1]))
    grew = (base is not None and base.entry_count <= len(entries)
            and base.prefix_sha == _ids_sha(entries[:base.entry_count]))
    if grew and base is not None and base.entry_count == len(entries):
        return seen
    start = base.entry_count if grew and base is not None else 0
    state = ChunkerState()
    resume = base.resume if grew and base is not None else None
    if grew and resume:
        state = ChunkerState.from_json(json.loads(resume))
    low = min([p.seq for p in state.carry] + [state.seq])
    items = [(i, text) for i in range(low, len(entries)) if (text := indexed_text(entries[i]))]
    todo = [(seq, text) for seq, text in items if seq >= state.seq]
    counts = dict(zip((seq for seq, _ in todo), measure.counts([text for _, text in todo]),
                      strict=True))
    chunks, begun = chunk_entries(items, counts, measure, settings.chunk_tokens,
                                  settings.chunk_overlap, state)
    if chunks:
        first = min([p.seq for p in begun.carry] + [begun.seq])
        e = entries[first]
        resume = json.dumps({**begun.to_json(), "line": [first, e.offset, e.id]})
    mode: PlanMode = "append" if grew else ("rewrite" if base is not None else "new")
    return replace(seen, mode=mode, indexed_bytes=rows, prefix_sha=_ids_sha(entries),
                   entry_count=len(entries), diagnostics=len(t.diagnostics),
                   chunks=chunk_rows(chunks, entries), resume=resume,
                   compactions=compaction_rows(t, entries, start),
                   entries_added=len(entries) - start)
