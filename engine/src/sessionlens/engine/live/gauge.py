"""The live gauge of one session: its context against window and threshold, and its pace.

The context is the number the agent's own threshold check compares (the plan's
``context_tokens``: the last valid reported usage plus estimates of what came after it).
``advance`` moves it forward over appended entries by the same rule, so an append costs the
new entries only; a test holds it equal to a full reload's plan. "Turns left" divides the
headroom below the threshold by the session's own pace: the median growth of the context
per user turn over its last turns.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, replace

from sessionlens.engine.errors import PlanError
from sessionlens.engine.model import Entry, Transcript
from sessionlens.engine.opened import OpenedTranscript
from sessionlens.engine.plan.cutpoints import usage_context
from sessionlens.engine.plan.planner import is_message_entry
from sessionlens.engine.tokens.estimate import estimate_tokens_from_chars, pi_entry_tokens

__all__ = ["LiveGauge", "PACE_TURNS", "advance", "gauge_of"]

#: How many recent user turns the pace is taken over.
PACE_TURNS = 8


@dataclass(frozen=True, slots=True)
class LiveGauge:
    """One session's numbers as of its last complete line."""

    context_tokens: int
    context_window: int
    threshold: int
    #: Reported usage of the last assistant turn that had one, and estimates since it.
    usage_tokens: int | None
    trailing_tokens: int
    #: The context at the start of each recent user turn (oldest first).
    turn_marks: tuple[int, ...]
    entries: int
    compactions: int
    last_entry_at: str | None
    model: str | None

    @property
    def fraction_of_threshold(self) -> float:
        return self.context_tokens / self.threshold if self.threshold > 0 else 0.0

    @property
    def headroom(self) -> int:
        return self.threshold - self.context_tokens

    @property
    def pace(self) -> int | None:
        """Median context growth per user turn (None before two turns)."""
        steps = [b - a for a, b in zip(self.turn_marks, self.turn_marks[1:], strict=False)
                 if b > a]
        return int(statistics.median(steps)) if steps else None

    @property
    def turns_left(self) -> int | None:
        """Turns at this pace before the threshold (0 when it is reached)."""
        if self.headroom <= 0:
            return 0
        pace = self.pace
        return None if not pace else self.headroom // pace


def _is_user_turn(entry: Entry) -> bool:
    msg = entry.message
    return entry.type == "message" and msg is not None and msg.role == "user"


def _model_of(entries: Sequence[Entry]) -> str | None:
    for entry in reversed(entries):
        msg = entry.message
        if entry.type == "message" and msg is not None and msg.role == "assistant" and msg.model:
            return msg.model
        if entry.type == "model_change" and entry.model_id:
            return entry.model_id
    return None


def _replayed(t: Transcript) -> tuple[int, list[tuple[Entry, bool]]]:
    """What the model sees after replay: the summaries' estimate, and each message entry with
    whether its reported usage counts (only usage after the latest compaction or reset does:
    an older one measured a context the compaction replaced)."""
    path = t.path_entries()
    boundary = max((i for i, e in enumerate(path) if e.type in ("compaction", "reset")),
                   default=-1)
    after = {e.id for e in path[boundary + 1:]}
    summary = 0
    out: list[tuple[Entry, bool]] = []
    for item in t.context:
        entry = t.entry(item.entry_id)
        if item.kind == "compaction_summary":
            summary += estimate_tokens_from_chars(len(entry.summary or ""))
        else:
            out.append((entry, entry.id in after))
    return summary, out


def _tally(summary: int, items: Sequence[tuple[Entry, bool]]
           ) -> tuple[int | None, int, tuple[int, ...]]:
    """Forward over the replayed context: (last usage, estimates after it, context at each
    user turn)."""
    usage: int | None = None
    trailing = summary
    marks: list[int] = []
    for entry, live in items:
        reported = usage_context(entry) if live else None
        if reported is not None:
            usage, trailing = reported, 0
        elif is_message_entry(entry):
            trailing += pi_entry_tokens(entry)
        if _is_user_turn(entry):
            marks.append((usage or 0) + trailing)
    return usage, trailing, tuple(marks[-PACE_TURNS:])


def gauge_of(opened: OpenedTranscript) -> LiveGauge:
    """The gauge of a freshly loaded transcript, with the plan's own figures."""
    t = opened.transcript
    path = t.path_entries()
    window = opened.resolved.window
    threshold = opened.resolved.threshold
    usage, trailing, marks = _tally(*_replayed(t))
    try:
        context = int(opened.plan().context_tokens)
    except PlanError:  # nothing to compact yet: the same rule over what the model sees
        context = (usage or 0) + trailing
    last = path[-1].timestamp if path else None
    return LiveGauge(context, window, threshold, usage, trailing, marks, len(t.entries),
                     len(t.compactions), last, _model_of(path))


def advance(gauge: LiveGauge, entries: Sequence[Entry]) -> LiveGauge:
    """The gauge once ``entries`` (a linear append, no compaction) are in the context."""
    context, usage, trailing = gauge.context_tokens, gauge.usage_tokens, gauge.trailing_tokens
    marks = list(gauge.turn_marks)
    for entry in entries:
        reported = usage_context(entry)
        if reported is not None:
            usage, trailing, context = reported, 0, reported
        elif is_message_entry(entry):
            step = pi_entry_tokens(entry)
            trailing += step
            context += step
        if _is_user_turn(entry):
            marks.append(context)
    stamped = [e.timestamp for e in entries if e.timestamp]
    return replace(gauge, context_tokens=context, usage_tokens=usage, trailing_tokens=trailing,
                   turn_marks=tuple(marks[-PACE_TURNS:]), entries=gauge.entries + len(entries),
                   last_entry_at=stamped[-1] if stamped else gauge.last_entry_at,
                   model=_model_of(entries) or gauge.model)
