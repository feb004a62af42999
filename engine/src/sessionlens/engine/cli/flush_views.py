"""The memory-flush report as ``inspect``/``audit`` print it (JSON object and text lines).

Both commands take the same two options (``--store``, ``--context-window``) and read the
report from ``lineage.memory_flush``; this module only renders it.
"""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sessionlens.engine.errors import LoadError
from sessionlens.engine.lineage.flush_store import session_record
from sessionlens.engine.lineage.memory_flush import (
    FLUSH_REASON_TEXT,
    MemoryFlushReport,
    analyze_memory_flush,
)
from sessionlens.engine.model import Transcript
from sessionlens.engine.tokens.token_report import TokenReport

from .args import positive_int
from .output import warn

if TYPE_CHECKING:
    from sessionlens.engine.opened import ResolvedSettings

__all__ = ["add_flush_arguments", "flush_report", "memory_flush_json", "resolved_settings_for", "memory_flush_lines"]


def add_flush_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--store", type=Path, metavar="SESSIONS_JSON",
                   help="OpenClaw session store with the flush record (default: the "
                        "sessions.json beside the transcript)")
    p.add_argument("--context-window", type=positive_int, metavar="N",
                   help="model context window (default: the store's contextTokens, else the "
                        "transcript's model)")


def resolved_settings_for(transcript: Transcript, args: argparse.Namespace) -> ResolvedSettings:
    """The settings ``plan`` and ``compact`` would use for this file (one resolution):
    ``--context-window``, the governing ``openclaw.json``, the store's ``contextTokens``,
    the transcript's model."""
    from sessionlens.engine.opened import (
        Overrides,
        config_for,
        resolve_settings,
        store_window_for,
    )

    store = getattr(args, "store", None)
    resolved = resolve_settings(
        transcript, Overrides(context_window=getattr(args, "context_window", None)),
        config_for(transcript.path), store_window_for(transcript, store))
    return resolved


def flush_report(transcript: Transcript, resolved: ResolvedSettings, args: argparse.Namespace,
                 tokens: TokenReport | None = None) -> MemoryFlushReport:
    """The report for the options ``add_flush_arguments`` added, on the resolved settings."""
    store = getattr(args, "store", None)
    try:
        record = session_record(transcript, store)
    except LoadError as exc:
        if store is not None:
            raise  # asked for by name: a broken store is an error
        warn(f"warning: the session store beside the transcript was not read: {exc}")
        record = None
    return analyze_memory_flush(transcript, resolved.settings, store_record=record, tokens=tokens,
                                window_source=resolved.context_window.source)


def memory_flush_json(r: MemoryFlushReport) -> dict[str, Any]:
    """The ``memory_flush`` object of ``inspect --json`` and ``audit --json``."""
    store = r.store
    return {
        "enabled": r.enabled,
        "applies": r.applies,
        "headline": r.headline,
        "turns": list(r.turn_ids),
        "turn_details": [{"prompt_entry_id": t.prompt_entry_id, "entry_ids": list(t.entry_ids),
                          "line": t.line, "ended_at_ms": t.ended_at_ms, "silent": t.silent,
                          "written_files": list(t.written_files), "evidence": t.evidence}
                         for t in r.turns],
        "store": None if store is None else {
            "memoryFlushAt": store.memory_flush_at,
            "memoryFlushCompactionCount": store.memory_flush_compaction_count,
            "compactionCount": store.compaction_count, "session_key": store.session_key,
            "kind": store.kind, "failure_count": store.failure_count,
            "context_window": store.context_window, "matched_turn": store.matched_turn_id,
            "lag_ms": store.lag_ms, "current_cycle_flushed": store.current_cycle_flushed},
        "soft_threshold": r.soft_threshold,
        "soft_threshold_tokens": r.soft_threshold_tokens,
        "compaction_threshold": r.compaction_threshold,
        "context_window": r.context_window,
        "window_source": r.window_source,
        "force_flush_bytes": r.force_flush_bytes,
        "cycles": [{"index": c.index, "compaction_id": c.compaction_id,
                    "compaction_trigger": c.compaction_trigger,
                    "start_entry_id": c.start_entry_id, "status": c.status, "reason": c.reason,
                    "reason_text": FLUSH_REASON_TEXT.get(c.reason or ""), "detail": c.detail,
                    "flush_turn_ids": list(c.flush_turn_ids), "due_entry_id": c.due_entry_id,
                    "peak_tokens": c.peak_tokens, "tokens_at_flush": c.tokens_at_flush}
                   for c in r.cycles],
        "pattern": r.pattern,
    }


def _when(ms: int | None) -> str:
    if ms is None:
        return "never"
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def memory_flush_lines(r: MemoryFlushReport) -> list[str]:
    """Readable lines: thresholds, the store's record, one line per cycle."""
    if not r.applies:  # pi, Claude Code, Codex: no flush to report, cycle by cycle or not
        return [f"  memory flush  {r.headline}"]
    lines = [f"  memory flush  {r.headline[:-1]}; window {r.context_window:,}: "
             f"{r.window_source}); {len(r.turns)} flush turn(s)"]
    s = r.store
    if s is None:
        lines.append("    store         no session store record")
    else:
        match = f", flush turn {s.matched_turn_id}" if s.matched_turn_id else ""
        # 2026.8+ rows say memoryFlush {kind, compactionCount}, with no time
        at = (f"memoryFlush {s.kind} (no time recorded)" if s.kind and s.memory_flush_at is None
              else f"memoryFlushAt {_when(s.memory_flush_at)}")
        lines.append(f"    store         {at}{match}; "
                     f"memoryFlushCompactionCount {s.memory_flush_compaction_count} of "
                     f"compactionCount {s.compaction_count}"
                     + (" (this cycle counts as flushed)" if s.current_cycle_flushed else ""))
    for c in r.cycles:
        where = c.compaction_id or "(open)"
        trig = f" {c.compaction_trigger}" if c.compaction_trigger else ""
        label = c.status.upper() if c.status in ("missed", "due") else c.status
        why = f" - {FLUSH_REASON_TEXT[c.reason]}" if c.reason else ""
        lines.append(f"    cycle {c.index:<3} {where}{trig}: {label}{why}: {c.detail}")
    if r.pattern == "every-other-cycle":
        lines.append("    pattern       the flush runs every other cycle (OpenClaw #12590)")
    elif r.pattern == "never-ran":
        lines.append("    pattern       the flush never ran in this transcript")
    return lines
