"""The summary audit: sections, identifiers, errors anywhere, numbers with their meaning,
fallbacks, the latest ask in the user's words, budget, templates, real compactions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fixtures.audit_sessions import ERROR, failing_test_session
from fixtures.factories import TranscriptBuilder, structured_summary
from fixtures.samples import sample_path
from sessionlens.engine.audit.report import audit_compaction, audit_report_dict, audit_summary
from sessionlens.engine.audit.span import compaction_span
from sessionlens.engine.contract.ask import ask_tokens, has_ask_overlap
from sessionlens.engine.contract.templates import REQUIRED_SECTIONS, detect_template
from sessionlens.engine.contract.user_words import strip_envelope
from sessionlens.engine.errors import AuditError
from sessionlens.engine.load.reader import load_transcript

# The headings as transcript-format.md §3.5 / §3.6 name them (an independent copy for tests).
PI_HEADINGS = ["## Goal", "## Constraints & Preferences", "## Progress", "## Key Decisions",
               "## Next Steps", "## Critical Context"]
SAFEGUARD_HEADINGS = ["## Decisions", "## Open TODOs", "## Constraints/Rules",
                      "## Pending user asks", "## Exact identifiers"]


def _session() -> tuple[TranscriptBuilder, list[str]]:
    b = TranscriptBuilder()
    span = [b.user("Please fix the parser crash in /srv/app/parser.py for large inputs").id]
    span.append(b.assistant("Found commit 9f8e7d6c5b4a; see https://docs.example.org/x").id)
    return b, span


def _safeguard(body: str = "") -> str:
    return "\n\n".join(f"{h}\n{body or '- none'}" for h in SAFEGUARD_HEADINGS)


def test_structured_summary_with_everything_passes() -> None:
    b, span = _session()
    summary = structured_summary("Fix parser crash for large inputs in /srv/app/parser.py; "
                                 "commit 9F8E7D6C5B4A; https://docs.example.org/x")
    report = audit_summary(b.build(), summary, summarized_entry_ids=span, template="structured")
    assert report.passed, report.reasons
    assert [c.name for c in report.checks] == ["content", "sections", "identifiers", "errors",
                                               "latest_ask", "budget"]
    assert set(report.identifiers_found) == {"/srv/app/parser.py", "9F8E7D6C5B4A",
                                             "https://docs.example.org/x"}
    assert report.identifiers_missing == ()
    assert report.dropped == ()


def test_entities_of_a_previous_report_give_the_same_audit() -> None:
    b, span = _session()
    t = b.build()
    first = audit_summary(t, structured_summary("parser crash"), summarized_entry_ids=span,
                          template="structured")
    assert first.entities  # the span has paths, hashes and urls to pass along
    second_text = structured_summary("Fix the crash in /srv/app/parser.py")
    fresh = audit_summary(t, second_text, summarized_entry_ids=span, template="structured")
    reused = audit_summary(t, second_text, summarized_entry_ids=span, template="structured",
                           entities=first.entities)
    assert reused == fresh
    assert "/srv/app/parser.py" not in {d.value for d in reused.dropped}


def test_missing_and_duplicate_sections_are_named() -> None:
    b, span = _session()
    summary = structured_summary("parser crash large inputs").replace("## Key Decisions\n", "")
    summary += "\n## Goal\nagain\n"
    report = audit_summary(b.build(), summary, summarized_entry_ids=span, template="structured",
                           identifier_policy="off")
    sections = report.check("sections")
    assert not sections.passed
    # In template order: Goal comes before Key Decisions.
    assert sections.reasons == ("duplicate_section:## Goal", "missing_section:## Key Decisions")
    assert not report.passed


def test_heading_must_be_an_exact_trimmed_line() -> None:
    b, span = _session()
    summary = _safeguard("parser crash").replace("## Open TODOs", "## Open TODOs:")
    report = audit_summary(b.build(), "  " + summary, summarized_entry_ids=span,
                           template="safeguard", identifier_policy="off")
    assert report.check("sections").reasons == ("missing_section:## Open TODOs",)


def test_identifier_policies() -> None:
    b, span = _session()
    t = b.build()
    summary = _safeguard("parser crash large inputs; commit 9f8e7d6c5b4a")
    strict = audit_summary(t, summary, summarized_entry_ids=span, template="safeguard")
    check = strict.check("identifiers")
    assert not check.passed
    assert check.reasons == ("missing_identifiers:/srv/app/parser.py,https://docs.example.org/x",)
    assert strict.identifiers_found == ("9F8E7D6C5B4A",)  # hex matched ignoring case
    off = audit_summary(t, summary, summarized_entry_ids=span, template="safeguard",
                        identifier_policy="off")
    assert off.check("identifiers").passed and off.passed
    assert off.identifiers_missing == strict.identifiers_missing  # still reported
    custom = audit_summary(t, summary, summarized_entry_ids=span, template="safeguard",
                           identifier_policy="custom", custom_identifiers=["9f8e7d6c5b4a", "TICKET-7"])
    assert custom.check("identifiers").reasons == ("missing_identifiers:TICKET-7",)
    with pytest.raises(ValueError):
        audit_summary(t, summary, summarized_entry_ids=span, template="safeguard",
                      identifier_policy="loose")  # type: ignore[arg-type]


def test_only_the_last_ten_messages_feed_the_strict_set() -> None:
    b = TranscriptBuilder()
    span = [b.user("old path /srv/old/file.py").id]
    span += [b.assistant(f"step {i}").id for i in range(10)]
    report = audit_summary(b.build(), _safeguard("step"), summarized_entry_ids=span,
                           template="safeguard")
    assert report.check("identifiers").passed
    assert [d.value for d in report.dropped] == ["/srv/old/file.py"]  # still counted as dropped


def test_latest_ask_rule() -> None:
    assert ask_tokens("Can you please fix the login bug?") == ("fix", "login", "bug")
    assert not has_ask_overlap("we fixed things", "fix the login bug")
    assert has_ask_overlap("the login bug remains", "fix the login bug")  # 2 of 3
    assert has_ask_overlap("login handled", "login page")  # under 3 tokens: 1 is enough
    assert ask_tokens("is it?") == ("is", "it")  # nothing meaningful left: keep them all
    assert len(ask_tokens(" ".join(f"word{i}" for i in range(20)))) == 12
    assert has_ask_overlap("ＬＯＧＩＮ bug", "fix the login bug")  # NFKC folds full-width letters


def test_openclaw_channel_metadata_is_not_part_of_the_ask() -> None:
    raw = ('Sender (untrusted metadata):\n```json\n{"label": "telegram", "id": "12345678"}\n```\n\n'
           "[Sun 2026-03-08 22:03 GMT+9] rotate the staging certificates")
    assert strip_envelope(raw) == "rotate the staging certificates"
    assert ask_tokens(strip_envelope(raw)) == ("rotate", "staging", "certificates")


def test_latest_ask_not_reflected_and_explicit_ask_entry() -> None:
    b, span = _session()
    t = b.build()
    summary = _safeguard("unrelated notes about deployment")
    report = audit_summary(t, summary, summarized_entry_ids=span, template="safeguard",
                           identifier_policy="off")
    assert report.check("latest_ask").reasons == ("latest_user_ask_not_reflected",)
    assert report.latest_ask is not None and "parser" in report.latest_ask
    extra = b.user("deployment notes please")
    t2 = b.build()
    report2 = audit_summary(t2, summary, summarized_entry_ids=span, template="safeguard",
                            identifier_policy="off", latest_ask_entry_id=extra.id)
    assert report2.check("latest_ask").passed


def test_budget_and_empty_summary() -> None:
    b, span = _session()
    t = b.build()
    long = _safeguard("parser crash large inputs " * 50)
    report = audit_summary(t, long, summarized_entry_ids=span, template="safeguard",
                           identifier_policy="off", budget_chars=500)
    assert report.check("budget").reasons == (f"over_budget:{len(long)}>500",)
    empty = audit_summary(t, "   ", summarized_entry_ids=span, template="auto")
    assert empty.check("content").reasons == ("empty_summary",)


def test_detect_template() -> None:
    assert detect_template(structured_summary()) == "structured"
    assert detect_template(_safeguard()) == "safeguard"
    assert detect_template("# Checkpoint\n## Branch\nmain\n## Goal\nx") == "custom"
    assert detect_template("Summary unavailable due to size limits.") == "fallback"
    assert detect_template("Just prose, no headings.") == "none"
    mixed = structured_summary() + "\n" + _safeguard()
    assert detect_template(mixed) == "structured"  # both complete: a tie goes to the writer
    assert detect_template(mixed, from_hook=True) == "safeguard"


# --------------------------------------------------------------------------- existing compactions

def test_compaction_span_and_audit_of_built_transcript() -> None:
    b = TranscriptBuilder()
    b.user("first task about /srv/a/one.py")
    b.assistant("done")
    first = b.compaction(summary=_safeguard("first task"), first_kept=None)  # hardened boundary
    u = b.user("second task: tune /srv/b/two.py")
    a = b.assistant("tuned two.py")
    kept = b.user("thanks, keep going")
    second = b.compaction(summary="Summary unavailable due to context limits.", first_kept=kept.id,
                          from_hook=True)
    t = b.build()
    span1 = compaction_span(t, first.id)
    assert span1.summarized_entry_ids == ("00000001", "00000002")
    assert not span1.kept_tail
    span2 = compaction_span(t)  # default: the last one
    assert span2.compaction_id == second.id
    assert span2.summarized_entry_ids == (u.id, a.id)
    assert span2.previous_compaction_id == first.id and span2.kept_tail
    report = audit_compaction(t)
    assert report.detected_template == "fallback" and report.template == "safeguard"
    assert report.check("content").reasons == ("fallback_summary",)
    assert [d.value for d in report.dropped] == ["/srv/b/two.py"]
    assert audit_report_dict(report)["dropped"] == [
        {"value": "/srv/b/two.py", "class": "path", "entry_ids": [u.id]}]
    with pytest.raises(AuditError, match="no compaction with id"):
        audit_compaction(t, u.id)


def test_a_compaction_takes_out_the_tail_the_previous_one_kept() -> None:
    """Replay drops the previous compaction's kept tail at the next one (pi 0.58 never even
    shows it to the summarizer): the span holds it and the audit judges the summary on it."""
    b = TranscriptBuilder()
    first_task = b.user("old task in /srv/old/a.py")
    tail_user = b.user("deploy failed: ECONNRESET from queue-worker-9f3a1c77 on port 6543")
    tail_asst = b.assistant("I will look at queue-worker-9f3a1c77")
    first = b.compaction(summary=_safeguard("old task"), first_kept=tail_user.id)
    u = b.user("now tune /srv/b/two.py")
    kept = b.user("thanks")
    second = b.compaction(summary=_safeguard("tuned /srv/b/two.py"), first_kept=kept.id)
    t = b.build()
    span1 = compaction_span(t, first.id)
    assert span1.summarized_entry_ids == (first_task.id,) and span1.carried_tail_entry_ids == ()
    span2 = compaction_span(t, second.id)
    assert span2.carried_tail_entry_ids == (tail_user.id, tail_asst.id)
    assert span2.summarized_entry_ids == (tail_user.id, tail_asst.id, u.id)
    report = audit_compaction(t, second.id)
    assert report.carried_tail_entry_ids == span2.carried_tail_entry_ids
    assert audit_report_dict(report)["carried_tail_entry_ids"] == [tail_user.id, tail_asst.id]
    lost = {i for d in report.dropped for i in d.entry_ids}
    assert tail_user.id in lost and u.id not in lost  # the summary names /srv/b/two.py only


def test_a_cut_inside_the_previous_kept_tail_replaces_only_what_lies_before_it() -> None:
    """Replay keeps everything from firstKeptEntryId on, so a cut inside the tail the previous
    compaction kept (OpenClaw's region starts there) keeps the rest of it and the region."""
    b = TranscriptBuilder()
    b.user("first")
    t1 = b.user("tail one about /srv/a.py")
    t2 = b.assistant("tail two")
    t3 = b.user("tail three")
    b.compaction(summary=_safeguard("first"), first_kept=t1.id)
    b.user("after the first compaction")
    second = b.compaction(summary=_safeguard("tail one about /srv/a.py"), first_kept=t3.id)
    t = b.build()
    span = compaction_span(t, second.id)
    assert span.kept_tail
    assert span.carried_tail_entry_ids == span.summarized_entry_ids == (t1.id, t2.id)


@pytest.mark.parametrize(("prefix", "compaction_id", "carried"),
                         [("01_", 1, 66), ("04_", 1, 15), ("04_", 2, 10), ("03_", 1, 19)])
def test_real_compactions_took_out_the_tail_the_previous_one_kept(
        samples_dir: Path, prefix: str, compaction_id: int, carried: int) -> None:
    """Sample 01 is pi's own session (pi 0.58's rule dropped 66 kept entries unsummarized);
    sample 04's second and third compactions replaced nothing but the kept tail."""
    t = load_transcript(sample_path(samples_dir, prefix))
    comp = t.compactions[compaction_id]
    span = compaction_span(t, comp.id)
    assert len(span.carried_tail_entry_ids) == carried
    assert span.summarized_entry_ids[:carried] == span.carried_tail_entry_ids
    previous = compaction_span(t, t.compactions[compaction_id - 1].id)
    assert previous.kept_tail and set(span.carried_tail_entry_ids).isdisjoint(
        previous.summarized_entry_ids)


def test_transcript_without_compaction_is_a_clear_error() -> None:
    b = TranscriptBuilder()
    b.user("hi")
    with pytest.raises(AuditError, match="no compaction"):
        audit_compaction(b.build())


# --------------------------------------------------------------------------- real samples

def _lines(path: Path) -> list[dict[str, Any]]:
    out = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        try:
            out.append(json.loads(raw))
        except json.JSONDecodeError:
            out.append({})
    return out


def _v3_span(objs: list[dict[str, Any]], compaction: dict[str, Any]) -> list[str]:
    """The summarized span of a v3 compaction, derived from the raw JSON (not the engine):
    the tail the previous compaction kept, then what followed it up to the first kept entry."""
    by_id = {o["id"]: o for o in objs if "id" in o and o.get("type") != "session"}
    chain: list[dict[str, Any]] = []
    cur = by_id.get(compaction["parentId"])
    while cur is not None:
        chain.append(cur)
        cur = by_id.get(cur.get("parentId"))
    chain.reverse()
    starts = [i for i, o in enumerate(chain) if o["type"] == "compaction"]
    region = chain[starts[-1] + 1:] if starts else chain
    ids = [o["id"] for o in region]
    if compaction["firstKeptEntryId"] in ids:
        ids = ids[: ids.index(compaction["firstKeptEntryId"])]
    tail: list[str] = []
    if starts:
        before = [o["id"] for o in chain[:starts[-1]]]
        kept = chain[starts[-1]]["firstKeptEntryId"]
        tail = before[before.index(kept):] if kept in before else []
    return tail + ids


@pytest.mark.samples
def test_sample03_fallback_summaries_fail_with_reasons(samples_dir: Path) -> None:
    path = sample_path(samples_dir, "03_")
    objs = _lines(path)
    compactions = [o for o in objs if o.get("type") == "compaction"]
    transcript = load_transcript(path)
    assert len(transcript.compactions) == len(compactions) == 5
    spans_with_users = 0
    for raw in compactions:
        report = audit_compaction(transcript, raw["id"])
        assert not report.passed
        assert report.compaction_id == raw["id"]
        assert report.detected_template == "fallback"
        assert report.template == "safeguard"  # fromHook: the safeguard's promise is the bar
        assert "fallback_summary" in report.reasons
        for heading in SAFEGUARD_HEADINGS:
            assert f"missing_section:{heading}" in report.reasons
        span = _v3_span(objs, raw)
        assert list(report.summarized_entry_ids) == span
        users = [o for o in objs if o.get("id") in span and o.get("message", {}).get("role") == "user"]
        if users:
            spans_with_users += 1
            assert "latest_user_ask_not_reflected" in report.reasons
            assert any(r.startswith("missing_identifiers:") for r in report.reasons)
            assert report.dropped, "a placeholder keeps none of the span's specifics"
            assert all(c.found == 0 for c in report.coverage)
    assert spans_with_users >= 1


@pytest.mark.samples
def test_sample01_is_judged_on_its_own_template(samples_dir: Path) -> None:
    path = sample_path(samples_dir, "01_")
    objs = _lines(path)  # index 0 is the header, as firstKeptEntryIndex counts
    positions = [i for i, o in enumerate(objs) if o.get("type") == "compaction"]
    transcript = load_transcript(path)
    assert len(transcript.compactions) == len(positions) == 2
    previous = 0
    tail = 0  # entries the previous compaction kept verbatim: the next one takes them out
    for comp, pos in zip(transcript.compactions, positions, strict=True):
        raw = objs[pos]
        headings = [ln.strip() for ln in raw["summary"].splitlines() if ln.startswith("## ")]
        present = sum(h in headings for h in PI_HEADINGS)
        assert present < len(PI_HEADINGS) / 2  # not pi's structured template...
        report = audit_compaction(transcript, comp.id)
        assert report.template == report.detected_template == "custom"  # ...so judged as itself
        sections = report.check("sections")
        assert sections.passed and f"All {len(headings)} headings" in sections.detail
        assert not any(r.startswith("missing_section:") for r in report.reasons)
        assert report.check("content").passed and report.check("budget").passed
        assert len(report.summarized_entry_ids) == tail + raw["firstKeptEntryIndex"] - previous - 1
        assert len(report.carried_tail_entry_ids) == tail
        previous, tail = pos, pos - raw["firstKeptEntryIndex"]


# --------------------------------------------------------------------------- telling the truth

def test_audit_names_a_dropped_error_and_a_dropped_path() -> None:
    b, span = failing_test_session()
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
    b, span = failing_test_session()
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
    b, span = failing_test_session()
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


def test_a_summary_of_empty_sections_is_a_total_loss() -> None:
    """Four entries summarized into "(none)" under every heading used to pass."""
    b = TranscriptBuilder()
    b.user("Please migrate the billing tables to Postgres.")
    b.assistant("Migrating the tables now.")
    b.user("Also keep the audit log.")
    b.assistant("Will do.")
    t = b.build()
    empty = "\n".join(f"{h}\n(none)\n" for h in REQUIRED_SECTIONS["structured"])
    report = audit_summary(t, empty, summarized_entry_ids=[e.id for e in t.path_entries()],
                           template="structured", identifier_policy="off")
    assert not report.passed and report.total_loss
    assert report.check("content").reasons == ("empty_sections",)
