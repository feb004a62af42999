"""How much later pruning makes the next compaction (compaction-system.md "Compaction vs
pruning": pruning trims old tool results before every call, so it delays compaction).

Each cleared tool result takes its size off every later request, so the context reaches the
threshold that many tokens later; in turns, that is the saving over what a turn of this
session adds on average. Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from sessionlens.engine.load.formats.catalog import agent_name
from sessionlens.engine.model import Transcript
from sessionlens.engine.tokens.counts import entry_context_tokens
from sessionlens.engine.tokens.estimate import estimate_tokens_from_chars

from .context_size import context_window_of, estimate_context_tokens
from .cutpoints import region_bounds
from .pruning import PruningPreview, preview_pruning

if TYPE_CHECKING:
    from sessionlens.engine.settings import CompactionSettings
    from sessionlens.engine.tokens.token_report import TokenReport

__all__ = ["PruningDelay", "pruning_delay"]


@dataclass(frozen=True, slots=True)
class PruningDelay:
    """The pruning preview and what it does to the compaction trigger."""

    preview: PruningPreview
    threshold: int
    #: Context the next call would carry without pruning (reported usage plus estimates).
    context_tokens: int
    #: The same call with the old tool results cleared.
    pruned_context_tokens: int
    due_without_pruning: bool
    due_with_pruning: bool
    #: Tokens the context may still grow before the threshold, without and with pruning.
    headroom_tokens: int
    pruned_headroom_tokens: int
    #: What a user turn of this region adds on average (pi estimates); None without turns.
    growth_per_turn: float | None
    #: The trigger moves ``preview.tokens_saved`` tokens later: about this many turns.
    turns_gained: float | None
    #: The agent that wrote the file: session pruning is OpenClaw's, no other agent's.
    agent: str = "OpenClaw"

    @property
    def delay_tokens(self) -> int:
        return self.preview.tokens_saved

    @property
    def agent_note(self) -> str | None:
        """What a preview of another agent's file is (None for an OpenClaw file): that agent
        does not prune this way, so these are OpenClaw's figures had it run the session."""
        if self.agent == "OpenClaw":
            return None
        return (f"{self.agent} does not prune tool results this way: session pruning is an "
                "OpenClaw feature, so this is what OpenClaw would clear had it run this "
                "session; this agent's own compaction trigger does not move.")


def pruning_delay(transcript: Transcript, settings: CompactionSettings, *, keep_turns: int = 3,
                  tokens: TokenReport | None = None, context_window: int | None = None,
                  context_tokens: int | None = None) -> PruningDelay:
    """Preview pruning and measure how far it pushes the compaction trigger back.

    ``context_window`` and ``context_tokens`` default to what the planner would use; pass a
    plan's own numbers to keep the two views in step."""
    preview = preview_pruning(transcript, keep_turns, tokens=tokens)
    path = transcript.path_entries()
    window = context_window or context_window_of(path, settings, transcript.header)
    threshold = settings.threshold(window)
    start, boundary = region_bounds(path)
    region = path[start:]
    summary = (estimate_tokens_from_chars(len(path[boundary].summary or ""))
               if boundary is not None else 0)
    estimates = [entry_context_tokens(transcript, e, tokens) for e in region]
    if context_tokens is not None:
        context = context_tokens
    elif tokens is not None and tokens.reported_context is not None:
        context = tokens.reported_context
    else:
        context = estimate_context_tokens(region, estimates, summary)
    pruned = max(0, context - preview.tokens_saved)
    turns = sum(1 for e in region if e.type == "message" and e.role == "user")
    growth = sum(estimates) / turns if turns else None
    return PruningDelay(
        preview=preview, threshold=threshold, context_tokens=context,
        pruned_context_tokens=pruned,
        due_without_pruning=settings.should_compact(context, window),
        due_with_pruning=settings.should_compact(pruned, window),
        headroom_tokens=max(0, threshold - context),
        pruned_headroom_tokens=max(0, threshold - pruned),
        growth_per_turn=growth,
        turns_gained=preview.tokens_saved / growth if growth else None,
        agent=_agent(transcript.format))


def _agent(fmt: str) -> str:
    """Who wrote a file of ``fmt``, by the name the pruning note uses."""
    if fmt == "openclaw-v3":
        return "OpenClaw"
    return "pi" if fmt in ("pi-v1", "pi-v2") else agent_name(fmt)
