"""How the history to summarize is cut into model-sized pieces (OpenClaw, §3.6).

A summarizer cannot take more than its own window, so OpenClaw summarizes long histories in
chunks, each chunk's summary feeding the next. These functions decide the pieces the same
way, over entries and their pi token estimates, so the plan can show them before any call.
A tool call and its results always land in the same piece: a provider rejects a transcript
where one appears without the other. Pure: no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from sessionlens.engine.model import Entry

from .cutpoints import frame_safe_positions

__all__ = [
    "BASE_CHUNK_RATIO", "MIN_CHUNK_RATIO", "OVERSIZED_SHARE", "SAFETY_MARGIN",
    "SUMMARIZATION_OVERHEAD_TOKENS", "chunk_by_max_tokens", "compute_adaptive_chunk_ratio",
    "is_oversized_for_summary", "max_chunk_tokens", "split_by_token_share", "tool_groups",
]

#: Buffer for the chars/4 estimate being wrong (OpenClaw ``SAFETY_MARGIN``).
SAFETY_MARGIN = 1.2
#: Share of the window a chunk normally gets, and the floor when messages are large.
BASE_CHUNK_RATIO = 0.4
MIN_CHUNK_RATIO = 0.15
#: Room for the summary prompt, system prompt, previous summary and reasoning.
SUMMARIZATION_OVERHEAD_TOKENS = 4096
#: A single message larger than this share of the window cannot be summarized at all.
OVERSIZED_SHARE = 0.5


def compute_adaptive_chunk_ratio(estimates: Sequence[int], context_window: int) -> float:
    """Smaller chunks when the average message (with the safety margin) is > 10% of the window."""
    if not estimates or context_window <= 0:
        return BASE_CHUNK_RATIO
    avg_ratio = (sum(estimates) / len(estimates)) * SAFETY_MARGIN / context_window
    if avg_ratio > 0.1:
        reduction = min(avg_ratio * 2, BASE_CHUNK_RATIO - MIN_CHUNK_RATIO)
        return max(MIN_CHUNK_RATIO, BASE_CHUNK_RATIO - reduction)
    return BASE_CHUNK_RATIO


def max_chunk_tokens(context_window: int, ratio: float) -> int:
    """Tokens one chunk may hold: window x ratio minus the summarization overhead."""
    return max(1, math.floor(context_window * ratio) - SUMMARIZATION_OVERHEAD_TOKENS)


def is_oversized_for_summary(tokens: int, context_window: int) -> bool:
    """True when one message alone (with the margin) exceeds half the window."""
    return tokens * SAFETY_MARGIN > context_window * OVERSIZED_SHARE


def tool_groups(entries: Sequence[Entry], estimates: Sequence[int]
                ) -> list[tuple[int, int, int]]:
    """Atomic groups ``(start, end, tokens)``: a tool call with its results, or one message.

    ``estimates`` is aligned with ``entries``.
    """
    safe = frame_safe_positions(entries, 0, len(entries))
    groups: list[tuple[int, int, int]] = []
    start, tokens = 0, 0
    for i in range(len(entries)):
        if i > start and safe[i]:
            groups.append((start, i, tokens))
            start, tokens = i, 0
        tokens += estimates[i]
    if start < len(entries):
        groups.append((start, len(entries), tokens))
    return groups


def _chunk_groups(entries: Sequence[Entry], estimates: Sequence[int], max_tokens: float,
                  max_chunks: int | None = None) -> tuple[tuple[str, ...], ...]:
    chunks: list[tuple[str, ...]] = []
    chunk_start, current = 0, 0
    for start, _end, tokens in tool_groups(entries, estimates):
        room_for_more = max_chunks is None or len(chunks) < max_chunks - 1
        if start > chunk_start and room_for_more and current + tokens > max_tokens:
            chunks.append(tuple(e.id for e in entries[chunk_start:start]))
            chunk_start, current = start, 0
        current += tokens
    if chunk_start < len(entries):
        chunks.append(tuple(e.id for e in entries[chunk_start:]))
    return tuple(chunks)


def chunk_by_max_tokens(entries: Sequence[Entry], estimates: Sequence[int],
                        max_tokens: int) -> tuple[tuple[str, ...], ...]:
    """Chunks of entry ids, each at most ``max_tokens / SAFETY_MARGIN`` unless a single
    tool group is larger (then it stands alone)."""
    effective = max(1, math.floor(max_tokens / SAFETY_MARGIN))
    return _chunk_groups(entries, estimates, effective)


def split_by_token_share(entries: Sequence[Entry], estimates: Sequence[int],
                         parts: int = 2) -> tuple[tuple[str, ...], ...]:
    """At most ``parts`` pieces of about equal tokens, never splitting a tool group."""
    if not entries:
        return ()
    parts = min(max(1, parts), len(entries))
    if parts <= 1:
        return (tuple(e.id for e in entries),)
    return _chunk_groups(entries, estimates, sum(estimates) / parts, parts)
