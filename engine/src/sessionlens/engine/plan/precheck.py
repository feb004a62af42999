"""Where OpenClaw's mid-turn precheck would have fired (``midTurnPrecheck.enabled``).

The precheck runs after a batch of tool results is appended and before the next model call:
it estimates the prompt the call would carry (the last reported usage plus estimates of what
came after it, the same budget logic as the check at turn start) and, if that no longer fits
under the threshold, stops the call and compacts first. A long tool loop can cross the
threshold without any turn ending, so without the precheck the overflowing call goes out.
This lists the pressure at every such point of the compactable region and names the first
point over the threshold. Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from sessionlens.engine.model import Entry, Transcript
from sessionlens.engine.tokens.counts import entry_context_tokens
from sessionlens.engine.tokens.estimate import estimate_tokens_from_chars

from .context_size import context_window_of, is_message_entry
from .cutpoints import region_bounds, usage_context

if TYPE_CHECKING:
    from sessionlens.engine.settings import CompactionSettings
    from sessionlens.engine.tokens.token_report import TokenReport

__all__ = ["PrecheckPoint", "PrecheckPreview", "preview_precheck"]

@dataclass(frozen=True, slots=True)
class PrecheckPoint:
    """One place between a tool batch and the next model call."""

    #: The last tool result of the batch.
    entry_id: str
    #: The model call that followed (None when the path ends here).
    next_entry_id: str | None
    #: Last reported usage plus pi estimates after it, up to and including the batch.
    estimated_tokens: int
    #: estimated_tokens / threshold: 1.0 or more means the precheck fires.
    pressure: float


@dataclass(frozen=True, slots=True)
class PrecheckPreview:
    """The precheck over the compactable region (after the last compaction or reset)."""

    enabled: bool
    context_window: int
    threshold: int
    points: tuple[PrecheckPoint, ...]
    #: The first point at or over the threshold: where the precheck would have fired.
    fires_at: PrecheckPoint | None


def _is_result(entry: Entry) -> bool:
    return entry.type == "message" and entry.role == "toolResult"


def preview_precheck(transcript: Transcript, settings: CompactionSettings, *,
                     tokens: TokenReport | None = None,
                     context_window: int | None = None) -> PrecheckPreview:
    """Pressure at each tool batch of the region, and where the precheck would have fired."""
    path = transcript.path_entries()
    window = context_window or context_window_of(path, settings, transcript.header)
    threshold = settings.threshold(window)
    start, boundary = region_bounds(path)
    points: list[PrecheckPoint] = []
    usage: int | None = None
    # without a usage in the region yet, pi counts the previous summary plus estimates
    trailing = (estimate_tokens_from_chars(len(path[boundary].summary or ""))
                if boundary is not None else 0)
    for i in range(start, len(path)):
        entry = path[i]
        reported = usage_context(entry)
        if reported is not None:
            usage, trailing = reported, 0
        else:
            trailing += entry_context_tokens(transcript, entry, tokens)
        if not _is_result(entry):
            continue
        nxt = next((e for e in path[i + 1:] if is_message_entry(e)), None)
        if nxt is not None and _is_result(nxt):
            continue  # the batch goes on
        estimated = (usage or 0) + trailing
        points.append(PrecheckPoint(entry.id, nxt.id if nxt is not None else None, estimated,
                                    estimated / threshold if threshold > 0 else 0.0))
    fires = next((p for p in points if p.estimated_tokens >= threshold > 0), None)
    return PrecheckPreview(settings.mid_turn_precheck_enabled, window, threshold, tuple(points),
                           fires)
