"""The ranked candidates a query starts from: the same chunks, in the same order, as FTS5's
own ``ORDER BY rank`` over the newest ``rank_cap`` matches (the query took that shortcut
for speed; this pins that it changed nothing)."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

from fixtures.factories import TranscriptBuilder
from sessionlens.engine.search.index_db import INDEX_FILE
from sessionlens.engine.search.query import _ranked_newest
from sessionlens.engine.search.query_terms import fts_query, parse_query
from sessionlens.engine.search.search_index import SearchIndex
from sessionlens.engine.search.search_settings import SearchSettings

WORDS = ("alpha beta gamma delta error timeout retry deploy worker queue cache hash "
         "schema replica session summary").split()


def _fts5_ranked(conn: sqlite3.Connection, match: str, k: int, cap: int
                 ) -> list[tuple[int, float]]:
    """The reference: FTS5's ranked scan over the newest ``cap`` matches."""
    edge = conn.execute("SELECT rowid FROM chunk_fts WHERE chunk_fts MATCH ? ORDER BY rowid "
                        "DESC LIMIT 1 OFFSET ?", (match, cap)).fetchall()
    low = edge[0][0] if edge else -1
    rows = conn.execute("SELECT rowid, rank FROM chunk_fts WHERE chunk_fts MATCH ? AND "
                        "rowid > ? ORDER BY rank LIMIT ?", (match, low, k)).fetchall()
    return sorted(rows, key=lambda r: (r[1], r[0]))


def test_ranked_candidates_are_fts5s_own_ranking_of_the_newest_matches(tmp_path: Path) -> None:
    rnd = random.Random(3)
    folder = tmp_path / "s"
    folder.mkdir()
    filler = ["".join(rnd.choices("bdfgklmnprstvz", k=3)) + str(i) for i in range(500)]
    for n in range(4):
        b = TranscriptBuilder(plain_users=True)
        for _ in range(40):
            words = rnd.choices(filler, k=rnd.randint(5, 400))
            words += rnd.choices(WORDS, k=rnd.randint(1, 6)) + ["worker queue"]
            rnd.shuffle(words)
            b.user(" ".join(words))
        b.write(folder / f"f{n}.jsonl")
    index = SearchIndex(tmp_path / "idx", SearchSettings(chunk_tokens=64, chunk_overlap=8),
                        session_dirs=lambda: [folder])
    index.update()
    conn = sqlite3.connect(index.folder / INDEX_FILE)
    chunks = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    assert chunks > 200
    full = capped_seen = 0
    for query in ["error", "timeout retry", "deploy*", "\"worker queue\"", "alpha", "schema"]:
        for op in ("AND", "OR"):
            match = fts_query(parse_query(query), op)
            for cap in (10, 50, chunks):
                mine, capped = _ranked_newest(conn, match, 12, cap)
                assert mine == _fts5_ranked(conn, match, 12, cap), (query, op, cap)
                full += len(mine) == min(12, cap)
                capped_seen += capped
    assert full >= 30 and 0 < capped_seen < 36  # most asked for as many as they got
