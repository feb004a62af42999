"""``sessionlens plan FILE``: where a compaction would cut, what it would summarize and keep.

Runs the pure planner with OpenClaw's defaults (or the values given) and prints the plan: with
``--json`` one object carrying DESIGN.md's keys, otherwise a short readable account.
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
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.plan.cutpoints import CUT_RULES
from sessionlens.engine.plan.planner import CompactionPlan, plan_compaction
from sessionlens.engine.settings import DEFAULT_SETTINGS

__all__ = ["plan_summary", "register", "run"]


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("plan", help="preview a compaction: cut point, summarized and kept entries")
    p.add_argument("file", type=Path, help="transcript file (.jsonl)")
    p.add_argument("--keep-recent", type=non_negative_int, metavar="N",
                   help=f"tokens to keep verbatim (default {DEFAULT_SETTINGS.keep_recent_tokens})")
    p.add_argument("--reserve", type=non_negative_int, metavar="N",
                   help=f"reserveTokens (default {DEFAULT_SETTINGS.reserve_tokens}; raised to the "
                        f"floor of {DEFAULT_SETTINGS.reserve_tokens_floor} unless --reserve-floor 0)")
    p.add_argument("--reserve-floor", type=non_negative_int, metavar="N",
                   help="OpenClaw's reserveTokensFloor (0 disables it)")
    p.add_argument("--context-window", type=positive_int, metavar="N",
                   help="model context window (default: from the model in the transcript)")
    p.add_argument("--cut", metavar="ENTRY_ID", help="cut here (moved to the nearest valid point)")
    p.add_argument("--manual", action="store_true",
                   help="plan a manual /compact (without --keep-recent: nothing is kept)")
    p.add_argument("--rule", choices=CUT_RULES, help="cut rule (default openclaw-2026)")
    add_trigger_arguments(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def plan_summary(plan: CompactionPlan) -> dict[str, Any]:
    """The ``plan --json`` object."""
    return {
        "should_compact": plan.should_compact,
        "context_tokens": plan.context_tokens,
        "context_window": plan.context_window,
        "threshold": plan.threshold,
        "first_kept_entry_id": plan.first_kept_entry_id,
        "hard_boundary": plan.hard_boundary,
        "is_split_turn": plan.is_split_turn,
        "turn_start_entry_id": plan.turn_start_entry_id,
        "summarize_entry_ids": list(plan.summarize_entry_ids),
        "turn_prefix_entry_ids": list(plan.turn_prefix_entry_ids),
        "kept_entry_ids": list(plan.kept_entry_ids),
        "previous_compaction_id": plan.previous_compaction_id,
        "tokens_before": plan.tokens_before,
        "summary_budget_tokens": plan.summary_budget_tokens,
        "kept_tokens": plan.kept_tokens,
        "predicted_tokens_after": plan.predicted_tokens_after,
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


def _human(path: Path, s: dict[str, Any]) -> list[str]:
    kept = s["first_kept_entry_id"] or "(nothing: hard boundary)"
    lines = [
        f"{path}",
        f"  context       {s['context_tokens']:,} of {s['context_window']:,} tokens, threshold "
        f"{s['threshold']:,} -> {'compact now' if s['should_compact'] else 'no compaction due'}",
        *(trigger_lines(s) if "trigger" in s else []),
        f"  cut           first kept {kept}  ({s['cut_rule']}, keep {s['keep_recent_tokens']:,})",
        f"                {s['cut_reason']}",
        f"  summarize     {len(s['summarize_entry_ids']):,} entries in {len(s['chunks'])} chunk(s)"
        f" of at most {s['max_chunk_tokens']:,} tokens",
    ]
    if s["is_split_turn"]:
        lines.append(f"  split turn    opened by {s['turn_start_entry_id']}; "
                     f"{len(s['turn_prefix_entry_ids'])} entries summarized as the turn prefix")
    lines += [
        f"  keep          {len(s['kept_entry_ids']):,} entries, ~{s['kept_tokens']:,} tokens",
        f"  tokens        before {s['tokens_before']:,} -> after about "
        f"{s['predicted_tokens_after']:,} (summary budget {s['summary_budget_tokens']:,})",
    ]
    if s["oversized_entry_ids"]:
        lines.append(f"  oversized     {', '.join(s['oversized_entry_ids'])} (too large to summarize)")
    ops = s["file_ops"]
    if ops["read"] or ops["modified"]:
        lines.append(f"  files         {len(ops['read'])} read, {len(ops['modified'])} modified")
    return lines


def run(args: argparse.Namespace) -> int:
    settings = DEFAULT_SETTINGS
    changes: dict[str, Any] = {}
    if args.reserve is not None:
        changes["reserve_tokens"] = args.reserve
    if args.reserve_floor is not None:
        changes["reserve_tokens_floor"] = args.reserve_floor
    if args.context_window is not None:
        changes["context_window"] = args.context_window
    if changes:
        settings = replace(settings, **changes)
    settings = trigger_settings(settings, args)
    transcript = load_transcript(args.file)
    plan = plan_compaction(transcript, settings, cut_entry_id=args.cut, manual=args.manual,
                           keep_recent_tokens=args.keep_recent, cut_rule=args.rule)
    summary = plan_summary(plan)
    summary.update(trigger_json(transcript, plan, settings, args.prune_keep_turns))
    if args.json:
        emit_json(summary)
    else:
        emit_lines(_human(args.file, summary))
    return 0
