"""One compaction run, end to end: summarize a plan, audit the summary, retry on failure.

The CLI and the GUI both run compactions; this is the one place that strings summarize,
audit and the quality loop together, so the two faces cannot drift apart. Writing the result
is a separate, explicit step (``compaction_record`` + ``persist.write_compaction``) because
the GUI writes only after the user accepts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from .audit.quality_loop import QualityOutcome, run_with_quality_loop
from .audit.report import AuditReport, audit_summary
from .contract.templates import IdentifierPolicy
from .model import Transcript
from .persist.successor import CompactionRecord
from .plan.planner import CompactionPlan
from .summarize.providers import FallbackChain, Provider, RetryPolicy
from .summarize.runner import CancelCheck, ProgressEvent, SummaryResult, summarize_plan
from .tokens.estimate import estimate_tokens_from_chars

__all__ = [
    "CompactionOptions",
    "CompactionOutcome",
    "compaction_record",
    "run_compaction",
    "tokens_after",
]


@dataclass(frozen=True, slots=True)
class CompactionOptions:
    """What the user chose for this run (focus instructions, template, identifier policy)."""

    instructions: str = ""
    template: str = "structured"
    identifier_policy: IdentifierPolicy = "strict"
    custom_identifier_instructions: str = ""
    #: With the "custom" policy: the identifiers the audit must find in the summary.
    custom_identifiers: tuple[str, ...] = ()
    #: Regenerations after a failed audit (0 = audit only; capped at 3 like OpenClaw).
    quality_retries: int = 0
    #: Send the transcript's secrets unredacted (an explicit opt-out; default redacts).
    send_secrets: bool = False
    #: Secret values the user chose to send as they are (the rest stays redacted).
    keep_secrets: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class CompactionOutcome:
    """A finished run: the plan it followed, the kept summary, its audit and all attempts."""

    plan: CompactionPlan
    result: SummaryResult
    audit: AuditReport
    quality: QualityOutcome
    #: Predicted context after the compaction: kept tail plus the summary (chars/4).
    tokens_after: int

    @property
    def summary(self) -> str:
        return self.result.summary

    @property
    def summarized_entry_ids(self) -> tuple[str, ...]:
        return self.plan.summarized_entry_ids


def tokens_after(plan: CompactionPlan, summary: str) -> int:
    """Predicted context after writing ``summary`` for ``plan``: kept tail plus the summary."""
    return int(plan.kept_tokens) + estimate_tokens_from_chars(len(summary))


async def run_compaction(
    transcript: Transcript,
    plan: CompactionPlan,
    providers: Provider | FallbackChain | Sequence[Provider],
    options: CompactionOptions = CompactionOptions(),
    *,
    on_progress: Callable[[ProgressEvent], None] | None = None,
    cancel: CancelCheck | None = None,
    retry: RetryPolicy | None = None,
) -> CompactionOutcome:
    """Summarize ``plan`` and audit it; on a failed audit regenerate with the findings.

    Raises ``SummarizationCancelled`` on cancel and ``ProviderError`` when every provider
    fails; nothing is written either way.
    """
    results: dict[str, SummaryResult] = {}

    async def generate(feedback: str | None) -> str:
        instructions = options.instructions
        if feedback:
            instructions = f"{instructions}\n\n{feedback}".strip()
        result = await summarize_plan(
            transcript, plan, providers, instructions=instructions, template=options.template,
            identifier_policy=options.identifier_policy,
            custom_identifier_instructions=options.custom_identifier_instructions,
            on_progress=on_progress, cancel=cancel, retry=retry,
            send_secrets=options.send_secrets, keep_secrets=options.keep_secrets)
        # The user's own instructions are what the record keeps, not the audit feedback.
        results[result.summary] = replace(result, instructions=options.instructions)
        return result.summary

    reports: list[AuditReport] = []

    def audit(summary: str) -> AuditReport:
        # every attempt summarizes the same span: its entities are extracted once
        report = audit_summary(
            transcript, summary, summarized_entry_ids=plan.summarized_entry_ids,
            template=options.template, identifier_policy=options.identifier_policy,
            custom_identifiers=options.custom_identifiers,
            entities=reports[0].entities if reports else None)
        reports.append(report)
        return report

    quality = await run_with_quality_loop(
        generate, audit, max_retries=options.quality_retries)  # the loop clamps it to 0..3
    result = results[quality.summary]
    return CompactionOutcome(plan=plan, result=result, audit=quality.report, quality=quality,
                             tokens_after=tokens_after(plan, quality.summary))


def compaction_record(outcome: CompactionOutcome) -> CompactionRecord:
    """What ``persist.write_compaction`` needs to write this outcome."""
    result = outcome.result
    return CompactionRecord(
        summary=result.summary, first_kept_entry_id=outcome.plan.first_kept_entry_id,
        tokens_before=outcome.plan.tokens_before, tokens_after=outcome.tokens_after,
        file_ops=result.file_ops, summarized_entry_ids=outcome.summarized_entry_ids,
        provider=result.provider, model=result.model, template=result.template,
        audit_passed=outcome.audit.passed, instructions=result.instructions)
