"""Chunking of the history to summarize (§3.6): ratios, limits, groups, token-share splits."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fixtures.factories import TranscriptBuilder, text_of, transcripts
from sessionlens.engine.model import Entry
from sessionlens.engine.plan.chunks import (
    BASE_CHUNK_RATIO,
    MIN_CHUNK_RATIO,
    SAFETY_MARGIN,
    chunk_by_max_tokens,
    compute_adaptive_chunk_ratio,
    is_oversized_for_summary,
    max_chunk_tokens,
    split_by_token_share,
    tool_groups,
)
from sessionlens.engine.tokens.counts import estimate_entry_tokens


def _messages(b: TranscriptBuilder) -> tuple[list[Entry], list[int]]:
    entries = [e for e in b.build().path_entries() if e.type == "message"]
    return entries, [estimate_entry_tokens(e) for e in entries]


def test_constants_are_openclaws() -> None:
    assert (SAFETY_MARGIN, BASE_CHUNK_RATIO, MIN_CHUNK_RATIO) == (1.2, 0.4, 0.15)


def test_adaptive_ratio_shrinks_for_large_messages() -> None:
    assert compute_adaptive_chunk_ratio([], 100_000) == BASE_CHUNK_RATIO
    assert compute_adaptive_chunk_ratio([1000] * 10, 100_000) == BASE_CHUNK_RATIO
    # average 10000 x 1.2 / 100000 = 0.12 > 0.1 -> 0.4 - min(0.24, 0.25) = 0.16
    assert abs(compute_adaptive_chunk_ratio([10_000] * 4, 100_000) - 0.16) < 1e-9
    # very large messages bottom out at the minimum
    assert abs(compute_adaptive_chunk_ratio([60_000], 100_000) - MIN_CHUNK_RATIO) < 1e-9


def test_max_chunk_tokens_and_oversized_rule() -> None:
    assert max_chunk_tokens(200_000, 0.4) == 80_000 - 4096
    assert max_chunk_tokens(5_000, 0.4) == 1  # never below one token
    assert is_oversized_for_summary(50_001, 120_000)  # 60001.2 > 60000
    assert not is_oversized_for_summary(50_000, 120_000)


def test_chunks_respect_the_effective_maximum() -> None:
    b = TranscriptBuilder()
    for _ in range(6):
        b.user(text_of(100))
    entries, est = _messages(b)
    # 360 / 1.2 = 300 -> three 100-token messages per chunk
    chunks = chunk_by_max_tokens(entries, est, 360)
    assert [len(c) for c in chunks] == [3, 3]
    assert [i for c in chunks for i in c] == [e.id for e in entries]


def test_an_oversized_message_stands_alone() -> None:
    b = TranscriptBuilder()
    b.user(text_of(10))
    big = b.user(text_of(5000))
    b.user(text_of(10))
    entries, est = _messages(b)
    chunks = chunk_by_max_tokens(entries, est, 1200)
    assert chunks[1] == (big.id,) and len(chunks) == 3


def test_a_tool_call_and_its_results_share_a_chunk() -> None:
    b = TranscriptBuilder()
    b.user(text_of(100))
    c1, c2 = b.call("read", path="/a"), b.call("read", path="/b")
    a = b.assistant(text_of(100), c1, c2)
    r1 = b.result(c1, text_of(100))
    r2 = b.result(c2, text_of(100))
    b.user(text_of(100))
    entries, est = _messages(b)
    groups = tool_groups(entries, est)
    assert [(s, e) for s, e, _ in groups] == [(0, 1), (1, 4), (4, 5)]
    chunks = chunk_by_max_tokens(entries, est, 240)  # 200 effective: the frame is ~300
    assert (a.id, r1.id, r2.id) in chunks


def test_aborted_call_does_not_hold_a_split_open() -> None:
    b = TranscriptBuilder()
    b.user(text_of(100))
    b.assistant(text_of(100), b.call("read", path="/a"), stop_reason="aborted")
    b.user(text_of(100))
    entries, est = _messages(b)
    assert len(tool_groups(entries, est)) == 3


def test_token_share_split_balances_parts() -> None:
    b = TranscriptBuilder()
    for _ in range(8):
        b.user(text_of(100))
    entries, est = _messages(b)
    parts = split_by_token_share(entries, est, 2)
    assert [len(p) for p in parts] == [4, 4]
    assert len(split_by_token_share(entries, est, 3)) == 3
    assert split_by_token_share(entries, est, 1) == (tuple(e.id for e in entries),)
    assert split_by_token_share([], [], 2) == ()


def _pair_split(chunks: tuple[tuple[str, ...], ...], entries: list[Entry]) -> bool:
    where = {i: n for n, chunk in enumerate(chunks) for i in chunk}
    owner: dict[str, str] = {}
    for e in entries:
        msg = e.message
        if msg is None:
            continue
        if msg.role == "assistant" and msg.stop_reason not in ("aborted", "error"):
            for c in msg.tool_calls:
                owner[c.id] = e.id
        if msg.role == "toolResult" and msg.tool_call_id in owner:
            if where[owner[msg.tool_call_id]] != where[e.id]:
                return True
    return False


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(t=transcripts(allow_compaction=False), limit=st.integers(1, 20_000),
       parts=st.integers(1, 5))
def test_property_chunks_cover_everything_and_never_split_a_pair(t, limit, parts) -> None:
    entries = [e for e in t.path_entries() if e.type == "message"]
    est = [estimate_entry_tokens(e) for e in entries]
    for chunks in (chunk_by_max_tokens(entries, est, limit),
                   split_by_token_share(entries, est, parts)):
        assert [i for c in chunks for i in c] == [e.id for e in entries]
        assert all(chunks)
        assert not _pair_split(chunks, entries)
    assert len(split_by_token_share(entries, est, parts)) <= parts
