"""What one compaction run was asked to do (``RunOptions``) and what it produced (``RunRecord``).

Plain frozen data shared by the controller and the views; ``RunRecord.record()`` turns a run
into the engine's ``CompactionRecord`` for writing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from sessionlens.engine import CompactionRecord

if TYPE_CHECKING:
    from sessionlens.engine import (
        AuditReport,
        CompactionPlan,
        IdentifierPolicy,
        ProviderProfile,
        SummaryResult,
        Transcript,
    )


@dataclass(frozen=True, slots=True)
class RunOptions:
    """What the user chose in the panel for one run."""

    profile: ProviderProfile
    instructions: str = ""
    template: str = "structured"
    identifier_policy: IdentifierPolicy = "strict"
    #: One identifier per line (custom policy): sent as the policy text and audited as a list.
    custom_identifiers: str = ""
    keep_recent_tokens: int = 20_000
    reserve_tokens: int = 16_384

    @property
    def custom_list(self) -> tuple[str, ...]:
        return tuple(s.strip() for s in self.custom_identifiers.splitlines() if s.strip())

    @property
    def is_remote(self) -> bool:
        return bool(self.profile.kind != "offline")


@dataclass(frozen=True, slots=True)
class RunRecord:
    """One finished run and everything the compare and audit views show about it."""

    number: int
    options: RunOptions
    transcript: Transcript
    plan: CompactionPlan
    result: SummaryResult
    #: Rough size after compaction: the kept tail plus the summary (chars / 4).
    tokens_after: int
    report: AuditReport | None = None
    #: A re-run of a recorded compaction: its id, summary and audit.
    rerun_of: str | None = None
    recorded_summary: str | None = None
    recorded_report: AuditReport | None = None
    redactions: int = 0

    @property
    def summarized_ids(self) -> tuple[str, ...]:
        return self.plan.summarized_entry_ids

    def record(self) -> CompactionRecord:
        """What the engine writes for this run."""
        r = self.result
        return CompactionRecord(
            summary=r.summary, first_kept_entry_id=self.plan.first_kept_entry_id,
            tokens_before=int(self.plan.tokens_before), tokens_after=self.tokens_after,
            file_ops=r.file_ops, summarized_entry_ids=self.summarized_ids, provider=r.provider,
            model=r.model, template=r.template,
            audit_passed=self.report.passed if self.report is not None else None,
            instructions=r.instructions)
