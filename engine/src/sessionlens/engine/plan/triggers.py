"""Which rule makes a compaction due (compaction-system.md "Triggers"), for plans and forensics.

OpenClaw compacts for five reasons: the model said the context overflowed, the context
crossed ``window - reserve`` after a turn, the active transcript reached
``maxActiveTranscriptBytes`` (checked before the next turn), the mid-turn precheck found the
next model call would not fit, or the user typed ``/compact``. A plan says which of them holds
now, so "compact now" comes with a because. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from sessionlens.engine.model import Entry, Transcript
from sessionlens.engine.sessions.store_guard import (
    guard_needs_truncate,
    latched,
    store_active_bytes,
)

from .cutpoints import region_bounds
from .overflow import is_context_overflow

if TYPE_CHECKING:
    from sessionlens.engine.settings import CompactionSettings

    from .compaction_plan import CompactionPlan

__all__ = ["DueTrigger", "TriggerKind", "active_window_bytes", "due_trigger", "ends_mid_turn",
           "format_bytes", "overflow_before"]

TriggerKind = Literal["overflow", "mid-turn-precheck", "threshold", "size", "manual", "none"]


@dataclass(frozen=True, slots=True)
class DueTrigger:
    """Why a compaction is due now (``kind``), in words, and every rule that holds."""

    kind: TriggerKind
    reason: str
    #: Every automatic rule that holds now, strongest first ("manual" is never listed).
    holding: tuple[TriggerKind, ...]
    #: Bytes of the transcript window the model sees (see ``active_window_bytes``).
    active_bytes: int
    max_active_bytes: int | None
    #: The overflow error at the end of the path, when there is one.
    overflow_entry_id: str | None
    #: The path ends after tool results, before the next model call.
    mid_turn: bool
    #: What ``active_bytes`` measures: the JSONL window, or OpenClaw 2026.9's active SQLite
    #: history (``sessions.store_guard``), where the guard needs no truncateAfterCompaction.
    measure: Literal["active-window", "sqlite-active-history"] = "active-window"
    #: The session row's ``transcriptByteCompactionLatch`` holds the guard back at this size.
    latched_bytes: int | None = None


def format_bytes(n: int) -> str:
    """``20971520`` -> ``"20.0 MiB"`` (binary units, as OpenClaw's sizes are)."""
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{int(size)} B" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    raise AssertionError("unreachable")


def active_window_bytes(path: Sequence[Entry]) -> int:
    """Bytes of the lines the model still sees: the latest compaction (or reset), its kept tail
    and everything after it, or the whole path without one (OpenClaw's "active transcript").

    A successor file holds exactly this window, which is why the guard needs
    ``truncateAfterCompaction``: without it the file keeps the summarized history too."""
    start, boundary = region_bounds(path)
    first = start if boundary is None else boundary
    if boundary is not None and path[boundary].type == "compaction":
        kept = path[boundary].first_kept_entry_id
        for i in range(boundary):
            if path[i].id == kept:
                first = i
                break
    return sum(e.length + 1 for e in path[first:] if e.length > 0)


def overflow_before(entries: Sequence[Entry], window: int) -> str | None:
    """The overflow error the entries end with, if any (a compaction would answer it).

    Walks back over metadata rows and a chain of failed assistant turns (retries)."""
    for entry in reversed(entries):
        msg = entry.message
        if entry.type != "message" or msg is None:
            if entry.type in ("compaction", "reset"):
                return None
            continue
        if msg.role != "assistant" or msg.stop_reason not in ("error", "length", "stop"):
            return None
        if is_context_overflow(msg, window):
            return entry.id
        if msg.stop_reason != "error":
            return None
    return None


def ends_mid_turn(entries: Sequence[Entry]) -> bool:
    """True when the last message is a tool result: the agent is between a tool batch and its
    next model call, where OpenClaw's mid-turn precheck looks."""
    for entry in reversed(entries):
        if entry.type in ("compaction", "reset"):
            return False
        if entry.type == "message" and entry.message is not None:
            return entry.message.role == "toolResult"
    return False


def due_trigger(transcript: Transcript, plan: CompactionPlan,
                settings: CompactionSettings) -> DueTrigger:
    """Which trigger makes ``plan``'s compaction due, strongest first: a manual plan is
    "manual"; else an overflow at the end of the path, the mid-turn precheck (when enabled and
    the path ends after tool results), the threshold, the file-size guard; else "none"."""
    path = transcript.path_entries()
    window, threshold, context = plan.context_window, plan.threshold, plan.context_tokens
    store = not guard_needs_truncate(transcript)
    active = store_active_bytes(path) if store else active_window_bytes(path)
    limit = settings.max_active_transcript_bytes or None
    latch = latched(transcript, active, limit) if store and limit is not None else None
    armed = (store or settings.truncate_after_compaction) and latch is None
    what = "active SQLite history" if store else "active transcript"
    overflow = overflow_before(path, window)
    mid_turn = ends_mid_turn(path)
    over = plan.should_compact  # the agent's own check: the last reported usage
    # the precheck estimates what the next call carries: that usage plus the pending results
    pressure = int(plan.tokens_before)
    precheck_over = settings.enabled and window > 0 and pressure > threshold
    holding: list[TriggerKind] = []
    reasons: dict[TriggerKind, str] = {}
    if overflow is not None:
        holding.append("overflow")
        reasons["overflow"] = (f"the model answered {overflow} with a context-overflow error: "
                               "OpenClaw compacts at once and retries")
    if precheck_over and mid_turn and settings.mid_turn_precheck_enabled:
        holding.append("mid-turn-precheck")
        reasons["mid-turn-precheck"] = (
            f"after the tool results the next model call would carry ~{pressure:,} tokens, "
            f"over the threshold {threshold:,}: the mid-turn precheck stops it and compacts")
    if over:
        holding.append("threshold")
        reasons["threshold"] = (f"context {context:,} tokens is over the threshold "
                                f"{threshold:,} (window {window:,} - reserve "
                                f"{window - threshold:,})")
    # Before the store the size guard compacts only when it can truncate (a successor file):
    # without truncateAfterCompaction it does not fire, however large the file is. In the
    # store (2026.9) maxActiveTranscriptBytes alone arms it, unless the row's latch holds it.
    size_over = limit is not None and active >= limit
    if size_over and armed:
        holding.append("size")
        reasons["size"] = (f"the {what} is {format_bytes(active)}, at or over "
                           f"maxActiveTranscriptBytes {format_bytes(limit or 0)}: compacted "
                           "before the next turn")
    if plan.manual:
        kind: TriggerKind = "manual"
        reason = "a manual /compact" + (f"; {reasons[holding[0]]}" if holding else
                                        f"; no automatic trigger holds (context {context:,} of "
                                        f"threshold {threshold:,})")
    elif holding:
        kind, reason = holding[0], reasons[holding[0]]
    else:
        kind = "none"
        reason = f"context {context:,} tokens is under the threshold {threshold:,}"
        if size_over and latch is not None:
            reason += (f"; the {what} ({format_bytes(active)}) is over maxActiveTranscriptBytes "
                       f"{format_bytes(limit or 0)}, but the last byte-triggered compaction "
                       f"left {format_bytes(latch.active_bytes)} (the session row's "
                       "transcriptByteCompactionLatch): it fires again once the history grew "
                       "by another limit")
        elif size_over:
            reason += (f"; the active transcript ({format_bytes(active)}) is over "
                       f"maxActiveTranscriptBytes {format_bytes(limit or 0)}, but the size guard "
                       "needs truncateAfterCompaction: true, so it does not fire")
        elif limit is not None:
            reason += f" and the {what} ({format_bytes(active)}) under {format_bytes(limit)}"
    return DueTrigger(kind, reason, tuple(holding), active, limit, overflow, mid_turn,
                      "sqlite-active-history" if store else "active-window",
                      latch.active_bytes if latch is not None else None)
