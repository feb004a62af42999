"""Auditing any summary text against the span a compaction made now would replace.

A summary written by another tool, or one a user edited by hand, deserves the same audit as
one SessionLens wrote: the span is the one the planner would summarize (at the user's cut,
or where the settings put it), so the verdict answers "would this text be a fit
replacement for that history?".
"""

from __future__ import annotations

from sessionlens.engine.contract.templates import IdentifierPolicy
from sessionlens.engine.errors import AuditError, PlanError
from sessionlens.engine.model import Transcript
from sessionlens.engine.plan.compaction_plan import CompactionPlan
from sessionlens.engine.plan.planner import plan_compaction
from sessionlens.engine.settings import DEFAULT_SETTINGS, CompactionSettings

from .report import AUDIT_BUDGET_CHARS, AuditReport, audit_summary

__all__ = ["audit_at_cut"]


def audit_at_cut(transcript: Transcript, summary: str, *, cut_entry_id: str | None = None,
                 settings: CompactionSettings = DEFAULT_SETTINGS,
                 identifier_policy: IdentifierPolicy = "strict",
                 budget_chars: int = AUDIT_BUDGET_CHARS,
                 plan: CompactionPlan | None = None) -> AuditReport:
    """Audit ``summary`` against the span a compaction made now would replace: cut at
    ``cut_entry_id`` (moved to the nearest valid cut, as the planner does), else where the
    planner cuts with ``settings``. Pure; the template is the one the text follows.

    ``plan`` (the faces pass ``OpenedTranscript.plan``, planned with the resolved settings)
    replaces planning here. Raises AuditError when there is nothing to compact."""
    if plan is None:
        try:
            plan = plan_compaction(transcript, settings, cut_entry_id=cut_entry_id,
                                   manual=cut_entry_id is not None)
        except PlanError as exc:
            raise AuditError(f"nothing to audit the summary against: {exc}") from None
    return audit_summary(transcript, summary, summarized_entry_ids=plan.summarized_entry_ids,
                         template="auto", identifier_policy=identifier_policy,
                         budget_chars=budget_chars)
