"""Chunks: OpenClaw's sizes and overlap, entries located, and resuming equals rebuilding."""

from __future__ import annotations

import random

import pytest

from fixtures.factories import TranscriptBuilder
from sessionlens.engine.search.chunking import (
    PIECE_SEPARATOR,
    ChunkerState,
    EstimatedTokens,
    ExactTokens,
    chunk_entries,
    indexed_text,
)


def _items(n: int, seed: int = 3) -> list[tuple[int, str]]:
    rnd = random.Random(seed)
    words = "alpha beta gamma delta port 5432 error ECONNREFUSED decided postgres".split()
    out = []
    for seq in range(n):
        size = rnd.choice([5, 40, 200, 700, 3000])
        out.append((seq, " ".join(rnd.choice(words) for _ in range(size))))
    return out


def _run(items: list[tuple[int, str]], measure: EstimatedTokens | ExactTokens,
         state: ChunkerState | None = None) -> tuple[list, ChunkerState]:
    counts = dict(zip((s for s, _ in items), measure.counts([t for _, t in items]), strict=True))
    return chunk_entries(items, counts, measure, 400, 80, state)


@pytest.mark.parametrize("measure", [EstimatedTokens(), ExactTokens("o200k_base")],
                         ids=["estimate", "o200k"])
def test_chunks_respect_size_and_carry_the_overlap(measure: EstimatedTokens | ExactTokens
                                                   ) -> None:
    items = _items(60)
    chunks, _ = _run(items, measure)
    texts = dict(items)
    assert len(chunks) > 10
    for chunk in chunks:
        assert measure.count(chunk.text) <= 400 + 8 * len(chunk.pieces)  # separators, merges
        # every piece is a real slice of its entry, at the offset the chunk says
        for piece, offset in zip(chunk.pieces, chunk.offsets, strict=True):
            part = texts[piece.seq][piece.start:piece.end]
            assert chunk.text[offset:offset + len(part)] == part
    for before, after in zip(chunks, chunks[1:], strict=False):
        carried = sum(p.tokens for p in after.pieces if p in before.pieces
                      or any(p.seq == q.seq and q.start <= p.start and p.end <= q.end
                             for q in before.pieces))
        assert 0 < carried <= 80 + 4
    # nothing of any entry is left out
    covered = {seq: set() for seq, _ in items}
    for chunk in chunks:
        for p in chunk.pieces:
            covered[p.seq].update(range(p.start, p.end))
    assert all(covered[seq] == set(range(len(text))) for seq, text in items)


def test_resuming_from_the_open_chunk_gives_the_chunks_of_a_rebuild() -> None:
    measure = EstimatedTokens()
    items = _items(80, seed=11)
    whole, _ = _run(items, measure)
    first, state = _run(items[:37], measure)
    rest, _ = _run(items, measure, state)
    # the open chunk of the first run is re-made by the second, everything else is kept
    assert [c.text for c in first[:-1] + rest] == [c.text for c in whole]
    again = ChunkerState.from_json(state.to_json())
    assert again == state


def test_a_huge_entry_is_cut_and_nothing_is_quadratic() -> None:
    measure = EstimatedTokens()
    text = "x" * 400_000
    chunks, _ = _run([(0, text)], measure)
    assert len(chunks) == pytest.approx(400_000 / ((400 - 80) * 4), rel=0.02)
    assert all(len(c.text) <= 1600 for c in chunks)


def test_indexed_text_holds_tool_calls_results_and_summaries_but_not_thinking() -> None:
    b = TranscriptBuilder()
    b.user("where is the config?")
    call = b.call("bash", command="grep -rn DATABASE_URL /srv/app")
    b.assistant("looking", call, thinking="secret reasoning nobody quotes")
    b.result(call, "/srv/app/.env: DATABASE_URL=postgres://db:5432/app")
    b.compaction("## Goal\nMove the database to port 5432")
    t = b.build()
    texts = [indexed_text(e) for e in t.entries]
    assert "bash" in texts[1] and "grep -rn DATABASE_URL /srv/app" in texts[1]
    assert "secret reasoning" not in texts[1]
    assert "postgres://db:5432/app" in texts[2]
    assert "port 5432" in texts[3]
    assert PIECE_SEPARATOR == "\n"
