"""The compaction plan: what a compaction would summarize, keep and cost (pi ``prepareCompaction``).

Pure: takes a loaded transcript and settings, returns a frozen ``CompactionPlan``. The GUI shows
it, the summarizer runs it, the CLI prints it, persistence writes what it says. Nothing here
touches files or the network, so a plan can be recomputed freely while the user drags the cut.

The cut is decided by a cut rule (``rules.CUT_RULES``): by default the rule of the agent that
wrote the file, reproducing that agent's own ``prepareCompaction`` (``agents.pi.rule_0_58``,
``agents.openclaw.rule_2026_9``). The region is what that agent summarizes from: after the last compaction
for pi, from what the previous compaction kept for OpenClaw. Every region entry lands in
exactly one of ``summarize_entry_ids``, ``turn_prefix_entry_ids`` and ``kept_entry_ids``, in
path order, except the previous compaction row itself (never summary input); non-message
rows (settings, labels) travel with their neighbours and the summarizer skips them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from sessionlens.engine.agents.releases import RULES, load_named
from sessionlens.engine.errors import NothingToCompact, PlanError
from sessionlens.engine.model import Entry, FileOps, Transcript
from sessionlens.engine.settings import CompactionSettings
from sessionlens.engine.tokens.token_report import TokenReport

from .chunks import (
    chunk_by_max_tokens,
    compute_adaptive_chunk_ratio,
    is_oversized_for_summary,
    max_chunk_tokens,
)
from .compaction_plan import CompactionPlan
from .context_size import (
    RowEstimates,
    context_window_of,
    estimate_context_tokens,
    is_message_entry,
)
from .cutpoints import (
    CutPoint,
    Preparation,
    carried_tail_indices,
    find_valid_cut_points,
    hard_boundary_cut,
    snap_user_cut,
)
from .fit import cannot_fit
from .prepare import prepare_rule, rule_estimator
from .rules import CUT_RULES, DEFAULT_CUT_RULE, CutRule, default_cut_rule, file_agent, rule_note

__all__ = ["CUT_RULES", "DEFAULT_CUT_RULE", "CutRule", "collect_file_ops",
           "context_window_of", "estimate_context_tokens", "is_message_entry", "plan_compaction"]


def collect_file_ops(entries: Sequence[Entry], previous: Entry | None) -> FileOps:
    """Files read and modified: the previous pi-made compaction's details plus every
    read/write/edit tool call with a string ``path`` (read-only = read and never modified)."""
    read: set[str] = set()
    modified: set[str] = set()
    if previous is not None and not previous.from_hook and previous.file_ops is not None:
        read.update(previous.file_ops.read_files)
        modified.update(previous.file_ops.modified_files)
    for entry in entries:
        msg = entry.message
        if entry.type != "message" or msg is None or msg.role != "assistant":
            continue
        for call in msg.tool_calls:
            args = call.arguments
            path = args.get("path") if isinstance(args, dict) else None
            if not isinstance(path, str):
                continue
            if call.name == "read":
                read.add(path)
            elif call.name in ("write", "edit"):
                modified.add(path)
    return FileOps(read_files=tuple(sorted(read - modified)),
                   modified_files=tuple(sorted(modified)))


def _user_cut(path: Sequence[Entry], prep: Preparation, cut_entry_id: str,
              index: dict[str, int]) -> CutPoint:
    at = index.get(cut_entry_id)
    if at is None:
        raise PlanError(f"cut entry {cut_entry_id} is not on the active path")
    start, boundary = prep.region_start, prep.boundary
    if at < start or (boundary is not None and at == boundary):
        assert boundary is not None
        if at == boundary:
            raise PlanError(f"cut entry {cut_entry_id} is the {path[boundary].type} that "
                            "starts the compactable region; cut at an entry after it")
        raise PlanError(f"cut entry {cut_entry_id} lies before {path[boundary].type} "
                        f"{path[boundary].id}; it is no longer in the compactable region")
    return snap_user_cut(path, start, len(path), at)


def plan_compaction(transcript: Transcript, settings: CompactionSettings, *,
                    tokens: TokenReport | None = None, cut_entry_id: str | None = None,
                    manual: bool = False, keep_recent_tokens: int | None = None,
                    cut_rule: CutRule | None = None, hard_boundary: bool | None = None,
                    store_beside: bool = False) -> CompactionPlan:
    """Plan a compaction of the transcript's active path (see ``_plan``). "Nothing to
    compact" carries a warning when the session cannot fit its window (``fit``)."""
    try:
        return _plan(transcript, settings, tokens=tokens, cut_entry_id=cut_entry_id,
                     manual=manual, keep_recent_tokens=keep_recent_tokens, cut_rule=cut_rule,
                     hard_boundary=hard_boundary, store_beside=store_beside)
    except NothingToCompact as exc:
        window = context_window_of(transcript.path_entries(), settings, transcript.header)
        why = cannot_fit(transcript, window)
        if why is None or why in exc.warnings:
            raise
        raise NothingToCompact(str(exc), (*exc.warnings, why)) from None


def _plan(transcript: Transcript, settings: CompactionSettings, *,
          tokens: TokenReport | None, cut_entry_id: str | None, manual: bool,
          keep_recent_tokens: int | None, cut_rule: CutRule | None,
          hard_boundary: bool | None, store_beside: bool) -> CompactionPlan:
    """Plan a compaction of the transcript's active path.

    ``cut_rule`` overrides ``settings.cut_rule``; with neither, the file's own agent's rule
    (``rules.default_cut_rule``; ``store_beside``: a ``sessions.json`` lies beside the file).
    ``manual`` plans the agent's ``/compact`` (OpenClaw then cuts again with
    keepRecentTokens 0 when the first cut would summarize nothing). ``keep_recent_tokens``
    overrides the setting. ``cut_entry_id`` is a cut the user picked (moved to the nearest
    valid point). ``hard_boundary`` keeps nothing before the compaction; when it is None,
    ``manual`` without ``keep_recent_tokens`` means a hard boundary, as before (neither
    pi 0.58 nor OpenClaw 2026.9 writes one: pass ``hard_boundary=False`` to plan theirs).
    Raises PlanError when there is nothing to compact.
    """
    where = transcript.path
    agent = file_agent(transcript, store_beside=store_beside)
    rule: CutRule = (cut_rule or settings.cut_rule
                     or default_cut_rule(transcript, store_beside=store_beside))
    if rule not in CUT_RULES:
        raise PlanError(f"unknown cut rule {rule!r} (choose from {', '.join(CUT_RULES)})")
    path = transcript.path_entries()
    if not path:
        raise NothingToCompact(f"{where}: Nothing to compact: the active path is empty")
    keep = keep_recent_tokens if keep_recent_tokens is not None else settings.keep_recent_tokens
    # Claude Code's /compact keeps its newest round: only the older rules' manual is hard
    hard = hard_boundary if hard_boundary is not None else (
        manual and keep_recent_tokens is None
        and not (rule in RULES and RULES[rule][1].manual_keeps_round))
    estimates = RowEstimates(path, tokens, rule_estimator(rule))
    prep = prepare_rule(path, rule, keep, estimates, manual=manual)
    if prep.refused:
        raise NothingToCompact(f"{where}: {prep.nothing}")
    index = {entry_id: i for i, entry_id in enumerate(transcript.active_path)}
    end = len(path)
    try:
        if cut_entry_id is not None:
            cut = _user_cut(path, prep, cut_entry_id, index)
        elif hard:
            cut = hard_boundary_cut(end)
        elif prep.cut is None:
            raise NothingToCompact(prep.nothing or "Nothing to compact")
        else:
            cut = prep.cut
    except NothingToCompact as exc:
        raise NothingToCompact(f"{where}: {exc}") from None
    except PlanError as exc:
        raise PlanError(f"{where}: {exc}") from None
    start, boundary = prep.region_start, prep.boundary
    first = cut.first_kept_index
    history_end = cut.turn_start_index if cut.turn_start_index is not None else first
    skip = {boundary, *prep.outside} if boundary is not None else set(prep.outside)
    summarized_at = [i for i in (*prep.prelude, *range(start, history_end)) if i not in skip]
    summarized = [path[i] for i in summarized_at]
    prefix = [path[i] for i in range(history_end, first) if i not in skip]
    # the previous compaction's kept tail leaves the context with this cut too; a rule whose
    # region starts after that compaction (pi) never summarizes it, so SessionLens gives it to
    # the summarizer ahead of the region (the cut and every pi figure stay pi's own)
    inside = {*summarized_at, *range(history_end, end), *prep.outside}  # the region's own
    carried_at = ([i for i in carried_tail_indices(path, boundary) if i not in inside]
                  if boundary is not None and path[boundary].type == "compaction" else [])
    carried = [path[i] for i in carried_at]
    if not any(is_message_entry(e) for e in (*summarized, *prefix)):
        degenerate = (f" ({rule.replace('-', ' ')} would still write a compaction, with "
                      "nothing the model sees to summarize)"
                      if rule.startswith("pi-") and rule != "pi-2025.12" and not hard
                      and cut_entry_id is None else "")
        raise NothingToCompact(f"{where}: Nothing to compact: the whole region is kept "
                               f"({cut.reason}){degenerate}")

    boundary_entry = path[boundary] if boundary is not None else None
    previous = boundary_entry if boundary_entry is not None and (
        boundary_entry.type == "compaction") else None
    window = context_window_of(path, settings, transcript.header)
    reserve = settings.reserve_for(window)
    tokens_before = prep.tokens_before
    # one truth: "context" is what the agent's own threshold check compares (the last valid
    # usage plus estimates after it), with or without an exact token count
    check = prep.threshold_tokens
    context_tokens = check if check is not None else tokens_before
    own = RULES[rule][1] if rule in RULES else None
    threshold = (int(load_named(own.threshold)(window)) if own is not None and own.threshold
                 else settings.threshold(window))
    kept_tokens = sum(estimates[first:end])
    summary_budget = math.floor(0.8 * reserve)
    prefix_budget = math.floor(0.5 * reserve) if cut.is_split_turn and prefix else 0

    messages = [(path[i], estimates[i]) for i in (*carried_at, *summarized_at)
                if is_message_entry(path[i])]
    msg_entries = [e for e, _ in messages]
    msg_estimates = [t for _, t in messages]
    ratio = compute_adaptive_chunk_ratio(msg_estimates, window)
    chunk_max = max_chunk_tokens(window, ratio)
    plan = CompactionPlan(
        should_compact=(check is not None and settings.enabled and window > 0
                        and check > threshold),
        context_tokens=context_tokens,
        context_window=window,
        threshold=threshold,
        first_kept_entry_id=None if cut.hard_boundary else path[first].id,
        is_split_turn=cut.is_split_turn,
        turn_start_entry_id=path[history_end].id if cut.is_split_turn else None,
        summarize_entry_ids=tuple(e.id for e in summarized),
        turn_prefix_entry_ids=tuple(e.id for e in prefix),
        kept_entry_ids=tuple(e.id for e in path[first:end]),
        previous_summary=previous.summary if previous is not None else None,
        previous_compaction_id=previous.id if previous is not None else None,
        file_ops=collect_file_ops((*carried, *summarized, *prefix), previous),
        tokens_before=tokens_before,
        summary_budget_tokens=summary_budget,
        predicted_tokens_after=summary_budget + prefix_budget + kept_tokens,
        chunks=chunk_by_max_tokens(msg_entries, msg_estimates, chunk_max),
        oversized_entry_ids=tuple(e.id for e, t in messages if is_oversized_for_summary(t, window)),
        valid_cut_entry_ids=tuple(path[i].id for i in find_valid_cut_points(path, start, end)),
        cut_reason=cut.reason,
        settings=settings,
        cut_rule=rule,
        hard_boundary=cut.hard_boundary,
        manual=manual,
        keep_recent_tokens=keep,
        kept_tokens=kept_tokens,
        turn_prefix_budget_tokens=prefix_budget,
        chunk_ratio=ratio,
        max_chunk_tokens=chunk_max,
        boundary_entry_id=boundary_entry.id if boundary_entry is not None else None,
        file_agent=agent.agent,
        file_agent_reason=agent.reason,
        rule_note=rule_note(rule, agent.agent),
        threshold_tokens=check,
        keep_recent_applied=prep.keep_used,
        carried_tail_entry_ids=tuple(e.id for e in carried),
    )
    if own is not None and own.finish is not None:
        finished: CompactionPlan = load_named(own.finish)(plan, path, estimates, transcript.header)
        return finished
    return plan
