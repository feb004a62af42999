"""The compaction panel's sentences: the planned cut, a run's progress, its result and audit.

Every number is the engine's (``Figures``, the run record, the audit report) under its
``FIGURE_LABELS`` name; this module only words them, so the panel stays a layout of parts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication

from sessionlens.engine import FIGURE_LABELS

if TYPE_CHECKING:
    from sessionlens.engine import AuditReport, CompactionPlan, Figures, ProgressEvent
    from sessionlens.gui.compaction.run import RunRecord


def _tr(text: str) -> str:
    return QCoreApplication.translate("CompactionPanel", text)


def plan_text(plan: CompactionPlan, f: Figures) -> str:
    """Where the cut falls, what it summarizes, the tokens before and after, and why here."""
    L = FIGURE_LABELS
    kept = f.first_kept_entry_id or _tr("nothing (hard boundary)")
    text = _tr(
        "%L1: %1 · %2 %L2 in %3 chunk(s)%4 · %L3 %5 → %L4 %6 (%L5 %7, %L6 %8; %9)").replace(
        "%L1", L["first_kept_entry_id"]).replace("%L2", L["entries_summarized"]).replace(
        "%L3", L["tokens_before"]).replace("%L4", L["predicted_tokens_after"]).replace(
        "%L5", L["context_window"]).replace("%L6", L["threshold"]).replace(
        "%1", kept).replace("%2", f"{f.entries_summarized:,}").replace(
        "%3", str(len(plan.chunks))).replace(
        "%4", _tr(", split turn") if plan.is_split_turn else "").replace(
        "%5", f"{f.tokens_before:,}").replace("%6", f"{f.predicted_tokens_after:,}").replace(
        "%7", f"{f.context_window:,}").replace("%8", f"{f.threshold:,}").replace(
        "%9", _tr("over: compaction due") if f.should_compact
        else _tr("below: compaction not due yet"))
    if plan.carried_tail_entry_ids:  # they leave the context with this cut too
        text += "\n" + _tr("%1 of the %L2 are the tail the last compaction kept verbatim: "
                           "%2 alone would drop them unsummarized").replace(
            "%L2", L["entries_summarized"]).replace(
            "%1", f"{len(plan.carried_tail_entry_ids):,}").replace("%2", plan.cut_rule)
    return text + "\n" + _tr("Why here: %1").replace("%1", plan.cut_reason)


def _stage_names() -> dict[str, str]:
    return {"start": _tr("Starting"), "chunk": _tr("Summarizing"),
            "streaming": _tr("Receiving"), "merge": _tr("Merging"),
            "turn_prefix": _tr("Split turn"), "retry": _tr("Retrying"),
            "no_retry": _tr("Not retried"), "fallback": _tr("Falling back"),
            "omitted": _tr("Left out"), "done": _tr("Done")}


def progress_texts(e: ProgressEvent) -> tuple[str, str]:
    """(the stage line, the usage line) of one progress event."""
    name = _stage_names().get(e.stage, e.stage)
    stage = f"{name}: {e.message}" if e.message else name
    cost = f"${e.cost:.4f}" if e.cost is not None else _tr("not reported")
    usage = _tr("Sent ~%1 tokens · received ~%2 tokens · cost %3").replace(
        "%1", f"{e.tokens_sent:,}").replace("%2", f"{e.tokens_received:,}").replace("%3", cost)
    return stage, usage


def finished_text(record: RunRecord) -> str:
    """The summary is ready: its size, the tokens before and after, secrets redacted."""
    extra = _tr("; %1 secret(s) redacted on the way out").replace(
        "%1", str(record.redactions)) if record.redactions else ""
    return _tr("Summary ready (%1 characters; %L1 %2 → %L2 %3)%4.").replace(
        "%L1", FIGURE_LABELS["tokens_before"]).replace(
        "%L2", FIGURE_LABELS["tokens_after"]).replace(
        "%1", f"{len(record.result.summary):,}").replace(
        "%2", f"{record.figures.tokens_before:,}").replace(
        "%3", f"{record.tokens_after:,}").replace("%4", extra)


def audit_text(record: RunRecord, report: AuditReport) -> str:
    """The audit's verdict in one line, and what to do next."""
    h = report.headline  # the rule's verdict and the losses, never one "passed"
    note = (_tr("Re-run of compaction %1: compare it with the recorded summary in the "
                "Compare tab.").replace("%1", record.rerun_of) if record.rerun_of
            else _tr("Review Compare and Audit, then Accept or Discard."))
    return _tr("%1. %2. %3 · %L1 %5 → %L2 %6. ").replace(
        "%L1", FIGURE_LABELS["tokens_before"]).replace(
        "%L2", FIGURE_LABELS["tokens_after"]).replace(
        "%1", h.rule).replace("%2", h.losses).replace("%3", h.checks).replace(
        "%5", f"{record.figures.tokens_before:,}").replace(
        "%6", f"{record.tokens_after:,}") + note
