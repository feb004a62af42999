"""The oversized fallback chain for one stretch of history (transcript-format.md §3.6).

1. Summarize the stretch as it is.
2. If the model says it is too long, leave out the messages that are oversized on their own
   (estimate × 1.2 > half the window) and summarize the rest, with a note naming each one.
3. If it still does not fit, halve the stretch (never between a tool call and its results)
   and summarize the halves in order, each carrying the summary so far: a partial summary
   whose missing parts are named.
4. If no part fits at all, raise ``ContextOverflowError`` with the counts: a clear failure.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Protocol

from sessionlens.engine.errors import ContextOverflowError
from sessionlens.engine.model import Entry
from sessionlens.engine.plan.chunks import SAFETY_MARGIN, is_oversized_for_summary
from sessionlens.engine.tokens.counts import estimate_entry_tokens

from .prompts import build_history_prompt, build_turn_prefix_prompt
from .providers.base import SummaryPurpose
from .serialize import serialize_entries

__all__ = ["OVERSIZE_SAFETY_MARGIN", "StageCaller", "is_oversized", "omission_note",
           "summarize_stretch"]

#: The estimate's safety margin, the one the plan's chunking uses (chunks.py).
OVERSIZE_SAFETY_MARGIN = SAFETY_MARGIN
_MAX_SPLIT_DEPTH = 2


class StageCaller(Protocol):
    """What the fallback chain needs from a run (``summarize._Run`` provides it)."""

    template: str
    instructions: str
    policy: str
    custom: str

    @property
    def context_window(self) -> int: ...

    def omit(self, entry_ids: Sequence[str], note: str) -> None: ...

    async def call(self, purpose: SummaryPurpose, prompt: str, max_tokens: int, *,
                   entries: Sequence[Entry] = (), previous: str | None = None,
                   parts: Sequence[str] = (), notes: Sequence[str] = (),
                   label: str = "") -> str: ...


def entry_tokens(entry: Entry) -> int:
    """pi's chars/4 estimate (tokens.py)."""
    return estimate_entry_tokens(entry)


def is_oversized(entry: Entry, context_window: int) -> bool:
    return is_oversized_for_summary(entry_tokens(entry), context_window)


def omission_note(entry: Entry) -> str:
    role = entry.role or entry.type
    return (f"[Large {role} (entry {entry.id}, ~{max(1, round(entry_tokens(entry) / 1000))}K "
            "tokens) omitted from summary]")


def _split_point(entries: Sequence[Entry]) -> int:
    mid = len(entries) // 2
    while 0 < mid < len(entries) and entries[mid].role == "toolResult":
        mid += 1
    if mid >= len(entries):
        mid = len(entries) // 2
        while mid > 1 and entries[mid].role == "toolResult":
            mid -= 1
    return max(1, mid)


def _prompt(run: StageCaller, purpose: SummaryPurpose, entries: Sequence[Entry],
            previous: str | None, notes: Sequence[str]) -> str:
    conversation = serialize_entries(entries)
    if purpose == "turn_prefix":
        prompt = build_turn_prefix_prompt(conversation, instructions=run.instructions,
                                          identifier_policy=run.policy,
                                          custom_identifiers=run.custom)
        return prompt + ("\n\nLeft out (mention each):\n" + "\n".join(notes) if notes else "")
    return build_history_prompt(conversation, template=run.template, previous_summary=previous,
                                instructions=run.instructions, identifier_policy=run.policy,
                                custom_identifiers=run.custom, notes=notes)


_Omission = tuple[tuple[str, ...], str]


async def _attempt(run: StageCaller, purpose: SummaryPurpose, entries: Sequence[Entry],
                   previous: str | None, budget: int, label: str, oversized: frozenset[str],
                   depth: int) -> tuple[str | None, list[_Omission]]:
    async def once(part: Sequence[Entry], prev: str | None, notes: Sequence[str],
                   tag: str) -> str:
        return await run.call(purpose, _prompt(run, purpose, part, prev, notes), budget,
                              entries=part, previous=prev, notes=notes, label=tag)

    # too big for the model's window: fall through to leaving oversized rows out, then halving
    with contextlib.suppress(ContextOverflowError):
        return await once(entries, previous, (), label), []
    big = [e for e in entries if e.id in oversized or is_oversized(e, run.context_window)]
    big_ids = {e.id for e in big}
    small = [e for e in entries if e.id not in big_ids]
    omissions: list[_Omission] = [((e.id,), omission_note(e)) for e in big]
    if big and small:
        notes = [note for _, note in omissions]
        # still too big without the oversized rows: fall through to halving the span
        with contextlib.suppress(ContextOverflowError):
            return await once(small, previous, notes, f"{label} (oversized left out)"), omissions
    pieces = small
    if depth >= _MAX_SPLIT_DEPTH or len(pieces) < 2:
        return None, omissions
    mid = _split_point(pieces)
    summary, got_any = previous, False
    for n, half in enumerate((pieces[:mid], pieces[mid:]), 1):
        text, inner = await _attempt(run, purpose, half, summary, budget, f"{label} part {n}",
                                     oversized, depth + 1)
        omissions.extend(inner)
        if text is None:
            named = {i for ids, _ in inner for i in ids}
            rest = tuple(e.id for e in half if e.id not in named)
            if rest:
                omissions.append((rest, f"[Partial summary: {len(rest)} entries could not be "
                                        f"summarized, too large for the model together: "
                                        f"{', '.join(rest)}]"))
        else:
            summary, got_any = text, True
    return (summary if got_any else None), omissions


async def summarize_stretch(run: StageCaller, purpose: SummaryPurpose, entries: Sequence[Entry],
                            previous: str | None, budget: int, label: str,
                            oversized: frozenset[str] = frozenset()) -> str:
    """Summarize ``entries`` (carrying ``previous``) through the fallback chain above."""
    text, omissions = await _attempt(run, purpose, entries, previous, budget, label, oversized, 0)
    if text is None:
        big = sum(1 for ids, note in omissions if note.startswith("[Large"))
        raise ContextOverflowError(
            f"{label}: context contained {len(entries)} messages ({big} oversized) and no part "
            f"of it fits the model's context window ({run.context_window} tokens); "
            "nothing was summarized or written")
    for ids, note in omissions:
        run.omit(ids, note)
    return text
