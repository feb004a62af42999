"""The quality loop: regenerate a failing summary with the audit's findings as feedback.

OpenClaw's safeguard retries a summary that fails its audit (``qualityGuard``, at most 3
retries, keep the last good one when a retry throws; transcript-format.md §3.6). SessionLens
does the same with one difference: it keeps the *best* attempt (most checks passed, then
fewest missing identifiers, then fewest dropped specifics) rather than simply the last, and
says which attempt that was, so a user can see whether the retries helped.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from sessionlens.engine.contract.templates import QUALITY_FEEDBACK_HEAD
from sessionlens.engine.errors import SummarizationCancelled

from .report import AuditReport

__all__ = [
    "COPY_IDENTIFIERS",
    "MAX_QUALITY_RETRIES",
    "QualityAttempt",
    "QualityOutcome",
    "quality_feedback",
    "run_with_quality_loop",
]

#: Hard cap on regenerations after the first attempt (as OpenClaw's qualityGuard).
MAX_QUALITY_RETRIES = 3
#: The feedback line that lists the identifiers a retry must copy (the offline summarizer
#: reads it back to carry them).
COPY_IDENTIFIERS = "- copy these identifiers literally: "


@dataclass(frozen=True, slots=True)
class QualityAttempt:
    """One generation: its summary and audit, or the error it raised."""

    number: int
    summary: str | None
    report: AuditReport | None
    #: The feedback this attempt was generated with (None for the first one).
    feedback: str | None = None
    error: str | None = None


@dataclass(frozen=True, slots=True)
class QualityOutcome:
    """The summary kept, its audit, and every attempt that led there."""

    summary: str
    report: AuditReport
    #: 1-based number of the attempt that was kept.
    kept_attempt: int
    attempts: tuple[QualityAttempt, ...]
    #: Why the loop stopped before its retries ran out without a pass (a retry gave the
    #: very text of an earlier attempt: a deterministic summarizer cannot do better).
    note: str | None = None

    @property
    def passed(self) -> bool:
        return self.report.passed

    @property
    def retries(self) -> int:
        return len(self.attempts) - 1


def quality_feedback(report: AuditReport) -> str:
    """Tell the summarizer, in plain words, what the last summary got wrong."""
    lines = [QUALITY_FEEDBACK_HEAD]
    for check in report.checks:
        if check.passed:
            continue
        lines.append(f"- {check.name}: {check.detail}")
        for reason in check.reasons:
            if reason.startswith("missing_section:"):
                lines.append(f"  * add the heading line {reason.split(':', 1)[1]!r} exactly once")
            elif reason.startswith("duplicate_section:"):
                lines.append(f"  * keep only one {reason.split(':', 1)[1]!r} heading")
    if report.identifiers_missing:
        lines.append(COPY_IDENTIFIERS + ", ".join(report.identifiers_missing))
    if report.focus.missing:
        lines.append("- keep what the user asked to focus on, word for word: "
                     + ", ".join(report.focus.missing))
    if report.latest_ask:
        ask = " ".join(report.latest_ask.split())[:400]
        lines.append(f"- reflect the user's latest request: {ask}")
    lines.append("Write the whole summary again, fixing every problem above, with every "
                 "required section present.")
    return "\n".join(lines)


def _rank(report: AuditReport) -> tuple[int, int, int]:
    """Higher is better."""
    return (report.checks_passed, -len(report.identifiers_missing), -len(report.dropped))


async def run_with_quality_loop(
    generate: Callable[[str | None], Awaitable[str]],
    audit: Callable[[str], AuditReport | Awaitable[AuditReport]],
    *,
    max_retries: int = 1,
) -> QualityOutcome:
    """Generate, audit, and regenerate with feedback until the audit passes or retries run out.

    ``generate(feedback)`` gets None the first time; ``audit`` may be a coroutine function
    (the GUI runs the audit on its worker pool so the UI thread never does it). An error from the first generation
    propagates (there is nothing to keep); an error from a retry ends the loop and keeps the
    best summary so far. Cancellation always propagates. ``max_retries`` is clamped to 0..3.
    """
    retries = max(0, min(MAX_QUALITY_RETRIES, max_retries))
    attempts: list[QualityAttempt] = []
    best: tuple[str, AuditReport, int] | None = None
    feedback: str | None = None
    note: str | None = None
    for number in range(1, retries + 2):
        try:
            summary = await generate(feedback)
        except SummarizationCancelled:
            raise
        except Exception as exc:
            if best is None:
                raise
            attempts.append(QualityAttempt(number, None, None, feedback, f"{type(exc).__name__}: {exc}"))
            break
        if attempts and attempts[-1].summary == summary:
            note = (f"retry {number - 1} gave the same text as attempt {number - 1}: the "
                    "summarizer answers the feedback with the same summary, so further "
                    "retries cannot change it; stopped retrying")
            break
        audited = audit(summary)
        report = await audited if inspect.isawaitable(audited) else audited
        attempts.append(QualityAttempt(number, summary, report, feedback))
        if best is None or _rank(report) >= _rank(best[1]):
            best = (summary, report, number)
        if report.passed:
            break
        feedback = quality_feedback(report)
    assert best is not None  # the first attempt either produced a summary or raised
    return QualityOutcome(summary=best[0], report=best[1], kept_attempt=best[2],
                          attempts=tuple(attempts), note=note)
