"""What ``plan`` adds about triggers: which rule made the compaction due, the file-size
guard, the mid-turn precheck and pruning's delay (JSON keys and text lines).

The numbers come from ``plan.triggers``, ``plan.precheck`` and ``plan.pruning_delay``.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from typing import Any

from sessionlens.engine.model import Transcript
from sessionlens.engine.plan.compaction_plan import CompactionPlan
from sessionlens.engine.plan.precheck import PrecheckPoint, preview_precheck
from sessionlens.engine.plan.pruning_delay import PruningDelay, pruning_delay
from sessionlens.engine.plan.triggers import due_trigger, format_bytes
from sessionlens.engine.settings import CompactionSettings

from .args import byte_size, non_negative_int

__all__ = ["add_trigger_arguments", "pruning_json", "trigger_lines", "trigger_json",
           "trigger_settings"]


def add_trigger_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--max-active-bytes", type=byte_size, metavar="SIZE",
                   help="OpenClaw's maxActiveTranscriptBytes: compact once the active "
                        "transcript reaches SIZE (bytes, or e.g. 20mb)")
    p.add_argument("--truncate-after-compaction", action="store_true",
                   help="OpenClaw's truncateAfterCompaction: compaction writes a successor "
                        "file; the size guard (--max-active-bytes) fires only with it")
    p.add_argument("--mid-turn-precheck", action="store_true",
                   help="OpenClaw's midTurnPrecheck.enabled: check before each model call "
                        "inside a turn")
    p.add_argument("--prune-keep-turns", type=non_negative_int, default=3, metavar="N",
                   help="pruning preview: tool results older than the last N user turns are "
                        "cleared (default 3)")


def trigger_settings(settings: CompactionSettings, args: argparse.Namespace
                     ) -> CompactionSettings:
    """``settings`` with the trigger options given on the command line."""
    changes: dict[str, Any] = {}
    if getattr(args, "max_active_bytes", None):
        changes["max_active_transcript_bytes"] = args.max_active_bytes
    if getattr(args, "truncate_after_compaction", False):
        changes["truncate_after_compaction"] = True
    if getattr(args, "mid_turn_precheck", False):
        changes["mid_turn_precheck_enabled"] = True
    return replace(settings, **changes) if changes else settings


def _point(p: PrecheckPoint | None) -> dict[str, Any] | None:
    if p is None:
        return None
    return {"entry_id": p.entry_id, "next_entry_id": p.next_entry_id,
            "estimated_tokens": p.estimated_tokens, "pressure": round(p.pressure, 4)}


def pruning_json(d: PruningDelay) -> dict[str, Any]:
    """The ``pruning`` object: per tool result what the next call trims, and the delay."""
    p = d.preview
    return {
        "keep_turns": p.keep_turns,
        "agent_note": d.agent_note,
        "protected_from_entry_id": p.protected_from_entry_id,
        "tokens_saved": p.tokens_saved,
        "context_tokens": d.context_tokens,
        "pruned_context_tokens": d.pruned_context_tokens,
        "threshold": d.threshold,
        "due_without_pruning": d.due_without_pruning,
        "due_with_pruning": d.due_with_pruning,
        "trigger_delay_tokens": d.delay_tokens,
        "growth_per_turn": None if d.growth_per_turn is None else round(d.growth_per_turn, 1),
        "trigger_delay_turns": None if d.turns_gained is None else round(d.turns_gained, 2),
        "results": [{"entry_id": r.entry_id, "tool_name": r.tool_name, "tokens": r.tokens,
                     "trimmed_tokens": r.trimmed_tokens,
                     "pruned_since_entry_id": r.pruned_since_entry_id} for r in p.results],
    }


def trigger_json(transcript: Transcript, plan: CompactionPlan, settings: CompactionSettings,
                 keep_turns: int = 3) -> dict[str, Any]:
    """``plan --json`` keys: trigger, trigger_reason, triggers_holding, size_guard,
    mid_turn_precheck, pruning."""
    due = due_trigger(transcript, plan, settings)
    pre = preview_precheck(transcript, settings, context_window=plan.context_window)
    delay = pruning_delay(transcript, settings, keep_turns=keep_turns,
                          context_window=plan.context_window, context_tokens=plan.context_tokens)
    return {
        "trigger": due.kind,
        "trigger_reason": due.reason,
        "triggers_holding": list(due.holding),
        "size_guard": {"active_bytes": due.active_bytes, "max_active_bytes": due.max_active_bytes,
                       "truncate_after_compaction": settings.truncate_after_compaction,
                       "measure": due.measure, "latched_bytes": due.latched_bytes,
                       "fires": "size" in due.holding},
        "mid_turn_precheck": {"enabled": pre.enabled, "ends_mid_turn": due.mid_turn,
                              "fires_at": _point(pre.fires_at), "points": len(pre.points),
                              "max_pressure": round(max((p.pressure for p in pre.points),
                                                        default=0.0), 4)},
        "pruning": pruning_json(delay),
    }


def trigger_lines(s: dict[str, Any]) -> list[str]:
    """Readable lines for the keys ``trigger_json`` added."""
    lines = [f"  trigger       {s['trigger']}: {s['trigger_reason']}"]
    guard = s["size_guard"]
    if guard["max_active_bytes"]:
        store = guard.get("measure") == "sqlite-active-history"
        lines.append(f"  size guard    active {'SQLite history' if store else 'transcript'} "
                     f"{format_bytes(guard['active_bytes'])} "
                     f"of {format_bytes(guard['max_active_bytes'])}"
                     + ("" if guard["truncate_after_compaction"] or store else
                        ": does not fire (it needs truncateAfterCompaction: true)"))
    fires = s["mid_turn_precheck"]["fires_at"]
    if fires is not None:
        state = "" if s["mid_turn_precheck"]["enabled"] else " (if it were enabled)"
        lines.append(f"  precheck      would fire{state} after {fires['entry_id']}: "
                     f"~{fires['estimated_tokens']:,} tokens, {fires['pressure']:.0%} of the "
                     "threshold")
    pr = s["pruning"]
    if pr["tokens_saved"]:
        turns = pr["trigger_delay_turns"]
        lines.append(f"  pruning       clears {len(pr['results'])} old tool result(s), "
                     f"~{pr['tokens_saved']:,} tokens: the trigger moves that much later"
                     + (f" (~{turns:g} turns)" if turns is not None else "")
                     + ("; no compaction due after pruning" if pr["due_without_pruning"]
                        and not pr["due_with_pruning"] else ""))
        if pr["agent_note"]:
            lines.append(f"                {pr['agent_note']}")
    return lines
