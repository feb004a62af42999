"""Any summary text audited against the span a compaction now (or at a cut) would replace."""

from __future__ import annotations

import pytest

from fixtures.audit_sessions import ERROR, failing_test_session
from fixtures.factories import TranscriptBuilder, structured_summary
from sessionlens.engine.audit.at_cut import audit_at_cut
from sessionlens.engine.errors import AuditError


def test_any_text_is_audited_against_a_cut() -> None:
    b, span = failing_test_session()
    kept = b.user("now the docs")
    b.assistant("Writing them.")
    t = b.build()
    report = audit_at_cut(t, structured_summary(f"- {ERROR}"), cut_entry_id=kept.id)
    assert report.summarized_entry_ids == tuple(span)
    assert report.check("errors").passed
    assert any(d.cls == "path" for d in report.dropped)
    with pytest.raises(AuditError, match="nothing to audit"):
        audit_at_cut(TranscriptBuilder().build(), "x")
