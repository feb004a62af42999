"""The quality loop: retry with feedback, keep the best attempt, survive a failing retry."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from fixtures.factories import TranscriptBuilder, structured_summary
from sessionlens.engine.audit.quality_loop import quality_feedback, run_with_quality_loop
from sessionlens.engine.audit.report import AuditReport, audit_summary
from sessionlens.engine.errors import ProviderError, SummarizationCancelled

pytestmark = pytest.mark.anyio

GOOD = structured_summary("Fix the parser crash; file /srv/app/parser.py; build 9F8E7D6C5B4A")
NO_IDS = structured_summary("Fix the parser crash")
BROKEN = "## Goal\nparser crash fix\n"


def _auditor() -> Callable[[str], AuditReport]:
    b = TranscriptBuilder()
    span = [b.user("fix the parser crash please").id,
            b.assistant("see /srv/app/parser.py at build 9f8e7d6c5b4a").id]
    t = b.build()

    def audit(summary: str) -> AuditReport:
        return audit_summary(t, summary, summarized_entry_ids=span, template="structured")
    return audit


class Script:
    """A fake generator that returns (or raises) its items in turn, recording the feedback."""

    def __init__(self, *items: str | BaseException) -> None:
        self.items = list(items)
        self.feedback: list[str | None] = []

    async def __call__(self, feedback: str | None) -> str:
        self.feedback.append(feedback)
        item = self.items.pop(0)
        if isinstance(item, BaseException):
            raise item
        return item


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_passing_first_attempt_is_not_retried() -> None:
    gen = Script(GOOD, GOOD)
    out = await run_with_quality_loop(gen, _auditor(), max_retries=2)
    assert out.passed and out.kept_attempt == 1 and len(out.attempts) == 1
    assert gen.feedback == [None]


async def test_retry_gets_the_failures_as_feedback() -> None:
    gen = Script(BROKEN, GOOD)
    out = await run_with_quality_loop(gen, _auditor(), max_retries=1)
    assert out.kept_attempt == 2 and out.summary == GOOD and out.passed
    feedback = gen.feedback[1]
    assert feedback is not None
    assert "## Constraints & Preferences" in feedback and "quality audit" in feedback
    assert "/srv/app/parser.py" in feedback  # missing identifiers are listed
    assert out.attempts[1].feedback == feedback


async def test_best_attempt_is_kept_when_all_fail() -> None:
    gen = Script(BROKEN, NO_IDS, BROKEN)
    out = await run_with_quality_loop(gen, _auditor(), max_retries=2)
    assert not out.passed
    assert out.kept_attempt == 2 and out.summary == NO_IDS  # more checks passed than BROKEN
    assert len(out.attempts) == 3


async def test_retry_that_throws_keeps_the_last_good_summary() -> None:
    gen = Script(NO_IDS, ProviderError("HTTP 500"))
    out = await run_with_quality_loop(gen, _auditor(), max_retries=3)
    assert out.summary == NO_IDS and out.kept_attempt == 1
    assert out.attempts[-1].error == "ProviderError: HTTP 500" and out.attempts[-1].summary is None


async def test_first_attempt_failure_and_cancellation_propagate() -> None:
    with pytest.raises(ProviderError):
        await run_with_quality_loop(Script(ProviderError("down")), _auditor())
    with pytest.raises(SummarizationCancelled):
        await run_with_quality_loop(Script(BROKEN, SummarizationCancelled()), _auditor())


async def test_retries_are_capped_at_three() -> None:
    gen = Script(*(f"{BROKEN}- try {i}\n" for i in range(10)))  # each retry a new text
    out = await run_with_quality_loop(gen, _auditor(), max_retries=99)
    assert len(out.attempts) == 4 and out.retries == 3 and out.note is None


async def test_a_retry_that_changes_nothing_stops_the_loop_and_says_so() -> None:
    """A deterministic summarizer gave the identical text on every retry (issue 39 item 5)."""
    gen = Script(*([BROKEN] * 10))
    out = await run_with_quality_loop(gen, _auditor(), max_retries=3)
    assert len(out.attempts) == 1 and not out.passed
    assert out.note is not None and "same text as attempt 1" in out.note
    none = await run_with_quality_loop(Script(BROKEN), _auditor(), max_retries=-1)
    assert len(none.attempts) == 1


def test_feedback_names_every_failed_check() -> None:
    report = _auditor()(BROKEN)
    text = quality_feedback(report)
    for check in report.checks:
        assert (f"- {check.name}:" in text) == (not check.passed)
