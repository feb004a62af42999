"""The compaction plan: what one compaction would summarize, keep and cost, decided before any
model is called (pi's ``CompactionPreparation``). ``planner`` makes it; agent rules that put
their own numbers into it (``agents.codex.rule_0_17``) take and give it back."""

from __future__ import annotations

from dataclasses import dataclass

from sessionlens.engine.model import FileOps
from sessionlens.engine.settings import CompactionSettings

from .rules import DEFAULT_CUT_RULE, CutRule

__all__ = ["CompactionPlan"]


@dataclass(frozen=True, slots=True)
class CompactionPlan:
    """Everything one compaction would do, decided before any model is called."""

    #: The threshold rule says compact now (enabled and context_tokens > threshold).
    should_compact: bool
    #: The context the threshold is checked against: the last valid reported usage plus pi
    #: estimates of what came after it, else the estimate (equals ``tokens_before``).
    context_tokens: int
    context_window: int
    #: context_window - reserve (OpenClaw: reserveTokens raised to the capped floor).
    threshold: int
    #: First entry that stays verbatim; None for a hard boundary (persistence then writes the
    #: new compaction's own id, so nothing before it is kept).
    first_kept_entry_id: str | None
    is_split_turn: bool
    #: The entry that opened the split turn (None unless is_split_turn). pi also calls a cut
    #: on a bash run or custom message split, with that row as the turn start and an empty
    #: prefix: then nothing is summarized separately (``turn_prefix_entry_ids`` is empty).
    turn_start_entry_id: str | None
    #: Region entries before the turn start (or the cut): the history summary's input.
    summarize_entry_ids: tuple[str, ...]
    #: Region entries from the turn start to the cut (split turns only): summarized separately.
    turn_prefix_entry_ids: tuple[str, ...]
    #: Region entries from the cut to the leaf.
    kept_entry_ids: tuple[str, ...]
    previous_summary: str | None
    previous_compaction_id: str | None
    #: Read-only and modified files (previous pi compaction's details + read/write/edit calls).
    file_ops: FileOps
    #: pi ``estimateContextTokens`` over the previous summary and the region.
    tokens_before: int
    #: floor(0.8 x reserve): the most the history summary may take.
    summary_budget_tokens: int
    #: summary budget (+ turn-prefix budget) + kept tail estimate.
    predicted_tokens_after: int
    #: Entry ids of the summarized messages, grouped the way OpenClaw would chunk them.
    chunks: tuple[tuple[str, ...], ...]
    #: Summarized messages too large to summarize at all (estimate x 1.2 > half the window).
    oversized_entry_ids: tuple[str, ...]
    #: Every place in the region where a cut may go (for ticks in the GUI).
    valid_cut_entry_ids: tuple[str, ...]
    #: Why the cut is where it is, in words.
    cut_reason: str
    settings: CompactionSettings
    cut_rule: CutRule = DEFAULT_CUT_RULE
    hard_boundary: bool = False
    manual: bool = False
    keep_recent_tokens: int = 0
    #: Estimated tokens of the kept entries.
    kept_tokens: int = 0
    #: floor(0.5 x reserve) for a split turn's prefix summary, else 0.
    turn_prefix_budget_tokens: int = 0
    chunk_ratio: float = 0.0
    max_chunk_tokens: int = 0
    #: Id of the compaction or reset the region starts after.
    boundary_entry_id: str | None = None
    #: The agent that wrote the file ("pi", "openclaw", "claude-code", "codex"), and why.
    file_agent: str = ""
    file_agent_reason: str = ""
    #: Words for the CLI and GUI when the rule is not the file's own agent's ("" when it is),
    #: e.g. that Claude Code compacts by its own rules and this plan shows OpenClaw's cut.
    rule_note: str = ""
    #: The context size the agent's own threshold check compares with ``threshold`` before
    #: the next prompt (``should_compact`` is ``threshold_tokens > threshold``); None when it
    #: would not check (no assistant yet, or only one older than the last compaction).
    threshold_tokens: int | None = None
    #: keepRecentTokens as the rule applied it (OpenClaw divides it by reported / estimated).
    keep_recent_applied: float = 0.0
    #: The tail the previous compaction kept verbatim, which leaves the context with this cut
    #: but lies outside the rule's region (pi 0.58 starts after that compaction and would
    #: drop it unsummarized; empty under OpenClaw 2026.9, whose region holds it). Summarized
    #: ahead of ``summarize_entry_ids`` (the first ``chunks``) and audited with them.
    carried_tail_entry_ids: tuple[str, ...] = ()
    #: Summarized entries the agent copies back verbatim after its summary (Codex: the recent
    #: user messages up to its budget, ``agents.codex.rule_0_17.codex_keep``), oldest first.
    copied_entry_ids: tuple[str, ...] = ()

    @property
    def summarized_entry_ids(self) -> tuple[str, ...]:
        """Everything the summary stands in for: the carried tail, the history and a split
        turn's prefix."""
        return self.carried_tail_entry_ids + self.summarize_entry_ids + self.turn_prefix_entry_ids

    @property
    def region_entry_ids(self) -> tuple[str, ...]:
        return self.summarize_entry_ids + self.turn_prefix_entry_ids + self.kept_entry_ids
