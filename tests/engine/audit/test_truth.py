"""The audit tells the truth: errors anywhere, numbers with their meaning, fallbacks lose
everything, the ask in the user's own words, OpenClaw's verdict beside SessionLens's."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixtures.factories import TranscriptBuilder
from fixtures.samples import sample_path
from fixtures.session_files import structured_summary
from sessionlens.engine.audit.at_cut import audit_at_cut
from sessionlens.engine.audit.openclaw_verdict import OPENCLAW_LABEL
from sessionlens.engine.audit.recorded import audit_every_compaction
from sessionlens.engine.audit.report import audit_compaction, audit_report_dict, audit_summary
from sessionlens.engine.errors import AuditError
from sessionlens.engine.load.reader import load_transcript

ERROR = "ValueError: invoice total mismatch at row 17"


def _failing_test_session() -> tuple[TranscriptBuilder, list[str]]:
    """An error in a test run's output (not flagged isError), quoted again by the assistant."""
    b = TranscriptBuilder()
    ids = [b.user("Fix the billing export in /srv/billing/export.py please").id]
    call = b.call("bash", command="pytest tests/test_export.py")
    ids.append(b.assistant("Running the tests.", call).id)
    ids.append(b.result(call, f"collected 3 items\n\nE   {ERROR}\n1 failed, 2 passed").id)
    ids.append(b.assistant(f"The failure is `{ERROR}`; the p99 latency is 175 ms too.").id)
    return b, ids


def test_audit_names_a_dropped_error_and_a_dropped_path() -> None:
    b, span = _failing_test_session()
    summary = structured_summary("- billing export fixed; p99 latency is 175 ms")
    report = audit_summary(b.build(), summary, summarized_entry_ids=span, template="structured",
                           identifier_policy="off")
    dropped = {(d.cls, d.value): d for d in report.dropped}
    error = dropped[("error", ERROR)]
    assert error.entry_ids == (span[2], span[3])  # the tool output and the assistant's quote
    assert ("path", "/srv/billing/export.py") in dropped
    errors = report.check("errors")
    assert errors.passed  # policy off: reported only
    strict = audit_summary(b.build(), summary, summarized_entry_ids=span, template="structured")
    assert not strict.check("errors").passed and not strict.passed
    assert ERROR in strict.check("errors").detail
    kept = audit_summary(b.build(), structured_summary(f"- {ERROR}"), summarized_entry_ids=span,
                         template="structured")
    assert kept.check("errors").passed


def test_a_number_kept_without_its_meaning_counts_as_lost() -> None:
    b, span = _failing_test_session()
    t = b.build()
    bare = audit_summary(t, structured_summary(f"- {ERROR}\n- 175 ms"), summarized_entry_ids=span,
                         template="structured")
    assert [d.context for d in bare.dropped if d.cls == "quantity"] == ["p99 latency is 175 ms"]
    meant = audit_summary(t, structured_summary(f"- {ERROR}\n- p99 latency: 175 ms"),
                          summarized_entry_ids=span, template="structured")
    assert not [d for d in meant.dropped if d.cls == "quantity"]
    quantity = next(c for c in meant.coverage if c.cls == "quantity")
    assert (quantity.found, quantity.total) == (1, 1)


def test_a_fallback_placeholder_is_a_total_loss() -> None:
    b, span = _failing_test_session()
    # the placeholder happens to contain a word of the span: still nothing counts as kept
    text = "Summary unavailable due to context limits. Older messages were truncated. pytest"
    report = audit_summary(b.build(), text, summarized_entry_ids=span, template="structured")
    assert not report.passed and report.total_loss
    assert report.check("content").reasons == ("fallback_summary",)
    assert all(c.found == 0 for c in report.coverage)
    assert len(report.dropped) == len(report.entities) > 0
    assert audit_report_dict(report)["total_loss"] is True


def test_the_latest_ask_is_the_users_words_not_the_envelope() -> None:
    b = TranscriptBuilder()
    span = [b.user("[Telegram Verve AI id:8148859805 2026-01-31 08:12 GMT+8] rotate the staging "
                   "certificates\n[message_id: 3]").id]
    span.append(b.user("Pre-compaction memory flush. Store durable memories now. If nothing to "
                       "store, reply with NO_REPLY.").id)
    span.append(b.assistant("NO_REPLY").id)
    t = b.build()
    envelope_only = structured_summary("- telegram verve ai id 2026")
    report = audit_summary(t, envelope_only, summarized_entry_ids=span, template="structured")
    assert report.latest_ask == "rotate the staging certificates"
    assert not report.check("latest_ask").passed
    # OpenClaw reads the raw text of the latest user message: the flush prompt
    assert report.openclaw is not None and report.openclaw.latest_ask is not None
    assert report.openclaw.latest_ask.startswith("Pre-compaction memory flush")
    good = audit_summary(t, structured_summary("- rotate the staging certificates"),
                         summarized_entry_ids=span, template="structured")
    assert good.check("latest_ask").passed


def test_openclaws_verdict_is_reported_beside_and_labelled() -> None:
    b, span = _failing_test_session()
    summary = structured_summary(f"- {ERROR}\n- p99 latency is 175 ms\n- /srv/billing/export.py "
                                 "pytest tests/test_export.py")
    report = audit_summary(b.build(), summary, summarized_entry_ids=span, template="structured")
    assert report.passed, report.reasons  # SessionLens: pi's template, everything kept
    verdict = report.openclaw
    assert verdict is not None and verdict.label == OPENCLAW_LABEL
    assert not verdict.passed  # OpenClaw's guard wants its five safeguard headings
    assert "missing_section:## Decisions" in verdict.reasons
    assert audit_report_dict(report)["openclaw"]["passed"] is False


def test_any_text_is_audited_against_a_cut() -> None:
    b, span = _failing_test_session()
    kept = b.user("now the docs")
    b.assistant("Writing them.")
    t = b.build()
    report = audit_at_cut(t, structured_summary(f"- {ERROR}"), cut_entry_id=kept.id)
    assert report.summarized_entry_ids == tuple(span)
    assert report.check("errors").passed
    assert any(d.cls == "path" for d in report.dropped)
    with pytest.raises(AuditError, match="nothing to audit"):
        audit_at_cut(TranscriptBuilder().build(), "x")


@pytest.mark.samples
def test_every_recorded_compaction_kind_feeds_the_audit(samples_dir: Path) -> None:
    """pi/OpenClaw, Claude Code ``compact_boundary`` and Codex ``compacted`` alike."""
    for prefix in ("03_", "07_", "09_"):
        t = load_transcript(sample_path(samples_dir, prefix))
        audits = audit_every_compaction(t)
        assert list(audits) == [c.id for c in t.compactions]
        assert any(a.report.summarized_entry_ids for a in audits.values()), prefix
        for audited in audits.values():
            r = audited.report
            assert r.openclaw is not None and r.checks[0].name == "content"
            if t.format in ("claude-code", "codex"):  # free-form writers: no headings, no cap
                assert r.check("sections").passed and r.check("budget").passed, r.reasons
                assert r.template == "none"
            else:  # sample 03: five fallback placeholders, each replacing real history
                assert r.total_loss == bool(r.summarized_entry_ids)
                assert not r.check("content").passed
    t = load_transcript(sample_path(samples_dir, "09_"))
    report = audit_compaction(t)
    assert report.latest_ask and not report.latest_ask.startswith("# Files mentioned")
    assert sum(c.total for c in report.coverage) > 100


@pytest.mark.samples
def test_a_placeholder_that_replaced_nothing_is_no_total_loss(samples_dir: Path) -> None:
    """Sample 04's placeholders kept their whole region verbatim: nothing was lost to them."""
    t = load_transcript(sample_path(samples_dir, "04_"))
    for audited in audit_every_compaction(t).values():
        r = audited.report
        assert not r.check("content").passed and not r.summarized_entry_ids
        assert not r.total_loss and not r.dropped
