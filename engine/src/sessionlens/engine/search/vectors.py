"""Embedding vectors in the index file: filling in the missing ones, and nearest neighbours.

Vectors are keyed by the chunk text's hash and the model, so a chunk that is re-made with
the same text (the open chunk of a growing file, a rewritten file) is not embedded again.
``sqlite-vec`` would keep them in a vector table, but this interpreter's ``sqlite3`` cannot
load extensions (``enable_load_extension`` is compiled out), so they are float32 BLOBs and
the search is a scan: with numpy when it is installed (the GUI has it), pure Python
otherwise. A scan is fine for the tens of thousands of chunks an endpoint can embed in a
sitting; it is not meant for millions.
"""

from __future__ import annotations

import heapq
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from sessionlens.engine.errors import LoadCancelled

from .embeddings import EmbeddingsClient, cosine, pack, unpack
from .index_db import transaction

__all__ = ["embed_missing", "nearest", "prune_vectors"]

_SCAN_BATCH = 4096


def embed_missing(conn: sqlite3.Connection, client: EmbeddingsClient, *,
                  on_progress: Callable[[int, int], None] | None = None,
                  cancel: Callable[[], bool] | None = None) -> int:
    """Embed every chunk that has no vector for ``client``'s model; returns how many."""
    rows = conn.execute(
        "SELECT c.hash, min(c.text) FROM chunks c WHERE NOT EXISTS (SELECT 1 FROM vectors v "
        "WHERE v.hash = c.hash AND v.model = ?) GROUP BY c.hash", (client.model_key,)).fetchall()
    done = 0
    for i in range(0, len(rows), client.batch_size):
        if cancel is not None and cancel():
            raise LoadCancelled("<search index>", "embedding cancelled")
        batch = rows[i:i + client.batch_size]
        vecs = client.embed([text for _, text in batch])
        with transaction(conn):
            conn.executemany("INSERT OR REPLACE INTO vectors(hash, model, dim, vec) "
                             "VALUES (?,?,?,?)",
                             ((h, client.model_key, len(v), pack(v))
                              for (h, _), v in zip(batch, vecs, strict=True)))
        done += len(batch)
        if on_progress is not None:
            on_progress(done, len(rows))
    return done


def prune_vectors(conn: sqlite3.Connection) -> None:
    """Drop vectors no chunk uses any more."""
    with transaction(conn):
        conn.execute("DELETE FROM vectors WHERE hash NOT IN (SELECT hash FROM chunks)")


def _numpy() -> Any:
    try:
        import numpy
    except ImportError:
        return None
    return numpy


def nearest(conn: sqlite3.Connection, model_key: str, query: Sequence[float], k: int,
            where: str = "1", args: Sequence[object] = ()) -> list[tuple[int, float]]:
    """The ``k`` chunks most similar to ``query`` as (chunk id, cosine), best first.

    ``where`` filters on ``c`` (chunks) and ``f`` (files), as the text search does.
    """
    cur = conn.execute(
        "SELECT c.id, v.vec FROM chunks c JOIN files f ON f.id = c.file_id "
        "JOIN vectors v ON v.hash = c.hash AND v.model = ? "
        f"WHERE {where}", (model_key, *args))
    best: list[tuple[float, int]] = []
    np = _numpy()
    q = np.asarray(query, dtype=np.float32) if np is not None else None
    qn = float(np.linalg.norm(q)) if np is not None else 0.0
    while rows := cur.fetchmany(_SCAN_BATCH):
        dim = len(query) * 4
        rows = [r for r in rows if len(r[1]) == dim]
        if not rows:
            continue
        pairs: Iterable[tuple[float, int]]
        if np is not None and qn > 0:
            mat = np.frombuffer(b"".join(r[1] for r in rows), dtype="<f4").reshape(
                len(rows), len(query))
            norms = np.linalg.norm(mat, axis=1)
            norms[norms == 0] = 1.0
            scores = (mat @ q) / (norms * qn)
            pairs = zip(scores.tolist(), (r[0] for r in rows), strict=True)
        else:
            pairs = ((cosine(query, unpack(r[1])), r[0]) for r in rows)
        for score, chunk_id in pairs:
            if len(best) < k:
                heapq.heappush(best, (score, chunk_id))
            elif score > best[0][0]:
                heapq.heapreplace(best, (score, chunk_id))
    return [(chunk_id, score) for score, chunk_id in sorted(best, reverse=True)]
