"""Why each compaction already in a transcript fired, and whether it did its job.

For every compaction entry this reconstructs the context just before it (on its own branch),
compares it with the threshold the agent used, guesses what triggered it (an overflow error
it retried after, the mid-turn precheck when enabled and it sits between tool results and the
next call, the threshold, the file-size guard when the active transcript had reached
``maxActiveTranscriptBytes``, or else a manual ``/compact``), and flags the suspicious:
fired far below the threshold, a summary no smaller than what it replaced, summaries that
keep growing from one compaction to the next. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from sessionlens.engine.audit.span import carried_tail, path_to, span_on_path
from sessionlens.engine.contract.templates import fallback_text
from sessionlens.engine.model import Entry, TextBlock, Transcript
from sessionlens.engine.plan.cutpoints import region_bounds, usage_context
from sessionlens.engine.plan.planner import (
    context_window_of,
    estimate_context_tokens,
    is_message_entry,
)
from sessionlens.engine.plan.triggers import active_window_bytes, ends_mid_turn, overflow_before
from sessionlens.engine.sessions.store_guard import guard_needs_truncate, store_active_bytes
from sessionlens.engine.tokens.estimate import estimate_tokens_from_chars
from sessionlens.engine.tokens.series import pi_tokens, pi_tokens_each

if TYPE_CHECKING:
    from sessionlens.engine.settings import CompactionSettings
    from sessionlens.engine.tokens.token_report import TokenReport

__all__ = ["FAR_BELOW_SHARE", "SUMMARY_GROWTH_RATIO", "CompactionFlag", "CompactionForensics",
           "Trigger", "analyze_compactions"]

Trigger = Literal["overflow-retry", "mid-turn-precheck", "threshold", "size-guard", "manual"]
CompactionFlag = Literal["far-below-threshold", "summary-not-smaller", "summary-growth"]

#: A compaction that fired with less than this share of its threshold in context is flagged.
FAR_BELOW_SHARE = 0.5
#: A summary more than this many times its predecessor's size is flagged as growing.
SUMMARY_GROWTH_RATIO = 1.1


@dataclass(frozen=True, slots=True)
class CompactionForensics:
    """One compaction, examined."""

    compaction_id: str
    line: int
    on_active_path: bool
    #: The last valid assistant usage after the previous boundary (what the provider said).
    reported_context_tokens: int | None
    #: pi chars/4 over what the model saw: previous summary, its kept slice, the region.
    estimated_context_tokens: int
    #: pi ``estimateContextTokens``: reported usage plus estimates after it (the decision input).
    context_tokens: int
    #: ``tokensBefore`` as the agent recorded it.
    recorded_tokens_before: int | None
    context_window: int
    threshold: int
    #: context_tokens / context_window.
    utilisation: float
    #: context_tokens / threshold (1.0 = exactly at the threshold).
    threshold_share: float
    trigger: Trigger
    #: The error message that preceded an overflow retry.
    overflow_entry_id: str | None
    summary_tokens: int
    #: Estimated tokens the summary stands in for: the previous summary, the tail the
    #: previous compaction kept verbatim, and the summarized messages.
    replaced_tokens: int
    previous_compaction_id: str | None
    previous_summary_tokens: int | None
    first_kept_entry_id: str | None
    from_hook: bool
    #: First kept is the compaction itself or not on its branch: nothing was kept.
    hard_boundary: bool
    flags: tuple[CompactionFlag, ...]
    #: It sits after tool results, before the next model call (fired inside a turn).
    mid_turn: bool = False
    #: Bytes of the transcript window the model saw just before it (``active_window_bytes``).
    active_bytes: int = 0
    #: The summary is empty or a fallback placeholder (the audit's content check fails it
    #: the same way): whatever it replaced is lost.
    fallback_summary: bool = False

    @property
    def total_loss(self) -> bool:
        """A fallback placeholder that replaced something (entries or a previous summary):
        all of it is gone. One that replaced nothing kept its whole region and lost nothing."""
        return self.fallback_summary and self.replaced_tokens > 0


def _branch_to(transcript: Transcript, entry_id: str, active_pos: dict[str, int]) -> list[Entry]:
    """Entries from the root to ``entry_id`` inclusive (the active path is sliced, not walked)."""
    at = active_pos.get(entry_id)
    if at is not None:
        return list(transcript.path_entries()[:at + 1])
    return list(path_to(transcript, entry_id))


def _last_usage(entries: Sequence[Entry]) -> int | None:
    for entry in reversed(entries):
        usage = usage_context(entry)
        if usage is not None:
            return usage
    return None


def _pending_prompt(transcript: Transcript, comp: Entry, tokens: TokenReport | None
                    ) -> tuple[int, bool]:
    """(pending prompt, manual command) of the user message written right after ``comp``.

    OpenClaw 2026.8+ (header version 4) compacts before inference with the pending prompt
    counted, so that message's estimate is added to the context (older releases decided
    on the context alone: 0). A ``/compact`` command there is the turn that asked for it:
    OpenClaw writes the command after the compaction it ran."""
    at = transcript.index.get(comp.id)
    for entry in transcript.entries[at + 1:at + 6] if at is not None else ():
        msg = entry.message
        if msg is None:
            continue
        if msg.role != "user":
            return 0, False
        text = " ".join(b.text for b in msg.content if isinstance(b, TextBlock)).lstrip()
        if text.startswith("/compact"):
            return 0, True
        v4 = transcript.header is not None and transcript.header.version >= 4
        return (pi_tokens(transcript, entry, tokens) if v4 else 0), False
    return 0, False


def _examine(transcript: Transcript, branch: list[Entry], settings: CompactionSettings,
             tokens: TokenReport | None, on_path: bool,
             previous_summary_tokens: int | None) -> CompactionForensics:
    comp = branch[-1]
    before = branch[:-1]
    start, boundary = region_bounds(before)
    region = before[start:]
    prev = before[boundary] if boundary is not None else None
    prev_comp = prev if prev is not None and prev.type == "compaction" else None
    prev_summary = estimate_tokens_from_chars(len(prev_comp.summary or "")) if prev_comp is not None else 0
    # the tail the previous boundary kept verbatim was in the context until this compaction;
    # what it replaced is its span (``audit.span``: the entries the audit judges)
    tail = [(e, pi_tokens(transcript, e, tokens)) for e in carried_tail(before, boundary)
            if is_message_entry(e)]
    estimates = [n if is_message_entry(e) else 0
                 for e, n in zip(region, pi_tokens_each(transcript, region, tokens), strict=True)]
    estimated = prev_summary + sum(n for _, n in tail) + sum(estimates)
    context = estimate_context_tokens(region, estimates, prev_summary)
    window = context_window_of(before, settings, transcript.header)
    threshold = settings.threshold(window)
    overflow_id = overflow_before(before, window)
    mid_turn = ends_mid_turn(before)
    legacy = guard_needs_truncate(transcript)  # the store's guard needs no truncation
    active = active_window_bytes(before) if legacy else store_active_bytes(before)
    limit = settings.max_active_transcript_bytes
    pending, command = _pending_prompt(transcript, comp, tokens)
    recorded = comp.extra.get("trigger")   # Claude Code's compactMetadata says it
    trigger: Trigger = (
        "manual" if command or recorded == "manual"
        else "threshold" if recorded == "auto" and overflow_id is None
        else "overflow-retry" if overflow_id is not None
        else "mid-turn-precheck" if mid_turn and settings.mid_turn_precheck_enabled
        else "threshold" if context + pending > threshold
        else "size-guard" if limit and active >= limit and (settings.truncate_after_compaction
                                                            or not legacy)
        else "manual")
    recorded = comp.extra.get("trigger")   # the agent's own word, where the file has it
    if recorded == "manual":
        trigger = "manual"
    elif recorded == "overflow":
        trigger = "overflow-retry"
    elif recorded == "auto" and trigger == "manual":
        trigger = "threshold"
    kept_id = comp.first_kept_entry_id
    span = span_on_path(before, comp)
    hard = not span.kept_tail
    gone = set(span.summarized_entry_ids)
    replaced = prev_summary + sum(n for e, n in (*tail, *zip(region, estimates, strict=True))
                                  if e.id in gone)
    summary_tokens = estimate_tokens_from_chars(len(comp.summary or ""))
    flags: list[CompactionFlag] = []
    post = comp.extra.get("post_tokens")
    # the agent measured the context before and after (Claude Code: 12,624 -> 2,650): its
    # own figures, not an estimate of what the summary replaced, decide "not smaller"
    measured = post if type(post) is int and comp.tokens_before is not None else None
    # a compaction whose trigger the agent recorded is not judged against a threshold the
    # file does not give (Claude Code's CLAUDE_AUTOCOMPACT_PCT_OVERRIDE, or a /compact)
    judged = recorded not in ("auto", "manual") and trigger not in ("overflow-retry", "size-guard")
    if judged and threshold > 0 and context < FAR_BELOW_SHARE * threshold:
        flags.append("far-below-threshold")
    if (summary_tokens >= replaced if measured is None
            else measured >= (comp.tokens_before or 0)):
        flags.append("summary-not-smaller")
    if previous_summary_tokens and summary_tokens > SUMMARY_GROWTH_RATIO * previous_summary_tokens:
        flags.append("summary-growth")
    return CompactionForensics(
        compaction_id=comp.id, line=comp.line, on_active_path=on_path,
        reported_context_tokens=_last_usage(region), estimated_context_tokens=estimated,
        context_tokens=context, recorded_tokens_before=comp.tokens_before,
        context_window=window, threshold=threshold,
        utilisation=context / window if window > 0 else 0.0,
        threshold_share=context / threshold if threshold > 0 else 0.0,
        trigger=trigger, overflow_entry_id=overflow_id, summary_tokens=summary_tokens,
        replaced_tokens=replaced,
        previous_compaction_id=prev_comp.id if prev_comp is not None else None,
        previous_summary_tokens=previous_summary_tokens, first_kept_entry_id=kept_id,
        from_hook=comp.from_hook, hard_boundary=hard, flags=tuple(flags), mid_turn=mid_turn,
        active_bytes=active,
        fallback_summary=not (comp.summary or "").strip()
        or fallback_text(comp.summary or "") is not None)


def analyze_compactions(transcript: Transcript, settings: CompactionSettings,
                        tokens: TokenReport | None = None) -> tuple[CompactionForensics, ...]:
    """Forensics for every compaction in the file (all branches), in file order."""
    active_pos = {entry_id: i for i, entry_id in enumerate(transcript.active_path)}
    results: list[CompactionForensics] = []
    summary_tokens: dict[str, int] = {}
    for comp in transcript.compactions:
        branch = _branch_to(transcript, comp.id, active_pos)
        previous = next((e for e in reversed(branch[:-1]) if e.type == "compaction"), None)
        prev_tokens = summary_tokens.get(previous.id) if previous is not None else None
        report = _examine(transcript, branch, settings, tokens, comp.id in active_pos, prev_tokens)
        summary_tokens[comp.id] = report.summary_tokens
        results.append(report)
    return tuple(results)
