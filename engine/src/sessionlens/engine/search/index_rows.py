"""The rows a plan gives the search index for one file or store session (``FilePlan``:
its chunks, their segments, its compactions), and how they are made from chunks and
entries. ``file_plan`` plans a JSONL file, ``store_plan`` a session of OpenClaw's store;
both fill these rows, and ``indexer`` writes them."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, fields
from datetime import UTC, datetime
from typing import Any, Literal, NamedTuple

import orjson

from sessionlens.engine.audit.span import compaction_span
from sessionlens.engine.model import Entry, Transcript

from .chunking import Chunk
from .index_db import fts_text

__all__ = [
    "BaseState", "ChunkRow", "CompactionRow", "FilePlan", "PlanMode", "chunk_rows",
    "compaction_rows", "entry_epoch",
]

PlanMode = Literal["new", "append", "rewrite", "touch", "failed"]


@dataclass(frozen=True, slots=True)
class BaseState:
    """What the index held about a file when the plan was made."""

    file_id: int
    size: int
    mtime_ns: int
    indexed_bytes: int
    prefix_sha: str
    entry_count: int
    resume: str | None
    open_chunk: int | None
    pinned: bool = False
    format: str = ""
    diagnostics: int = 0
    agent: str | None = None
    session_id: str | None = None


class ChunkRow(NamedTuple):
    """One chunk's row. A tuple, not a dataclass: a first build sends ~370,000 of them
    from the reading processes to the writer, and unpickling as many frozen dataclasses
    cost the one writer 1.3 s per 143 MB of transcripts (plain tuples: 0.2 s, and
    ``_make`` 0.2 s more; see ``FilePlan.__reduce__``)."""

    text: str
    #: JSON ``[[offset in text, entry id, role, epoch seconds or null, timestamp], ...]``.
    segments: str
    ts_min: float | None
    ts_max: float | None
    hash: str
    #: The text as FTS5 gets it (``index_db.fts_text``) when it differs; worked out here,
    #: in the planning process, so the one writer does not spend its time on it.
    fts: str | None = None


@dataclass(frozen=True, slots=True)
class CompactionRow:
    compaction_id: str
    seq: int
    previous_id: str | None
    summary: str
    #: JSON list of the entry ids this compaction replaced (``audit.span``).
    replaced: str


@dataclass(frozen=True, slots=True)
class FilePlan:
    """Rows for one file; ``mode`` says how they relate to what the index holds."""

    path: str
    mode: PlanMode
    base: BaseState | None
    size: int = 0
    mtime_ns: int = 0
    agent: str | None = None
    format: str = ""
    session_id: str | None = None
    head_sha: str = ""
    indexed_bytes: int = 0
    prefix_sha: str = ""
    entry_count: int = 0
    diagnostics: int = 0
    chunks: tuple[ChunkRow, ...] = ()
    resume: str | None = None
    compactions: tuple[CompactionRow, ...] = ()
    entries_added: int = 0
    error: str | None = None

    def __reduce__(self) -> tuple[Any, tuple[list[Any]]]:
        """Pickled with its chunks as plain tuples (see ``ChunkRow``)."""
        values = [getattr(self, f.name) for f in fields(self)]
        values[_CHUNKS_AT] = [tuple(c) for c in self.chunks]
        return _plan_from_wire, (values,)


_CHUNKS_AT = [f.name for f in fields(FilePlan)].index("chunks")


def _plan_from_wire(values: list[Any]) -> FilePlan:
    values[_CHUNKS_AT] = tuple(map(ChunkRow._make, values[_CHUNKS_AT]))
    return FilePlan(*values)


def entry_epoch(entry: Entry) -> float | None:
    """Seconds since the epoch of an entry's timestamp (the message's own as a fallback)."""
    ts = entry.timestamp
    if ts:
        try:
            when = datetime.fromisoformat(ts)
        except ValueError:
            when = None
        if when is not None:
            return (when if when.tzinfo else when.replace(tzinfo=UTC)).timestamp()
    ms = entry.message.timestamp_ms if entry.message is not None else None
    return ms / 1000.0 if isinstance(ms, int) and ms > 0 else None


def _role(entry: Entry) -> str:
    return entry.role or entry.type


def _hash(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def chunk_rows(chunks: list[Chunk], entries: Sequence[Entry]) -> tuple[ChunkRow, ...]:
    rows: list[ChunkRow] = []
    #: per entry (most sit in one or two chunks): id, role, epoch seconds, timestamp
    about: dict[int, tuple[str, str, float | None, str | None]] = {}
    dumps = orjson.dumps
    for chunk in chunks:
        segments = []
        stamps = []
        for piece, offset in zip(chunk.pieces, chunk.offsets, strict=True):
            seq = piece.seq
            known = about.get(seq)
            if known is None:
                e = entries[seq]
                known = about[seq] = (e.id, _role(e), entry_epoch(e), e.timestamp)
            segments.append([offset, *known])
            if known[2] is not None:
                stamps.append(known[2])
        fts = fts_text(chunk.text)
        rows.append(ChunkRow(chunk.text, dumps(segments).decode(),
                             min(stamps, default=None), max(stamps, default=None),
                             _hash(chunk.text), None if fts is chunk.text else fts))
    return tuple(rows)


def compaction_rows(t: Transcript, entries: Sequence[Entry], start: int
                     ) -> tuple[CompactionRow, ...]:
    """The compactions among the new entries, with the entries each one replaced."""
    out = []
    for seq in range(start, len(entries)):
        e = entries[seq]
        if e.type == "compaction":
            span = compaction_span(t, e.id)
            out.append(CompactionRow(e.id, seq, span.previous_compaction_id, e.summary or "",
                                     json.dumps(list(span.summarized_entry_ids))))
    return tuple(out)
