"""The audit gates the write: a failed summary is refused unless the user accepts it."""

from __future__ import annotations

import pytest

from fixtures.session_files import basic_session, structured_summary
from sessionlens.engine.audit.gate import audit_gate
from sessionlens.engine.audit.report import audit_summary
from sessionlens.engine.errors import AuditFailedError
from sessionlens.engine.load.reader import load_transcript


def test_a_failed_audit_is_refused_unless_accepted(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path, ids = basic_session(tmp_path)
    t = load_transcript(path)
    span = (ids["ask"], ids["call"], ids["err"], ids["docs"])
    bad = audit_summary(t, "## Goal\n- fix it", summarized_entry_ids=span, template="structured")
    assert not bad.passed
    with pytest.raises(AuditFailedError, match="nothing was written") as info:
        audit_gate(bad)
    assert info.value.failed and all(":" in f for f in info.value.failed)
    warnings = audit_gate(bad, accept_failed_audit=True)
    assert len(warnings) == len(info.value.failed)
    assert all(w.startswith("written although the audit failed") for w in warnings)
    good = audit_summary(t, structured_summary(), summarized_entry_ids=(), template="structured")
    assert good.passed and audit_gate(good) == ()
