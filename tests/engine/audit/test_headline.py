"""The audit's headline: OpenClaw's rule and SessionLens's losses read as two findings."""

from __future__ import annotations

from fixtures.audit_sessions import LOSSY_URLS, accepted_but_lossy
from fixtures.factories import TranscriptBuilder
from sessionlens.engine.audit.report import AuditReport, audit_report_dict, audit_summary
from sessionlens.engine.contract.templates import required_sections

URLS = LOSSY_URLS


def _accepted_but_lossy() -> AuditReport:
    t, summary, span = accepted_but_lossy()
    return audit_summary(t, summary, summarized_entry_ids=span, template="safeguard")


def test_an_accepted_summary_still_says_what_it_lost() -> None:
    report = _accepted_but_lossy()
    assert report.passed and report.openclaw is not None and report.openclaw.passed
    h = report.headline
    assert h.rule == "OpenClaw's rule: would accept" and h.rule_accepts is True
    assert h.loss_level == "some"
    assert h.losses.startswith("SessionLens: 7 of ")
    assert "URL coverage 41% (5 of 12)" in h.losses
    assert h.checks == f"SessionLens checks: {len(report.checks)} of {len(report.checks)} passed"
    assert "passed" not in h.rule and "passed" not in h.losses  # two findings, not one word
    assert audit_report_dict(report)["headline"] == h.as_dict()


def test_a_refused_placeholder_is_a_total_loss_in_words() -> None:
    b = TranscriptBuilder()
    span = [b.user(f"open {URLS[0]}").id, b.assistant("ok").id]
    report = audit_summary(b.build(), "Summary unavailable due to context limits.",
                           summarized_entry_ids=span, template="safeguard")
    h = report.headline
    assert h.rule_accepts is False and h.rule.startswith("OpenClaw's rule: would refuse (")
    assert "5 required headings missing" in h.rule and "missing_section" not in h.rule
    assert h.loss_level == "total" and h.losses.startswith("SessionLens: TOTAL LOSS")
    assert h.checks.startswith("SessionLens checks: FAILED content")


def test_nothing_dropped_says_so_with_the_count() -> None:
    b = TranscriptBuilder()
    span = [b.user(f"open {URLS[0]} and deploy").id]
    body = "\n".join(f"{h}\n- open and deploy {URLS[0]}" for h in required_sections("safeguard"))
    h = audit_summary(b.build(), body, summarized_entry_ids=span, template="safeguard").headline
    assert h.loss_level == "none" and h.losses.startswith("SessionLens: nothing dropped, all ")
