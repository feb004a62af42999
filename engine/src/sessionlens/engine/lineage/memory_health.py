"""Memory health: every compaction of a session, judged at once and worst first.

"Why did my agent forget?" starts with a list: which compactions lost the most. The numbers
already exist in three places (``forensics``: why each compaction fired and what it replaced;
``audit.recorded``: what each summary kept, per class; ``memory_flush``: whether the flush ran
in each cycle). This joins them per compaction, adds nothing measured a second way, names
the problems as flags and orders the list by how bad they are. ``memory_health`` is pure;
``examine_memory`` runs the three analyses first (it reads a predecessor file when a
compaction's span lives there, and the session store when none is given).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from sessionlens.engine.audit.recorded import ChainAudit, audit_every_compaction
from sessionlens.engine.audit.report import AuditReport, ClassCoverage
from sessionlens.engine.errors import LoadError
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.model import Entry, Transcript
from sessionlens.engine.plan.precheck import PrecheckPreview, preview_precheck

from .flush_store import session_record
from .forensics import CompactionForensics, analyze_compactions
from .memory_flush import FLUSH_REASON_TEXT, FlushCycle, MemoryFlushReport, analyze_memory_flush
from .store_facts import flush_record_text, size_guard_text

if TYPE_CHECKING:
    from sessionlens.engine.sessions.store import StoreRecord
    from sessionlens.engine.settings import CompactionSettings
    from sessionlens.engine.tokens.token_report import TokenReport

__all__ = ["HEALTH_FLAG_TEXT", "CompactionHealth", "HealthFlag", "MemoryHealth", "Severity",
           "examine_memory", "memory_health", "memory_health_json", "trigger_reason"]

HealthFlag = Literal["total-loss", "audit-failed", "kept-tail-lost", "summary-not-smaller",
                     "far-below-threshold", "summary-growth", "flush-missed", "flush-skipped"]
Severity = Literal["critical", "warning", "notice", "ok"]

#: Readable words for each flag (the CLI prints them, the GUI shows them).
HEALTH_FLAG_TEXT: dict[str, str] = {
    "total-loss": "fallback placeholder: total loss",
    "audit-failed": "audit failed",
    "kept-tail-lost": "dropped what the previous compaction kept verbatim",
    "summary-not-smaller": "summary not smaller than what it replaced",
    "far-below-threshold": "fired far below the threshold",
    "summary-growth": "summary grew past its predecessor",
    "flush-missed": "memory flush missed",
    "flush-skipped": "memory flush skipped",
}
_SEVERITY_RANK: dict[str, int] = {"critical": 0, "warning": 1, "notice": 2, "ok": 3}
_FLAG_SEVERITY: dict[str, Severity] = {
    "total-loss": "critical", "audit-failed": "warning", "kept-tail-lost": "warning",
    "flush-missed": "warning",
    "summary-not-smaller": "warning", "far-below-threshold": "notice",
    "summary-growth": "notice", "flush-skipped": "notice"}
#: Skips that are no problem: the flush was not due, or does not exist for the agent.
_HARMLESS_SKIPS = ("below-soft-threshold", "not-openclaw")


@dataclass(frozen=True, slots=True)
class CompactionHealth:
    """One compaction as the memory-health view lists it."""

    compaction_id: str
    #: 1-based position in file order ("compaction 3").
    number: int
    line: int
    timestamp: str | None
    on_active_path: bool
    trigger: str
    trigger_reason: str
    #: Forensics' estimate of what the summary stands in for.
    tokens_replaced: int
    tokens_before_recorded: int | None
    summary_tokens: int
    summary_chars: int
    coverage: tuple[ClassCoverage, ...]
    audit_passed: bool
    dropped: int
    flags: tuple[HealthFlag, ...]
    #: One readable sentence per flag, in the order of ``flags``.
    flag_details: tuple[str, ...]
    severity: Severity
    #: What the memory flush did in the cycle this compaction closed (None: off the path).
    flush_status: str | None
    flush_reason: str | None
    flush_detail: str
    #: The predecessor file the audited span was read from, or None (this file).
    span_source: Path | None
    #: The audit itself (the Audit view shows it whole).
    audit: AuditReport
    #: The context after it as the agent measured it (Claude Code's ``postTokens``), or None.
    tokens_after_recorded: int | None = None


@dataclass(frozen=True, slots=True)
class MemoryHealth:
    """Every compaction of one transcript, worst first, with the flush figures."""

    path: Path
    compactions: tuple[CompactionHealth, ...]
    #: The context level the memory flush runs at, None when no flush applies (not an
    #: OpenClaw file, or ``memoryFlush.enabled`` false).
    soft_threshold: int | None
    soft_threshold_tokens: int
    compaction_threshold: int
    #: Prompt entry ids of the flush turns found in the file.
    flush_turn_ids: tuple[str, ...]
    flush_pattern: str | None
    #: Where the mid-turn precheck would fire now (a tool result's id), when it is enabled.
    precheck_fires_at: str | None = None
    #: A store session: where its flush is recorded (``store_facts.flush_record_text``).
    flush_record: str | None = None
    #: The size guard's verdict now, when maxActiveTranscriptBytes is set.
    size_guard: str | None = None

    @property
    def worst(self) -> CompactionHealth | None:
        return self.compactions[0] if self.compactions else None

    def get(self, compaction_id: str) -> CompactionHealth | None:
        return next((c for c in self.compactions if c.compaction_id == compaction_id), None)


def _recorded_after(entry: Entry) -> int | None:
    after = entry.extra.get("post_tokens")
    return after if type(after) is int else None


def trigger_reason(f: CompactionForensics) -> str:
    """Why forensics named this trigger, in words with its numbers."""
    level = f"context ~{f.context_tokens:,} = {f.threshold_share:.0%} of the threshold {f.threshold:,}"
    if f.trigger == "overflow-retry":
        return f"retried after the provider's context-overflow error in entry {f.overflow_entry_id}"
    if f.trigger == "mid-turn-precheck":
        return f"mid-turn precheck between tool results and the next model call ({level})"
    if f.trigger == "threshold":
        return f"{level} after a turn"
    if f.trigger == "size-guard":
        return f"the active transcript reached {f.active_bytes:,} bytes (maxActiveTranscriptBytes)"
    return f"no automatic trigger explains it: a manual /compact ({level})"


def _flags(f: CompactionForensics, report: AuditReport,
           cycle: FlushCycle | None) -> list[tuple[HealthFlag, str]]:
    out: list[tuple[HealthFlag, str]] = []
    content = report.check("content")
    if report.total_loss or f.total_loss:
        out.append(("total-loss", content.detail))
    elif not report.passed:
        failed = [c.name for c in report.checks if not c.passed]
        out.append(("audit-failed", f"failed checks: {', '.join(failed)}"))
    carried = set(report.carried_tail_entry_ids)
    lost = [d for d in report.dropped if carried.intersection(d.entry_ids)]
    if lost:  # replay took that tail out here, and the summary does not carry it
        hit = carried.intersection(i for d in lost for i in d.entry_ids)
        out.append(("kept-tail-lost", f"{len(lost)} specific(s) from {len(hit)} of the "
                                      f"{len(carried)} entries the previous compaction kept "
                                      "verbatim are not in this summary"))
    if "summary-not-smaller" in f.flags:
        out.append(("summary-not-smaller", f"summary ~{f.summary_tokens:,} tokens for "
                                           f"~{f.replaced_tokens:,} replaced"))
    if "far-below-threshold" in f.flags:
        out.append(("far-below-threshold", trigger_reason(f)))
    if "summary-growth" in f.flags:
        out.append(("summary-growth", f"~{f.summary_tokens:,} tokens, the previous summary "
                                      f"~{f.previous_summary_tokens or 0:,}"))
    if cycle is not None and cycle.status == "missed":
        out.append(("flush-missed", f"{FLUSH_REASON_TEXT.get(cycle.reason or '', '')}: "
                                    f"{cycle.detail}"))
    elif cycle is not None and cycle.status == "skipped" and cycle.reason not in _HARMLESS_SKIPS:
        out.append(("flush-skipped", f"{FLUSH_REASON_TEXT.get(cycle.reason or '', '')}: "
                                     f"{cycle.detail}"))
    return out


def _flush_applies(flush: MemoryFlushReport) -> bool:
    return flush.enabled and not any(c.reason == "not-openclaw" for c in flush.cycles)


def memory_health(transcript: Transcript, forensics: Sequence[CompactionForensics],
                  audits: Mapping[str, ChainAudit], flush: MemoryFlushReport,
                  precheck: PrecheckPreview | None = None) -> MemoryHealth:
    """Join the three analyses per compaction and sort worst first (pure).

    ``forensics`` is ``analyze_compactions``, ``audits`` ``audit_every_compaction`` and
    ``flush`` ``analyze_memory_flush`` of the same transcript (``precheck``:
    ``preview_precheck``); a compaction missing from ``audits`` is left out."""
    cycles = {c.compaction_id: c for c in flush.cycles if c.compaction_id is not None}
    rows: list[CompactionHealth] = []
    for number, f in enumerate(forensics, 1):
        audited = audits.get(f.compaction_id)
        if audited is None:
            continue
        report = audited.report
        cycle = cycles.get(f.compaction_id)
        flagged = _flags(f, report, cycle)
        severity: Severity = min((_FLAG_SEVERITY[k] for k, _ in flagged),
                                 key=_SEVERITY_RANK.__getitem__, default="ok")
        entry = transcript.entry(f.compaction_id)
        rows.append(CompactionHealth(
            compaction_id=f.compaction_id, number=number, line=f.line,
            timestamp=entry.timestamp, on_active_path=f.on_active_path, trigger=f.trigger,
            trigger_reason=trigger_reason(f), tokens_replaced=f.replaced_tokens,
            tokens_before_recorded=f.recorded_tokens_before, summary_tokens=f.summary_tokens,
            summary_chars=report.summary_chars,
            coverage=tuple(c for c in report.coverage if c.total), audit_passed=report.passed,
            dropped=len(report.dropped), flags=tuple(k for k, _ in flagged),
            flag_details=tuple(d for _, d in flagged), severity=severity,
            flush_status=cycle.status if cycle is not None else None,
            flush_reason=cycle.reason if cycle is not None else None,
            flush_detail=cycle.detail if cycle is not None else "",
            span_source=audited.span_source, audit=report,
            tokens_after_recorded=_recorded_after(entry)))
    rows.sort(key=lambda c: (_SEVERITY_RANK[c.severity], -c.tokens_replaced, -len(c.flags),
                             c.number))
    applies = _flush_applies(flush)
    return MemoryHealth(
        path=transcript.path, compactions=tuple(rows),
        soft_threshold=flush.soft_threshold if applies else None,
        soft_threshold_tokens=flush.soft_threshold_tokens,
        compaction_threshold=flush.compaction_threshold, flush_turn_ids=flush.turn_ids,
        flush_pattern=flush.pattern,
        precheck_fires_at=(precheck.fires_at.entry_id if precheck is not None and precheck.enabled
                           and precheck.fires_at is not None else None))


def examine_memory(transcript: Transcript, settings: CompactionSettings, *,
                   tokens: TokenReport | None = None,
                   store_record: StoreRecord | None | Literal["auto"] = "auto",
                   window_source: str | None = None,
                   flush: MemoryFlushReport | None = None,
                   load: Callable[[Path], Transcript] = load_transcript) -> MemoryHealth:
    """Run forensics, every audit and the flush analysis, then ``memory_health``.

    ``settings`` are the resolved ones (window filled in). ``store_record`` "auto" reads the
    ``sessions.json`` beside the file (an unreadable one counts as none); a ``flush`` report
    already made (the CLI's) is used as it is."""
    if flush is None:
        if store_record == "auto":
            try:
                store_record = session_record(transcript)
            except LoadError:
                store_record = None
        flush = analyze_memory_flush(transcript, settings, store_record=store_record,
                                     tokens=tokens, window_source=window_source)
    forensics = analyze_compactions(
        transcript, replace(settings, context_window=flush.context_window), tokens)
    precheck = preview_precheck(transcript, settings, tokens=tokens,
                                context_window=flush.context_window)
    health = memory_health(transcript, forensics,
                           audit_every_compaction(transcript, load=load), flush, precheck)
    return replace(health, flush_record=flush_record_text(transcript, flush),
                   size_guard=size_guard_text(transcript, settings))


def memory_health_json(health: MemoryHealth) -> dict[str, Any]:
    """The ``memory_health`` object of ``audit --json``."""
    return {
        "soft_threshold": health.soft_threshold,
        "flush_turns": list(health.flush_turn_ids),
        "flush_pattern": health.flush_pattern,
        "precheck_fires_at": health.precheck_fires_at,
        "flush_record": health.flush_record,
        "size_guard": health.size_guard,
        "compactions": [{
            "id": c.compaction_id, "number": c.number, "line": c.line,
            "timestamp": c.timestamp, "on_active_path": c.on_active_path,
            "trigger": c.trigger, "trigger_reason": c.trigger_reason,
            "tokens_replaced": c.tokens_replaced, "summary_tokens": c.summary_tokens,
            "summary_chars": c.summary_chars,
            "tokens_before_recorded": c.tokens_before_recorded,
            "tokens_after_recorded": c.tokens_after_recorded,
            "coverage": {k.cls: {"found": k.found, "total": k.total} for k in c.coverage},
            "audit_passed": c.audit_passed, "dropped": c.dropped, "flags": list(c.flags),
            "flag_details": list(c.flag_details), "severity": c.severity,
            "flush": {"status": c.flush_status, "reason": c.flush_reason,
                      "detail": c.flush_detail},
        } for c in health.compactions],
    }
