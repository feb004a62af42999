"""What one compaction run was asked to do (``RunOptions``) and what it produced (``RunRecord``).

Plain frozen data shared by the controller and the views. A record holds the engine's
``CompactionOutcome`` (summary, audit, attempts) and the engine's dry runs of the write, so
the panel, Compare, Audit and Accept all show the engine's figures and nothing of their own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sessionlens.engine import CompactionOptions

if TYPE_CHECKING:
    from sessionlens.engine import (
        AuditReport,
        CompactionOutcome,
        CompactionPlan,
        Figures,
        IdentifierPolicy,
        ProviderProfile,
        SummaryResult,
        Transcript,
        WriteMode,
        WritePlan,
    )


@dataclass(frozen=True, slots=True)
class RunOptions:
    """What the user chose in the panel for one run (the sizes live in the session's settings)."""

    profile: ProviderProfile
    instructions: str = ""
    template: str = "structured"
    identifier_policy: IdentifierPolicy = "strict"
    #: One identifier per line (custom policy): sent as the policy text and audited as a list.
    custom_identifiers: str = ""
    #: Regenerations after a failed audit (0-3), as ``compact --quality-retries``.
    quality_retries: int = 0

    @property
    def custom_list(self) -> tuple[str, ...]:
        return tuple(s.strip() for s in self.custom_identifiers.splitlines() if s.strip())

    @property
    def is_remote(self) -> bool:
        return bool(self.profile.kind != "offline")

    def engine_options(self) -> CompactionOptions:
        """The engine's options for this run (the same object ``compact`` builds)."""
        return CompactionOptions(
            instructions=self.instructions, template=self.template,
            identifier_policy=self.identifier_policy,
            custom_identifier_instructions=self.custom_identifiers.strip(),
            custom_identifiers=self.custom_list, quality_retries=self.quality_retries)


#: ``write_plans`` key of the successor that keeps a retry storm's copies (prepared only
#: when the default successor drops some).
KEEP_RETRY_COPIES = "successor-keeping-retry-copies"


@dataclass(frozen=True, slots=True)
class RunRecord:
    """One finished run and everything the compare, audit and accept views show about it."""

    number: int
    options: RunOptions
    transcript: Transcript
    outcome: CompactionOutcome
    #: The session's figures for the plan this run followed.
    figures: Figures
    #: The engine's dry run per write mode, or why that mode cannot be written.
    write_plans: dict[str, WritePlan | str] = field(default_factory=dict)
    #: A re-run of a recorded compaction: its id, summary and audit.
    rerun_of: str | None = None
    recorded_summary: str | None = None
    recorded_report: AuditReport | None = None
    redactions: int = 0

    @property
    def plan(self) -> CompactionPlan:
        return self.outcome.plan

    @property
    def result(self) -> SummaryResult:
        return self.outcome.result

    @property
    def report(self) -> AuditReport:
        return self.outcome.audit

    @property
    def summarized_ids(self) -> tuple[str, ...]:
        return self.plan.summarized_entry_ids

    def write_plan(self, mode: WriteMode | str = "successor") -> WritePlan | None:
        """The dry run for ``mode`` (or ``KEEP_RETRY_COPIES``), None while pending or refused."""
        prepared = self.write_plans.get(mode)
        return None if prepared is None or isinstance(prepared, str) else prepared

    @property
    def tokens_after(self) -> int:
        """Context after the write: measured on the successor the write would produce (what
        ``inspect`` will report on it); the engine's estimate where nothing can be written."""
        prepared = self.write_plan("successor") or self.write_plan("append")
        return prepared.tokens_after if prepared is not None else self.outcome.tokens_after
