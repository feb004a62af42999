"""What trimming old tool results would save (OpenClaw's "session pruning"), before compacting.

Pruning is the cheap alternative to a summary: tool results older than the last N user turns
are replaced by a short marker, the conversation itself stays. This previews the saving over
the replayed context with pi's estimate, so a user can see whether pruning alone would do.
Pure: no I/O.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sessionlens.engine.model import Transcript
from sessionlens.engine.tokens.counts import pi_tokens
from sessionlens.engine.tokens.estimate import estimate_tokens_from_chars

if TYPE_CHECKING:
    from sessionlens.engine.tokens.token_report import TokenReport

__all__ = ["PRUNED_MARKER", "PrunedResult", "PruningPreview", "preview_pruning"]

#: What stands in for a cleared tool result.
PRUNED_MARKER = "[Old tool result content cleared]"


@dataclass(frozen=True, slots=True)
class PrunedResult:
    """One tool result the next call would send cleared, and what that saves."""

    entry_id: str
    tool_name: str | None
    #: Its estimate as sent today.
    tokens: int
    #: What clearing it saves (tokens - marker): the compaction trigger moves this much later.
    trimmed_tokens: int
    #: The user turn that pushed it out of the protected turns; every call since trims it.
    pruned_since_entry_id: str | None


@dataclass(frozen=True, slots=True)
class PruningPreview:
    """The effect of clearing tool results older than the last ``keep_turns`` user turns."""

    keep_turns: int
    marker: str
    marker_tokens: int
    #: Tool results that would be cleared, in context order.
    pruned_entry_ids: tuple[str, ...]
    #: First entry of the protected recent turns (None when no turn is protected).
    protected_from_entry_id: str | None
    tokens_before: int
    tokens_saved: int
    #: The pruned tool results one by one, in context order.
    results: tuple[PrunedResult, ...] = ()

    @property
    def tokens_after(self) -> int:
        return self.tokens_before - self.tokens_saved


def preview_pruning(transcript: Transcript, keep_turns: int = 3, *,
                    tokens: TokenReport | None = None) -> PruningPreview:
    """Estimate the saving of replacing old tool results in the replayed context by a marker."""
    keep_turns = max(0, keep_turns)
    marker_tokens = estimate_tokens_from_chars(len(PRUNED_MARKER))
    items = transcript.context
    estimates = [pi_tokens(transcript, transcript.entry(item.entry_id), tokens)
                 for item in items]
    user_positions = [i for i, item in enumerate(items)
                      if item.kind == "message" and item.role == "user"]
    if keep_turns == 0:
        protect_from = len(items)
    elif len(user_positions) >= keep_turns:
        protect_from = user_positions[-keep_turns]
    else:
        protect_from = 0
    results: list[PrunedResult] = []
    for i in range(protect_from):
        item = items[i]
        if item.kind == "message" and item.role == "toolResult":
            gain = estimates[i] - marker_tokens
            if gain > 0:
                # the keep_turns-th user turn after it is the one that leaves it unprotected
                later = bisect_right(user_positions, i)
                since = later + max(keep_turns, 1) - 1
                msg = transcript.entry(item.entry_id).message
                results.append(PrunedResult(
                    item.entry_id, msg.tool_name if msg is not None else None, estimates[i],
                    gain, items[user_positions[since]].entry_id
                    if keep_turns and since < len(user_positions) else None))
    return PruningPreview(
        keep_turns=keep_turns, marker=PRUNED_MARKER, marker_tokens=marker_tokens,
        pruned_entry_ids=tuple(r.entry_id for r in results),
        protected_from_entry_id=items[protect_from].entry_id if protect_from < len(items) else None,
        tokens_before=sum(estimates), tokens_saved=sum(r.trimmed_tokens for r in results),
        results=tuple(results))
