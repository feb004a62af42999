"""``sessionlens plan FILE``: where a compaction would cut, what it would summarize and keep.

Plans through ``opened.OpenedTranscript``: the settings are resolved once (flags, then the
governing ``openclaw.json``, then the transcript's model), exactly as ``compact`` and the GUI
resolve them, so the three show the same cut and the same numbers. ``--json`` prints one
object carrying DESIGN.md's keys plus each setting's source.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path
from typing import Any

from sessionlens.engine.cli.args import non_negative_int, positive_int
from sessionlens.engine.cli.output import emit_json, emit_lines
from sessionlens.engine.cli.trigger_views import (
    add_trigger_arguments,
    trigger_json,
    trigger_lines,
    trigger_settings,
)
from sessionlens.engine.opened import (
    FIGURE_LABELS,
    Figures,
    OpenedTranscript,
    Overrides,
    open_transcript,
)
from sessionlens.engine.plan.compaction_plan import CompactionPlan
from sessionlens.engine.plan.cutpoints import CUT_RULES
from sessionlens.engine.settings import DEFAULT_SETTINGS

__all__ = ["add_settings_arguments", "overrides_from_args", "plan_summary", "register", "run",
           "settings_summary"]


def add_settings_arguments(p: argparse.ArgumentParser) -> None:
    """The flags ``plan`` and ``compact`` share (the same names, the same defaults)."""
    p.add_argument("--keep-recent", type=non_negative_int, metavar="N",
                   help=f"tokens to keep verbatim (default {DEFAULT_SETTINGS.keep_recent_tokens:,}"
                        " as OpenClaw; 0 = a hard boundary: nothing before the compaction kept)")
    p.add_argument("--reserve", type=non_negative_int, metavar="N",
                   help=f"reserveTokens (default {DEFAULT_SETTINGS.reserve_tokens:,}; raised to the "
                        f"floor of {DEFAULT_SETTINGS.reserve_tokens_floor:,} unless "
                        "--reserve-floor 0)")
    p.add_argument("--reserve-floor", type=non_negative_int, metavar="N",
                   help="OpenClaw's reserveTokensFloor (0 disables it)")
    p.add_argument("--context-window", type=positive_int, metavar="N",
                   help="the agent model's context window (default: openclaw.json, the "
                        "provider's own error, or the model's known window)")
    p.add_argument("--rule", choices=CUT_RULES,
                   help="cut rule (default: the file's agent's today: pi-1.6 for pi files, "
                        "openclaw-2026.9 for OpenClaw ones; pi-0.73 is pi 0.63.1-0.73.1, "
                        "pi-0.58 pi up to 0.63.0)")


def overrides_from_args(args: argparse.Namespace) -> Overrides:
    return Overrides(context_window=args.context_window, reserve_tokens=args.reserve,
                     reserve_tokens_floor=args.reserve_floor, keep_recent_tokens=args.keep_recent,
                     cut_rule=args.rule, origin="command line")


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("plan", help="preview a compaction: cut point, summarized and kept entries")
    p.add_argument("file", type=Path, help="transcript file (.jsonl)")
    add_settings_arguments(p)
    p.add_argument("--cut", metavar="ENTRY_ID", help="cut here (moved to the nearest valid point)")
    add_trigger_arguments(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def settings_summary(opened: OpenedTranscript) -> dict[str, Any]:
    """Each resolved setting with where it came from (the same in ``plan`` and ``compact``)."""
    r = opened.resolved
    return {"context_window": {"value": r.context_window.value, "source": r.context_window.source},
            "reserve_tokens": {"value": r.reserve_tokens.value, "source": r.reserve_tokens.source},
            "keep_recent_tokens": {"value": r.keep_recent_tokens.value,
                                   "source": r.keep_recent_tokens.source},
            "cut_rule": {"value": r.cut_rule.value, "source": r.cut_rule.source},
            "warnings": list(r.warnings)}


def plan_summary(plan: CompactionPlan, figures: Figures) -> dict[str, Any]:
    """The ``plan --json`` object."""
    return {
        "should_compact": figures.should_compact,
        "context_tokens": figures.context_tokens,
        "context_source": figures.context_source,
        "context_window": figures.context_window,
        "threshold": figures.threshold,
        "first_kept_entry_id": figures.first_kept_entry_id,
        "hard_boundary": plan.hard_boundary,
        "is_split_turn": plan.is_split_turn,
        "turn_start_entry_id": plan.turn_start_entry_id,
        "summarize_entry_ids": list(plan.summarize_entry_ids),
        "turn_prefix_entry_ids": list(plan.turn_prefix_entry_ids),
        "carried_tail_entry_ids": list(plan.carried_tail_entry_ids),
        "kept_entry_ids": list(plan.kept_entry_ids),
        "copied_entry_ids": list(plan.copied_entry_ids),
        "entries_summarized": figures.entries_summarized,
        "previous_compaction_id": plan.previous_compaction_id,
        "tokens_before": figures.tokens_before,
        "summary_budget_tokens": figures.summary_budget_tokens,
        "kept_tokens": figures.kept_tokens,
        "predicted_tokens_after": figures.predicted_tokens_after,
        "not_smaller": figures.not_smaller_note is not None,
        "not_smaller_reason": figures.not_smaller_note,
        "chunks": [list(chunk) for chunk in plan.chunks],
        "max_chunk_tokens": plan.max_chunk_tokens,
        "oversized_entry_ids": list(plan.oversized_entry_ids),
        "file_ops": {"read": list(plan.file_ops.read_files),
                     "modified": list(plan.file_ops.modified_files)},
        "cut_rule": plan.cut_rule,
        "cut_reason": plan.cut_reason,
        "keep_recent_tokens": plan.keep_recent_tokens,
        "valid_cut_count": len(plan.valid_cut_entry_ids),
    }


def settings_lines(opened: OpenedTranscript) -> list[str]:
    lines = [f"  {label:<13} {s.value:,}  ({s.source})" if isinstance(s.value, int)
             else f"  {label:<13} {s.value}  ({s.source})" for label, s in opened.resolved.rows()]
    lines += [f"  warning       {w}" for w in opened.resolved.warnings]
    return lines


def _due_words(s: dict[str, Any]) -> str:
    """The threshold's answer, never "no compaction due" while another trigger holds."""
    if s["should_compact"]:
        return "compact now"
    if s.get("trigger") not in (None, "none", "manual"):
        return f"under the threshold, but due by the {s['trigger']} trigger"
    return "no compaction due"


def _human(path: Path, opened: OpenedTranscript, s: dict[str, Any]) -> list[str]:
    L = FIGURE_LABELS
    kept = s["first_kept_entry_id"] or "(nothing: hard boundary)"
    lines = [f"{path}", *settings_lines(opened),
             f"  {L['context_tokens']:<13} {s['context_tokens']:,} ({s['context_source']}) of "
             f"{L['context_window']} {s['context_window']:,}, {L['threshold']} "
             f"{s['threshold']:,} -> {_due_words(s)}",
             *(trigger_lines(s) if "trigger" in s else []),
             f"  cut           {L['first_kept_entry_id']} {kept}  ({s['cut_rule']}"
             + (", keeps its newest round)" if s["cut_rule"] == "claude-code-2.1" else
                f", keep {s['keep_recent_tokens']:,})"),
             f"                {s['cut_reason']}",
             f"  summarize     {s['entries_summarized']:,} {L['entries_summarized']} in "
             f"{len(s['chunks'])} chunk(s) of at most {s['max_chunk_tokens']:,} tokens"]
    if s["carried_tail_entry_ids"]:
        lines.append(f"  carried       {len(s['carried_tail_entry_ids']):,} of them the previous "
                     "compaction kept verbatim: they leave the context with this cut, and "
                     f"{s['cut_rule']} alone would drop them unsummarized")
    if s["is_split_turn"]:
        lines.append(f"  split turn    opened by {s['turn_start_entry_id']}; "
                     f"{len(s['turn_prefix_entry_ids'])} entries summarized as the turn prefix")
    if s["copied_entry_ids"]:
        lines.append(f"  copied back   {len(s['copied_entry_ids']):,} of them (the recent user "
                     "messages) come back verbatim after the summary")
    lines += [
        f"  keep          {len(s['kept_entry_ids']):,} entries, {L['kept_tokens']} "
        f"~{s['kept_tokens']:,}",
        f"  tokens        {L['tokens_before']} {s['tokens_before']:,} -> {L['predicted_tokens_after']}"
        f" {s['predicted_tokens_after']:,} ({L['summary_budget_tokens']} "
        f"{s['summary_budget_tokens']:,})",
    ]
    if s["not_smaller"]:
        lines.append(f"  warning       {s['not_smaller_reason']}")
    if s["oversized_entry_ids"]:
        lines.append(f"  oversized     {', '.join(s['oversized_entry_ids'])} (too large to summarize)")
    ops = s["file_ops"]
    if ops["read"] or ops["modified"]:
        lines.append(f"  files         {len(ops['read'])} read, {len(ops['modified'])} modified")
    return lines


def run(args: argparse.Namespace) -> int:
    opened = open_transcript(args.file, overrides_from_args(args))
    opened = replace(opened, resolved=replace(
        opened.resolved, settings=trigger_settings(opened.resolved.settings, args)))
    plan = opened.plan(cut_entry_id=args.cut)
    summary = plan_summary(plan, opened.figures(plan))
    summary.update(trigger_json(opened.transcript, plan, opened.resolved.settings,
                                args.prune_keep_turns))
    if args.json:
        emit_json({**summary, "settings": settings_summary(opened)})
    else:
        emit_lines(_human(args.file, opened, summary))
    return 0
