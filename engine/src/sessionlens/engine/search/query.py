"""Answering a query: BM25 over FTS5, hybrid with vectors when configured, one hit per entry.

Text ranking is FTS5's ``bm25()`` (more negative is better), mapped to ``s / (1 + s)`` with
``s = -bm25`` so it lies in [0, 1). OpenClaw maps ranks with ``1 / (1 + max(0, rank))``,
which gives FTS5's negative ranks all the same score of 1; this keeps their order. Hybrid
ranking fetches ``candidate_multiplier * max_results`` candidates from each side, scores
each chunk ``(wv * vector + wt * text) / (wv + wt)`` (a missing side counts 0), drops what
scores under ``min_score`` and keeps the best hit per (file, entry).
"""

from __future__ import annotations

import heapq
import json
import os
import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from operator import itemgetter
from pathlib import Path
from typing import Any, Literal

from .fate import HitFate, RecordedCompaction, hit_fate
from .query_terms import Term, fts_query, parse_query, term_spans
from .search_settings import SearchSettings
from .vectors import nearest

__all__ = ["Filters", "SearchHit", "SearchResults", "indexed_entry_text", "run_query",
           "text_score"]

#: Characters of context shown around a match.
SNIPPET_CHARS = 240

RankMode = Literal["text", "hybrid"]


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One entry that matched: where it is, how well it matched, and what compaction did."""

    path: Path
    entry_id: str
    role: str
    agent: str | None
    session_id: str | None
    timestamp: str | None
    score: float
    snippet: str
    #: (start, end) of each match inside ``snippet``.
    highlights: tuple[tuple[int, int], ...]
    fate: HitFate
    text_score: float | None = None
    vector_score: float | None = None


@dataclass(frozen=True, slots=True)
class SearchResults:
    """Hits best first; ``notes`` say why a ranking fell back (e.g. the endpoint failed)."""

    query: str
    hits: tuple[SearchHit, ...]
    mode: RankMode
    seconds: float
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Filters:
    """Which files and entries a query may return."""

    agent: str | None = None
    paths: tuple[Path, ...] = ()
    since: float | None = None

    def sql(self) -> tuple[str, list[object]]:
        """A WHERE clause over ``c`` (chunks) and ``f`` (files)."""
        where: list[str] = ["1"]
        args: list[object] = []
        if self.agent:
            where.append("f.agent = ?")
            args.append(self.agent)
        if self.since is not None:
            where.append("c.ts_max >= ?")
            args.append(self.since)
        if self.paths:
            alts = []
            for p in self.paths:
                s = str(p)
                prefix = s.rstrip(os.sep) + os.sep
                alts.append("(f.path = ? OR substr(f.path, 1, ?) = ?)")
                args.extend([s, len(prefix), prefix])
            where.append("(" + " OR ".join(alts) + ")")
        return " AND ".join(where), args


def text_score(bm25: float) -> float:
    s = max(0.0, -bm25)
    return s / (1.0 + s)


def _recent_window(conn: sqlite3.Connection, match: str, cap: int) -> int | None:
    """The lowest chunk id worth ranking, or None to rank every match.

    BM25 scores every chunk that matches, so words found in most chunks ("error", "the")
    would cost seconds on a large index. FTS5 walks matches newest first cheaply, so when
    more than ``cap`` chunks match, only the newest ``cap`` of them are ranked.
    """
    rows = conn.execute("SELECT rowid FROM chunk_fts WHERE chunk_fts MATCH ? "
                        "ORDER BY rowid DESC LIMIT 1 OFFSET ?", (match, cap)).fetchall()
    return int(rows[0][0]) if rows else None


def _ranked_newest(conn: sqlite3.Connection, match: str, k: int, cap: int
                   ) -> tuple[list[tuple[int, float]], bool]:
    """The ``k`` best by BM25 (ties: lower id first) among the newest ``cap`` matches, and
    whether more matched than were ranked.

    One newest-first pass that scores as it walks, then a top-k here: FTS5's own
    ``ORDER BY rank`` after a separate walk to find the window's edge matched every
    chunk twice (benchmarks/search.py, generated 524 MB: the 27 queries' candidate SQL
    took 544 ms against 724 ms, with the same candidates).
    """
    rows = conn.execute("SELECT rowid, bm25(chunk_fts) FROM chunk_fts WHERE chunk_fts MATCH ? "
                        "ORDER BY rowid DESC LIMIT ?", (match, cap + 1)).fetchall()
    capped = len(rows) > cap
    if capped:
        rows.pop()  # the (cap+1)-th newest only says that there are more
    # nsmallest is stable: oldest first, equal scores keep the lower id first
    return heapq.nsmallest(k, reversed(rows), key=itemgetter(1)), capped


def _text_candidates(conn: sqlite3.Connection, terms: tuple[Term, ...], where: str,
                     args: list[object], k: int, cap: int, notes: list[str]
                     ) -> dict[int, float]:
    out: dict[int, float] = {}
    for op in ("AND", "OR"):  # a natural-language question rarely has every word in one chunk
        match = fts_query(terms, op)
        if where == "1":  # no filter: FTS5 alone, no row of chunks is touched
            best, capped = _ranked_newest(conn, match, k, cap)
        else:
            low = _recent_window(conn, match, cap)
            window = "" if low is None else " AND chunk_fts.rowid > ?"
            extra: list[object] = [] if low is None else [low]
            sql = ("SELECT c.id, bm25(chunk_fts) AS r FROM chunk_fts JOIN chunks c ON c.id = "
                   "chunk_fts.rowid JOIN files f ON f.id = c.file_id WHERE chunk_fts MATCH ?"
                   f"{window} AND {where} ORDER BY r LIMIT ?")
            best = conn.execute(sql, (match, *extra, *args, k)).fetchall()
            capped = low is not None
        out = {int(i): text_score(r) for i, r in best}
        if out and capped:
            notes.append("these words are in most chunks: only the newest matches were ranked")
        if out or len(terms) < 2:
            break
    return out


@dataclass(frozen=True, slots=True)
class _Chunk:
    id: int
    file_id: int
    text: str
    segments: list[list[Any]]
    path: str
    agent: str | None
    session_id: str | None


def _load_chunks(conn: sqlite3.Connection, ids: Sequence[int]) -> dict[int, _Chunk]:
    out: dict[int, _Chunk] = {}
    for start in range(0, len(ids), 500):
        part = list(ids[start:start + 500])
        marks = ",".join("?" * len(part))
        for r in conn.execute("SELECT c.id, c.file_id, c.text, c.segments, f.path, f.agent, "
                              "f.session_id FROM chunks c JOIN files f ON f.id = c.file_id "
                              f"WHERE c.id IN ({marks})", part):
            out[r[0]] = _Chunk(r[0], r[1], r[2], json.loads(r[3]), r[4], r[5], r[6])
    return out


def _segment_bounds(chunk: _Chunk, i: int) -> tuple[int, int]:
    start = int(chunk.segments[i][0])
    end = int(chunk.segments[i + 1][0]) if i + 1 < len(chunk.segments) else len(chunk.text)
    return start, end


def indexed_entry_text(conn: sqlite3.Connection, path: Path | str, entry_id: str) -> str:
    """All the index holds of one entry of ``path``: its segment of each chunk, in chunk
    order (an overlap shows twice). The recall server finds the secrets of a hit's whole
    entry here, so a snippet cut out of it can be cleaned of them."""
    rows = conn.execute("SELECT c.id FROM chunks c JOIN files f ON f.id = c.file_id "
                        "WHERE f.path = ? AND instr(c.segments, ?) > 0",
                        (str(path), json.dumps(entry_id, ensure_ascii=False))).fetchall()
    chunks = _load_chunks(conn, [r[0] for r in rows])
    parts: list[str] = []
    for cid in sorted(chunks):
        chunk = chunks[cid]
        for i, seg in enumerate(chunk.segments):
            if str(seg[1]) == entry_id:
                lo, hi = _segment_bounds(chunk, i)
                parts.append(chunk.text[lo:hi])
    return "\n".join(parts)


def _segments(chunk: _Chunk, spans: list[tuple[int, int, int]],
              since: float | None) -> list[tuple[int, float]]:
    """(segment, share of the chunk's matched terms it holds) for every segment that holds
    a match; a chunk found only by its meaning gives its longest segment, share 1."""
    wanted = {n for _, _, n in spans}
    out: list[tuple[int, float]] = []
    longest, longest_len = None, -1
    for i, seg in enumerate(chunk.segments):
        epoch = seg[3]
        if since is not None and (epoch is None or epoch < since):
            continue
        lo, hi = _segment_bounds(chunk, i)
        inside = {n for s, e, n in spans if s >= lo and e <= hi}
        if inside:
            out.append((i, len(inside) / len(wanted)))
        if hi - lo > longest_len:
            longest, longest_len = i, hi - lo
    if not out and longest is not None and not wanted:
        out.append((longest, 1.0))
    return out


def _snippet(text: str, lo: int, hi: int, spans: list[tuple[int, int, int]]
             ) -> tuple[str, tuple[tuple[int, int], ...]]:
    inside = [(s, e) for s, e, _ in spans if s >= lo and e <= hi]
    focus = inside[0][0] if inside else lo
    start = max(lo, focus - SNIPPET_CHARS // 3)
    end = min(hi, start + SNIPPET_CHARS)
    start = max(lo, min(start, end - SNIPPET_CHARS))
    body = "".join(" " if ch in "\r\n\t" else ch for ch in text[start:end])
    lead = "…" if start > lo else ""
    trail = "…" if end < hi else ""
    marks = tuple((s - start + len(lead), e - start + len(lead)) for s, e in inside
                  if s >= start and e <= end)
    return lead + body + trail, marks


class _ReplacedIds:
    """A compaction's replaced entry ids, parsed only when an id may be among them: most
    hits are asked about compactions that never replaced them, and a compaction's list
    can hold thousands of ids (parsing them all cost 2 ms a query)."""

    __slots__ = ("_raw", "_ids")

    def __init__(self, raw: str) -> None:
        self._raw = raw
        self._ids: frozenset[str] | None = None

    def __contains__(self, entry_id: object) -> bool:
        if not isinstance(entry_id, str) or json.dumps(entry_id) not in self._raw:
            return False  # the list is json.dumps of the ids: a member's own form is in it
        if self._ids is None:
            self._ids = frozenset(json.loads(self._raw))
        return entry_id in self._ids


def _compactions(conn: sqlite3.Connection, file_id: int) -> list[RecordedCompaction]:
    return [RecordedCompaction(r[0], r[1], r[2], _ReplacedIds(r[3]))
            for r in conn.execute("SELECT compaction_id, previous_id, summary, replaced FROM "
                                  "compactions WHERE file_id=? ORDER BY seq", (file_id,))]


def run_query(conn: sqlite3.Connection, query: str, settings: SearchSettings, *,
              filters: Filters = Filters(), limit: int | None = None,
              embed_query: Callable[[str], Sequence[float]] | None = None,
              model_key: str | None = None) -> SearchResults:
    """The best hits for ``query`` (``embed_query`` and ``model_key`` turn on hybrid)."""
    started = time.monotonic()
    terms = parse_query(query)
    limit = limit or settings.max_results
    k = limit * settings.candidate_multiplier
    where, args = filters.sql()
    notes: list[str] = []
    text = _text_candidates(conn, terms, where, args, k, settings.rank_cap,
                            notes) if terms else {}
    vector: dict[int, float] = {}
    mode: RankMode = "text"
    if embed_query is not None and model_key is not None and query.strip():
        try:
            qvec = embed_query(query)
        except Exception as exc:  # noqa: BLE001 - the text ranking still answers
            notes.append(f"embeddings unavailable, text ranking only: {exc}")
        else:
            vector = {i: max(0.0, s) for i, s in nearest(conn, model_key, qvec, k, where, args)}
            mode = "hybrid"
            if not vector:
                notes.append("no chunk has an embedding yet; text ranking only")
                mode = "text"
    wv, wt = settings.vector_weight, settings.text_weight
    scored: dict[int, float] = {}
    for cid in set(text) | set(vector):
        if mode == "hybrid":
            scored[cid] = (wv * vector.get(cid, 0.0) + wt * text.get(cid, 0.0)) / (wv + wt)
        else:
            scored[cid] = text[cid]
    order = sorted(scored, key=lambda c: (-scored[c], c))
    chunks = _load_chunks(conn, order)
    found: list[tuple[float, int, int, int, list[tuple[int, int, int]]]] = []
    for rank, cid in enumerate(order):
        chunk = chunks.get(cid)
        if chunk is None or (mode == "hybrid" and scored[cid] < settings.min_score):
            continue
        spans = term_spans(chunk.text, terms)
        for i, share in _segments(chunk, spans, filters.since):
            # an entry holding only some of the words ranks below one holding them all
            found.append((scored[cid] * (0.5 + 0.5 * share), rank, cid, i, spans))
    found.sort(key=lambda f: (-f[0], f[1], f[3]))
    hits: list[SearchHit] = []
    seen: set[tuple[int, str]] = set()
    fates: dict[int, list[RecordedCompaction]] = {}
    for score, _rank, cid, i, spans in found:
        chunk = chunks[cid]
        seg = chunk.segments[i]
        key = (chunk.file_id, str(seg[1]))
        if key in seen:
            continue
        seen.add(key)
        lo, hi = _segment_bounds(chunk, i)
        snippet, marks = _snippet(chunk.text, lo, hi, spans)
        if chunk.file_id not in fates:
            fates[chunk.file_id] = _compactions(conn, chunk.file_id)
        fate = hit_fate(str(seg[1]), chunk.text[lo:hi], [t.text for t in terms],
                        fates[chunk.file_id])
        hits.append(SearchHit(Path(chunk.path), str(seg[1]), str(seg[2]), chunk.agent,
                              chunk.session_id, seg[4], round(score, 4), snippet, marks, fate,
                              text.get(cid), vector.get(cid)))
        if len(hits) >= limit:
            break
    return SearchResults(query, tuple(hits), mode, time.monotonic() - started, tuple(notes))
