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

from sessionlens.engine.contract.ask import ask_overlap
from sessionlens.engine.contract.focus_terms import FocusCoverage
from sessionlens.engine.contract.identifiers import (
    IDENTIFIER_CLASSES,
    Identifier,
    entry_text,
    extract_identifiers,
    summary_contains,
)
from sessionlens.engine.contract.pinned import PinnedText, pinned_missing
from sessionlens.engine.contract.templates import (
    SUMMARY_MAX_CHARS,
    IdentifierPolicy,
    detect_template,
    fallback_text,
    section_reasons,
    substantive_text,
)
from sessionlens.engine.contract.user_words import user_words
from sessionlens.engine.model import Entry, Transcript
from sessionlens.engine.persist.provenance import recorded_facts

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
class AuditCheck:
    """One check: its name, whether it passed, a readable detail and machine reasons."""

    name: str
    passed: bool
    detail: str
    #: Failure codes (``missing_section:## Goal``, ``latest_user_ask_not_reflected``, ...);
    #: empty when the check passed.
    reasons: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON data (one entry of ``checks`` in audit, compact and export output)."""
        return {"name": self.name, "passed": self.passed, "detail": self.detail,
                "reasons": list(self.reasons)}


@dataclass(frozen=True, slots=True)
class ClassCoverage:
    """How many entities of one class the summary kept."""

    cls: str
    found: int
    total: int

    @property
    def ratio(self) -> float:
        return 1.0 if self.total == 0 else self.found / self.total


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


def _content_check(summary: str, entries: Sequence[Entry]) -> AuditCheck:
    lost = f"total loss: the {len(entries)} summarized entries are replaced by nothing"
    if not summary.strip():
        return AuditCheck("content", False, f"The summary is empty ({lost}).", ("empty_summary",))
    if not substantive_text(summary) and any(entry_text(e).strip() for e in entries):
        return AuditCheck("content", False, "Every section of the summary is empty or "
                          f"'(none)' while the span has content ({lost}).", ("empty_sections",))
    placeholder = fallback_text(summary)
    if placeholder is not None:
        return AuditCheck("content", False,
                          f"A fallback placeholder, not a summary ({lost}): {placeholder!r}",
                          ("fallback_summary",))
    return AuditCheck("content", True, f"{len(summary)} characters of summary.")


def _sections_check(summary: str, template: str) -> AuditCheck:
    wanted, reasons = section_reasons(summary, template)
    if not wanted:
        return AuditCheck("sections", True, f"Template {template!r} requires no headings.")
    if reasons:
        missing = sum(r.startswith("missing_") for r in reasons)
        dup = len(reasons) - missing
        return AuditCheck("sections", False,
                          f"{missing} of {len(wanted)} required headings missing, {dup} repeated "
                          f"(template {template!r}).", reasons)
    return AuditCheck("sections", True,
                      f"All {len(wanted)} headings of template {template!r} present once.")


def _identifiers_check(summary: str, audited: Sequence[str], policy: str
                       ) -> tuple[AuditCheck, tuple[str, ...], tuple[str, ...]]:
    found = tuple(i for i in audited if summary_contains(summary, i))
    missing = tuple(i for i in audited if i not in found)
    where = "custom list" if policy == "custom" else \
        "last 10 messages of the span (OpenClaw's identifier rule)"
    detail = f"{len(found)} of {len(audited)} identifiers from the {where} kept"
    if not missing:
        return AuditCheck("identifiers", True, detail + "."), found, missing
    if policy == "off":
        return AuditCheck("identifiers", True, detail + " (policy off: reported only)."), found, missing
    reason = "missing_identifiers:" + ",".join(missing[:3])
    return AuditCheck("identifiers", False, detail + "; missing: " + ", ".join(missing),
                      (reason,)), found, missing


def _errors_check(entities: Sequence[Identifier], dropped: Sequence[DroppedItem],
                  policy: str) -> AuditCheck:
    """Every error message of the span must survive: once dropped, its output is gone."""
    total = sum(e.cls == "error" for e in entities)
    lost = [d for d in dropped if d.cls == "error"]
    detail = (f"{total - len(lost)} of {total} error messages of the span kept "
              "(tool output, test and build output, errors quoted in replies)")
    if not lost:
        return AuditCheck("errors", True, detail + ".")
    if policy == "off":
        return AuditCheck("errors", True, detail + " (policy off: reported only).")
    named = "; ".join(d.display for d in lost[:3]) + (f"; and {len(lost) - 3} more"
                                                      if len(lost) > 3 else "")
    return AuditCheck("errors", False, f"{detail}; dropped: {named}",
                      ("missing_errors:" + ",".join(d.value[:60] for d in lost[:3]),))


def _ask_check(summary: str, ask: str | None) -> AuditCheck:
    if not ask:
        return AuditCheck("latest_ask", True, "No user request in the summarized span.")
    wanted, found, need = ask_overlap(summary, ask)
    detail = (f"{len(found)} of {len(wanted)} key words of the user's latest request found "
              f"(need {need}): {', '.join(found) or 'none'}")
    if not wanted or len(found) >= need:
        return AuditCheck("latest_ask", True, detail + ".")
    return AuditCheck("latest_ask", False, detail + "; wanted: " + ", ".join(wanted) + ".",
                      ("latest_user_ask_not_reflected",))


def _pinned_check(summary: str, pins: Sequence[PinnedText]) -> AuditCheck:
    """Every text the user pinned before the cut must be in the summary word for word."""
    missing = pinned_missing(summary, pins)
    kept = len(pins) - len(missing)
    detail = f"Pinned text kept verbatim: {kept} of {len(pins)} pinned entries"
    if not missing:
        return AuditCheck("pinned", True, detail + ".")
    return AuditCheck("pinned", False, detail + "; missing word for word: "
                      + ", ".join(f"entry {m}" for m in missing),
                      tuple(f"pinned_text_missing:{m}" for m in missing))


def _budget_check(summary: str, budget: int | None) -> AuditCheck:
    n = len(summary)
    if budget is None:
        return AuditCheck("budget", True, f"{n} characters (this agent caps no summary size).")
    if n <= budget:
        return AuditCheck("budget", True, f"{n} of {budget} characters.")
    return AuditCheck("budget", False, f"{n} characters exceed the budget of {budget}.",
                      (f"over_budget:{n}>{budget}",))


def _coverage(entities: Sequence[Identifier], dropped: Sequence[DroppedItem]) -> tuple[ClassCoverage, ...]:
    total: dict[str, int] = {}
    lost: dict[str, int] = {}
    for e in entities:
        total[e.cls] = total.get(e.cls, 0) + 1
    for d in dropped:
        lost[d.cls] = lost.get(d.cls, 0) + 1
    return tuple(ClassCoverage(c, total.get(c, 0) - lost.get(c, 0), total.get(c, 0))
                 for c in IDENTIFIER_CLASSES)


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
    id_check, found, missing = _identifiers_check(summary, audited, identifier_policy)
    span_entities = tuple(entities) if entities is not None else extract_identifiers(entries)
    content = _content_check(summary, entries)
    dropped = find_dropped(summary, span_entities, everything=not content.passed)
    checks = (
        content,
        _sections_check(summary, used),
        id_check,
        _errors_check(span_entities, dropped, identifier_policy),
        _ask_check(summary, ask),
        _budget_check(summary, budget_chars),
    ) + ((_pinned_check(summary, pinned),) if pinned else ())
    focus = span_focus(instructions, entries, summary)
    if focus.terms:
        checks += (AuditCheck("focus", *focus_result(focus)),)
    return AuditReport(
        passed=all(c.passed for c in checks),
        checks=checks,
        template=used,
        coverage=_coverage(span_entities, dropped),
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
