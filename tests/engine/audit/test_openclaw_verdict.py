"""OpenClaw's own verdict, computed beside SessionLens's and labelled as OpenClaw's."""

from __future__ import annotations

from fixtures.audit_sessions import ERROR, failing_test_session
from fixtures.factories import structured_summary
from sessionlens.engine.audit.openclaw_verdict import OPENCLAW_LABEL
from sessionlens.engine.audit.report import audit_report_dict, audit_summary


def test_openclaws_verdict_is_reported_beside_and_labelled() -> None:
    b, span = failing_test_session()
    summary = structured_summary(f"- {ERROR}\n- p99 latency is 175 ms\n- /srv/billing/export.py "
                                 "pytest tests/test_export.py")
    report = audit_summary(b.build(), summary, summarized_entry_ids=span, template="structured")
    assert report.passed, report.reasons  # SessionLens: pi's template, everything kept
    verdict = report.openclaw
    assert verdict is not None and verdict.label == OPENCLAW_LABEL
    assert not verdict.passed  # OpenClaw's guard wants its five safeguard headings
    assert "missing_section:## Decisions" in verdict.reasons
    assert audit_report_dict(report)["openclaw"]["passed"] is False
