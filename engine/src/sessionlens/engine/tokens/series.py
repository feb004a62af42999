"""Context along the active path: what each entry adds and the running size after it.

For the chart and the plan steps; works with a report of either scope (a context-only one
lacks the history before the boundary, which is then estimated here).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sessionlens.engine.load.formats.fast_new import fast_constructor
from sessionlens.engine.load.replay import BOUNDARY_TYPES
from sessionlens.engine.model import Entry, Transcript

from .estimate import known_pi_estimates, pi_estimate
from .reported import valid_usage_tokens

if TYPE_CHECKING:
    from .token_report import TokenReport

__all__ = ["ContextPoint", "context_series", "context_tokens_each", "entry_context_tokens",
           "pi_tokens", "pi_tokens_each"]


@dataclass(frozen=True, slots=True)
class ContextPoint:
    """Context size right after one active-path entry, for charting context along the path."""

    entry_id: str
    #: Position on the active path (0 = root).
    index: int
    tokens: int
    #: True when ``tokens`` is a provider-reported usage, False when estimated.
    reported: bool


#: ``ContextPoint(...)`` set through its slots (``fast_new``): the series makes one per path
#: entry, and the frozen ``__init__`` was a sixth of a 100 MB session's series.
_new_point = fast_constructor(ContextPoint, ("entry_id", "index", "tokens", "reported"))

#: Rows that replay as a message (pi ``getMessageFromEntry``).
_CONTEXT_ENTRY_TYPES = frozenset({"message", "custom_message", "branch_summary"})


def _excluded(entry: Entry) -> bool:
    """A message the model never sees although it is on the path (an excluded bash run)."""
    return entry.message is not None and entry.message.exclude_from_context


def _in_context(entry: Entry) -> bool:
    """Whether the entry adds to the model's context: a replayed row not excluded."""
    return entry.type in _CONTEXT_ENTRY_TYPES and not _excluded(entry)


def pi_tokens(transcript: Transcript, entry: Entry, tokens: TokenReport | None = None) -> int:
    """pi's estimate of ``entry``: the report's when it counted the entry (a context-only
    report lacks the history before the boundary), else worked out once per transcript."""
    known = tokens.entries.get(entry.id) if tokens is not None else None
    return known.estimate_pi if known is not None else pi_estimate(transcript, entry)


def pi_tokens_each(transcript: Transcript, entries: Sequence[Entry],
                   tokens: TokenReport | None = None) -> list[int]:
    """``pi_tokens`` of each of ``entries``, in one pass: the analyses want every entry of a
    path, and a call per entry (report, then the kept estimates) was a third of their time."""
    known = known_pi_estimates(transcript)
    counted = tokens.entries if tokens is not None else {}
    out: list[int] = []
    append = out.append
    for entry in entries:
        report = counted.get(entry.id) if counted else None
        if report is not None:
            append(report.estimate_pi)
            continue
        value = known.get(entry.id)
        append(value if value is not None else pi_estimate(transcript, entry, known))
    return out


def context_tokens_each(transcript: Transcript, entries: Sequence[Entry],
                        tokens: TokenReport | None = None) -> list[int]:
    """``entry_context_tokens`` of each of ``entries``, in one pass."""
    return [n if _in_context(entry) else 0
            for entry, n in zip(entries, pi_tokens_each(transcript, entries, tokens),
                                strict=True)]


def entry_context_tokens(transcript: Transcript, entry: Entry,
                         tokens: TokenReport | None = None) -> int:
    """pi's estimate of what ``entry`` adds to the context: 0 for rows the model never sees
    (metadata, compaction rows, excluded bash runs), else ``pi_tokens``."""
    return pi_tokens(transcript, entry, tokens) if _in_context(entry) else 0


def context_series(transcript: Transcript, report: TokenReport | None = None
                   ) -> tuple[ContextPoint, ...]:
    """Context tokens after each active-path entry: reported usage where there is one, else
    the last known size plus pi estimates. A compaction or reset restarts the running size at
    its summary plus the entries it kept. Pure, and the same with a report of either scope
    or none: it needs only estimates, so it can be worked out while the exact count runs."""
    path = transcript.path_entries()
    position = {e.id: i for i, e in enumerate(path)}
    points: list[ContextPoint] = []
    running = 0

    est = [0 if _excluded(entry) else n
           for entry, n in zip(path, pi_tokens_each(transcript, path, report), strict=True)]
    for i, entry in enumerate(path):
        reported = valid_usage_tokens(entry)
        if reported is not None:
            running = reported
        elif entry.type in BOUNDARY_TYPES:
            kept_from = position.get(entry.first_kept_entry_id or "", i)
            kept_from = kept_from if kept_from < i else i
            running = est[i] + sum(est[kept_from:i])
        else:
            running += est[i]
        points.append(_new_point(entry.id, i, running, reported is not None))
    return tuple(points)
