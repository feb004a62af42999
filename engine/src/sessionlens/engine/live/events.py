"""What a live session reports: one event per thing a user (or a status line) cares about."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from .gauge import LiveGauge

__all__ = ["EventKind", "LiveEvent", "THRESHOLD_NEAR_FRACTION", "event_json", "verdict_line"]

EventKind = Literal["watching", "context", "threshold-near", "over-threshold", "compaction",
                    "reloaded", "removed", "idle"]

#: The context's share of the threshold from which "threshold near" is said (once per cycle).
THRESHOLD_NEAR_FRACTION = 0.85


@dataclass(frozen=True, slots=True)
class LiveEvent:
    """One event of one session. ``verdict`` and ``compaction_id`` are set for compactions;
    ``detail`` says the event in words (the line ``watch`` prints)."""

    kind: EventKind
    path: Path
    session_id: str | None
    agent: str
    gauge: LiveGauge | None
    detail: str
    compaction_id: str | None = None
    verdict: str | None = None
    passed: bool | None = None
    dropped: tuple[str, ...] = ()


def verdict_line(passed: bool, dropped: tuple[str, ...]) -> str:
    """'lost 12 specifics: a, b, c, …' or 'kept every specific it replaced'."""
    if not dropped:
        return "kept every specific it replaced" + ("" if passed else " (audit failed)")
    head = ", ".join(dropped[:5]) + (", …" if len(dropped) > 5 else "")
    return f"lost {len(dropped)} specific{'s' if len(dropped) != 1 else ''}: {head}"


def event_json(event: LiveEvent) -> dict[str, Any]:
    """The event as one JSON object (``watch --json``)."""
    g = event.gauge
    out: dict[str, Any] = {"event": event.kind, "path": str(event.path),
                           "session_id": event.session_id, "agent": event.agent,
                           "detail": event.detail}
    if g is not None:
        out.update(context_tokens=g.context_tokens, context_window=g.context_window,
                   threshold=g.threshold, fraction_of_threshold=round(g.fraction_of_threshold, 4),
                   turns_left=g.turns_left, pace=g.pace, entries=g.entries,
                   compactions=g.compactions, last_entry_at=g.last_entry_at, model=g.model)
    if event.kind == "compaction":
        out.update(compaction_id=event.compaction_id, verdict=event.verdict,
                   passed=event.passed, dropped=list(event.dropped))
    return out
