"""The summary audit: is a compaction summary fit to replace the history it stands for?

Pure: it reads a loaded transcript and a summary and returns a frozen report, so the GUI,
the CLI, the quality loop and exports all judge a summary the same way. The checks follow
OpenClaw's safeguard audit (transcript-format.md §3.6) so a summary SessionLens passes is one
OpenClaw would accept, and add what that audit leaves out: a fallback placeholder is never a
summary (it loses everything), each heading must appear once, the budget holds, every error
message of the span must survive wherever it was written (a failing test's output, stderr,
the assistant quoting it), the latest ask is the user's own words, and every specific of the
span is counted per class, numbers with what they measure, so the report can say exactly
what was dropped. OpenClaw's own verdict is computed beside it and labelled as OpenClaw's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from sessionlens.engine.contract.focus_terms import FocusCoverage
from sessionlens.engine.contract.identifiers import (
    Identifier,
    extract_identifiers,
)
from sessionlens.engine.contract.pinned import PinnedText
from sessionlens.engine.contract.templates import (
    SUMMARY_MAX_CHARS,
    IdentifierPolicy,
    detect_template,
)
from sessionlens.engine.contract.user_words import user_words
from sessionlens.engine.model import Entry, Transcript
from sessionlens.engine.persist.provenance import recorded_facts

from .checks import (
    AuditCheck,
    ClassCoverage,
    ask_check,
    budget_check,
    class_coverage,
    content_check,
    errors_check,
    identifiers_check,
    pinned_check,
    sections_check,
)
from .dropped import DroppedItem, find_dropped
from .focus_check import focus_result, span_focus
from .headline import AuditHeadline, audit_headline
from .kept_tail import kept_tail_finding
from .openclaw_verdict import OpenClawVerdict, openclaw_verdict, recent_opaque_identifiers
from .span import CompactionSpan, compaction_span, path_to

__all__ = [
    "AUDIT_BUDGET_CHARS",
    "AuditCheck",
    "AuditReport",
    "ClassCoverage",
    "audit_compaction",
    "audit_report_dict",
    "audit_summary",
    "latest_user_ask",
    "recorded_instructions",
]


#: The summary (body plus suffixes) may not exceed this many characters (OpenClaw's cap,
#: the same number the summarizer caps at).
AUDIT_BUDGET_CHARS = SUMMARY_MAX_CHARS


@dataclass(frozen=True, slots=True)
class AuditReport:
    """The verdict on one summary."""

    passed: bool
    checks: tuple[AuditCheck, ...]
    #: The template the summary was judged against (see summary_templates.TemplateName).
    template: str
    #: Entity survival per class over the whole summarized span.
    coverage: tuple[ClassCoverage, ...]
    #: The audited identifiers (OpenClaw set, or the custom list) present in the summary...
    identifiers_found: tuple[str, ...]
    #: ...and absent from it.
    identifiers_missing: tuple[str, ...]
    #: Every entity of the span that the summary lacks, by class.
    dropped: tuple[DroppedItem, ...]
    compaction_id: str | None = None
    summarized_entry_ids: tuple[str, ...] = ()
    identifier_policy: str = "strict"
    latest_ask: str | None = None
    summary_chars: int = 0
    #: Every entity found in the span (what ``coverage`` counts).
    entities: tuple[Identifier, ...] = ()
    #: The template the summary itself follows (differs from ``template`` for a fallback
    #: placeholder, which is judged against the template its writer promised).
    detected_template: str = ""
    #: What OpenClaw's own quality guard would answer (its rules, labelled as such).
    openclaw: OpenClawVerdict | None = None
    #: For a recorded compaction: those of ``summarized_entry_ids`` that the previous
    #: compaction had kept verbatim and this one took out of the context (``audit.span``).
    carried_tail_entry_ids: tuple[str, ...] = ()
    #: The focus terms of the instructions, which the span holds and which the summary kept.
    focus: FocusCoverage = FocusCoverage((), (), (), ())

    @property
    def focus_applied(self) -> bool | None:
        """Whether the focus was applied, as the "focus" check found (None without focus
        terms): the only source of "focus applied" anywhere."""
        return self.focus.applied

    #: What this compaction did with that tail, read from the file (``audit.kept_tail``):
    #: "summarized-again", "not-summarized", "unknown" or "" when there is none; ``..._text``
    #: is the sentence the faces show.
    carried_tail_verdict: str = ""
    carried_tail_text: str = ""

    @property
    def total_loss(self) -> bool:
        """The summary is empty or a fallback placeholder and it replaced entries: the
        whole span is gone."""
        return bool(self.summarized_entry_ids) and any(
            r in ("empty_summary", "fallback_summary", "empty_sections")
            for r in self.check("content").reasons)

    @property
    def headline(self) -> AuditHeadline:
        """The rule's verdict and SessionLens's losses as two findings (``audit.headline``)."""
        return audit_headline(self)

    @property
    def reasons(self) -> tuple[str, ...]:
        """All failure codes of all checks, in check order."""
        return tuple(r for c in self.checks for r in c.reasons)

    @property
    def checks_passed(self) -> int:
        return sum(c.passed for c in self.checks)

    def check(self, name: str) -> AuditCheck:
        """The check called ``name`` (KeyError if there is none)."""
        for c in self.checks:
            if c.name == name:
                return c
        raise KeyError(name)


def audit_report_dict(report: AuditReport) -> dict[str, Any]:
    """The report as plain JSON data (the ``audit --json`` object and ``compact``'s ``audit``)."""
    return {
        "compaction_id": report.compaction_id,
        "passed": report.passed,
        "headline": report.headline.as_dict(),
        "template": report.template,
        "detected_template": report.detected_template,
        "identifier_policy": report.identifier_policy,
        "checks": [c.as_dict() for c in report.checks],
        "reasons": list(report.reasons),
        "identifiers": {"found": list(report.identifiers_found),
                        "missing": list(report.identifiers_missing)},
        "coverage": {c.cls: {"found": c.found, "total": c.total} for c in report.coverage},
        "dropped": [d.as_dict() for d in report.dropped],
        "summarized_entry_ids": list(report.summarized_entry_ids),
        "carried_tail_entry_ids": list(report.carried_tail_entry_ids),
        "carried_tail": {"verdict": report.carried_tail_verdict,
                         "text": report.carried_tail_text},
        "latest_ask": report.latest_ask,
        "summary_chars": report.summary_chars,
        "total_loss": report.total_loss,
        "focus": {"terms": list(report.focus.terms), "in_span": list(report.focus.in_span),
                  "kept": list(report.focus.kept), "missing": list(report.focus.missing)},
        "focus_applied": report.focus_applied,
        "openclaw": report.openclaw.as_dict() if report.openclaw is not None else None,
    }


# --------------------------------------------------------------------------- helpers

def _span_entries(transcript: Transcript, entry_ids: Sequence[str]) -> tuple[Entry, ...]:
    return tuple(e for e in (transcript.get(i) for i in entry_ids) if e is not None)


def _user_text(entry: Entry) -> str:
    if entry.message is None or entry.message.role != "user":
        return ""
    return user_words(entry.message.text)


def latest_user_ask(entries: Sequence[Entry]) -> tuple[str | None, str | None]:
    """(entry id, text) of the last user message with words in it, or (None, None)."""
    for entry in reversed(entries):
        text = _user_text(entry)
        if text:
            return entry.id, text
    return None, None


# --------------------------------------------------------------------------- entry points

def audit_summary(
    transcript: Transcript,
    summary: str,
    *,
    summarized_entry_ids: Sequence[str],
    template: str,
    identifier_policy: IdentifierPolicy = "strict",
    custom_identifiers: Sequence[str] = (),
    budget_chars: int | None = AUDIT_BUDGET_CHARS,
    latest_ask_entry_id: str | None = None,
    compaction_id: str | None = None,
    from_hook: bool = False,
    entities: Sequence[Identifier] | None = None,
    pinned: Sequence[PinnedText] = (),
    carried_tail_entry_ids: Sequence[str] = (),
    instructions: str = "",
) -> AuditReport:
    """Audit ``summary`` as the replacement for ``summarized_entry_ids``.

    ``template`` is the template the summary was asked to follow ("structured",
    "safeguard", ...), or "auto" to judge it on the template it turns out to follow.
    ``identifier_policy``: "strict" requires every audited identifier, "off" only reports
    them, "custom" audits ``custom_identifiers`` instead of the extracted set.
    ``entities`` is a previous report's ``entities`` for the same span, so auditing several
    summaries of one span (the quality loop) extracts them once. ``pinned``: the texts the
    user pinned before the cut; with any, a "pinned" check fails naming each one missing.
    ``instructions``: the user's focus instructions; with any focus term, a "focus" check
    fails naming each term of the span the summary lacks (``focus_check``).
    """
    if identifier_policy not in ("strict", "off", "custom"):
        raise ValueError(f"unknown identifier policy {identifier_policy!r}")
    entries = _span_entries(transcript, summarized_entry_ids)
    detected = detect_template(summary, from_hook=from_hook)
    used = detected if template == "auto" else template
    if latest_ask_entry_id is not None:
        ask_entry = transcript.get(latest_ask_entry_id)
        ask = (user_words(ask_entry.message.text) or None) if ask_entry and ask_entry.message \
            else None
    else:
        _, ask = latest_user_ask(entries)
    audited = (tuple(dict.fromkeys(i.strip() for i in custom_identifiers if i.strip()))
               if identifier_policy == "custom" else recent_opaque_identifiers(entries))
    id_check, found, missing = identifiers_check(summary, audited, identifier_policy)
    span_entities = tuple(entities) if entities is not None else extract_identifiers(entries)
    content = content_check(summary, entries)
    dropped = find_dropped(summary, span_entities, everything=not content.passed)
    checks = (
        content,
        sections_check(summary, used),
        id_check,
        errors_check(span_entities, dropped, identifier_policy),
        ask_check(summary, ask),
        budget_check(summary, budget_chars),
    ) + ((pinned_check(summary, pinned),) if pinned else ())
    focus = span_focus(instructions, entries, summary)
    if focus.terms:
        checks += (AuditCheck("focus", *focus_result(focus)),)
    return AuditReport(
        passed=all(c.passed for c in checks),
        checks=checks,
        template=used,
        coverage=class_coverage(span_entities, dropped),
        identifiers_found=found,
        identifiers_missing=missing,
        dropped=dropped,
        compaction_id=compaction_id,
        summarized_entry_ids=tuple(e.id for e in entries),
        identifier_policy=identifier_policy,
        latest_ask=ask,
        summary_chars=len(summary),
        entities=span_entities,
        detected_template=detected,
        openclaw=openclaw_verdict(summary, entries, strict=identifier_policy == "strict"),
        carried_tail_entry_ids=tuple(carried_tail_entry_ids),
        focus=focus,
    )


#: Agents whose compaction summaries follow no heading template and no size cap: a Claude
#: Code ``compact_boundary`` summary, a Codex ``compacted`` replacement history.
_FREE_FORM_FORMATS = frozenset({"claude-code", "codex"})


def _writer_template(transcript: Transcript, entry: Entry, summary: str) -> str:
    """The template to judge an existing summary on: its own, or for a placeholder the one
    its writer promised (OpenClaw's safeguard for ``fromHook`` entries, else pi's); none
    for agents that promise no headings (their text may quote headings of the history)."""
    detected = detect_template(summary, from_hook=entry.from_hook)
    if transcript.format in _FREE_FORM_FORMATS:
        return "fallback" if detected == "fallback" else "none"
    if detected == "fallback":
        return "safeguard" if entry.from_hook else "structured"
    return detected


def audit_compaction(transcript: Transcript, compaction_id: str | None = None, *,
                     identifier_policy: IdentifierPolicy = "strict",
                     budget_chars: int | None = AUDIT_BUDGET_CHARS,
                     summary: str | None = None) -> AuditReport:
    """Audit a compaction the transcript already holds (default: the last one), or with
    ``summary`` another text (written by another tool, edited by hand) as its replacement.

    Raises AuditError when the transcript has no such compaction."""
    span: CompactionSpan = compaction_span(transcript, compaction_id)
    entry = transcript.entry(span.compaction_id)
    summary = entry.summary or "" if summary is None else summary
    report = audit_summary(
        transcript, summary,
        summarized_entry_ids=span.summarized_entry_ids,
        template=_writer_template(transcript, entry, summary),
        identifier_policy=identifier_policy,
        budget_chars=None if transcript.format in _FREE_FORM_FORMATS else budget_chars,
        compaction_id=span.compaction_id,
        from_hook=entry.from_hook,
        carried_tail_entry_ids=span.carried_tail_entry_ids,
        instructions=recorded_instructions(transcript, entry),
    )
    if not span.carried_tail_entry_ids:
        return report
    before = path_to(transcript, span.compaction_id)[:-1]
    prev = transcript.get(span.previous_compaction_id or "")
    found = kept_tail_finding(before, entry, [transcript.entry(i) for i in
                                             span.carried_tail_entry_ids], prev,
                              transcript.format)
    return replace(report, carried_tail_verdict=found.verdict, carried_tail_text=found.text)


def recorded_instructions(transcript: Transcript, entry: Entry) -> str:
    """The focus instructions SessionLens recorded with a compaction it wrote ("" for any
    other writer's), so re-reading audits the focus as the write did."""
    value = recorded_facts(transcript, entry).get("instructions")
    return value if isinstance(value, str) else ""
