"""The audit panel's headline: the rule's verdict and SessionLens's losses, apart."""

from __future__ import annotations

from typing import Any

from fixtures.audit_sessions import accepted_but_lossy
from sessionlens.engine import audit_summary
from sessionlens.gui.compaction.audit_panel import AuditPanel


def test_panel_never_says_passed_over_red_bars(qtbot: Any) -> None:
    t, summary, span = accepted_but_lossy()
    report = audit_summary(t, summary, summarized_entry_ids=span, template="safeguard")
    panel = AuditPanel()
    qtbot.addWidget(panel)
    panel.show_report(report, "run 1")
    text = panel.verdict.text()
    assert "Audit passed" not in text
    lines = text.split("<br>")
    assert "OpenClaw&#x27;s rule: would accept" in lines[0]
    assert "SessionLens: 7 of 12 specifics dropped; URL coverage 41% (5 of 12)" in lines[1]
    assert "SessionLens checks: 6 of 6 passed" in lines[2]
