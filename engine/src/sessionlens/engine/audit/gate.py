"""The audit gates the write: a summary that failed its own audit is written only when the
user says so explicitly (``--accept-failed-audit``; in the GUI, Accept shows what failed and
asks), as OpenClaw's safeguard refuses a summary that lacks its required sections.
"""

from __future__ import annotations

from sessionlens.engine.errors import AuditFailedError

from .report import AuditReport

__all__ = ["audit_gate", "failed_checks"]


def failed_checks(report: AuditReport) -> tuple[str, ...]:
    """``"<check>: <detail>"`` for each check the summary failed (what a face shows)."""
    return tuple(f"{c.name}: {c.detail}" for c in report.checks if not c.passed)


def audit_gate(report: AuditReport, *, accept_failed_audit: bool = False) -> tuple[str, ...]:
    """Call before writing: raises ``AuditFailedError`` for a failed audit unless
    ``accept_failed_audit``; then returns one warning per failed check (to be listed with
    the write, never silent). A passed audit returns ()."""
    if report.passed:
        return ()
    failed = failed_checks(report) or ("audit: failed",)
    if not accept_failed_audit:
        raise AuditFailedError(
            "the summary failed its audit (" + "; ".join(failed) + "); nothing was written "
            "(--accept-failed-audit writes it anyway)", failed)
    return tuple(f"written although the audit failed: {line}" for line in failed)
