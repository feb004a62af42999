"""The audit's checks, one function each: content, sections, identifiers, errors, latest ask,
pinned text and budget, plus the per-class coverage count. Pure; ``audit.report`` runs them
over a span and gathers their results into an ``AuditReport``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sessionlens.engine.contract.ask import ask_overlap
from sessionlens.engine.contract.identifiers import (
    IDENTIFIER_CLASSES,
    Identifier,
    entry_text,
    summary_contains,
)
from sessionlens.engine.contract.pinned import PinnedText, pinned_missing
from sessionlens.engine.contract.templates import fallback_text, section_reasons, substantive_text
from sessionlens.engine.model import Entry

from .dropped import DroppedItem

__all__ = [
    "AuditCheck",
    "ClassCoverage",
    "ask_check",
    "budget_check",
    "class_coverage",
    "content_check",
    "errors_check",
    "identifiers_check",
    "pinned_check",
    "sections_check",
]

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


def content_check(summary: str, entries: Sequence[Entry]) -> AuditCheck:
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


def sections_check(summary: str, template: str) -> AuditCheck:
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


def identifiers_check(summary: str, audited: Sequence[str], policy: str
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


def errors_check(entities: Sequence[Identifier], dropped: Sequence[DroppedItem],
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


def ask_check(summary: str, ask: str | None) -> AuditCheck:
    if not ask:
        return AuditCheck("latest_ask", True, "No user request in the summarized span.")
    wanted, found, need = ask_overlap(summary, ask)
    detail = (f"{len(found)} of {len(wanted)} key words of the user's latest request found "
              f"(need {need}): {', '.join(found) or 'none'}")
    if not wanted or len(found) >= need:
        return AuditCheck("latest_ask", True, detail + ".")
    return AuditCheck("latest_ask", False, detail + "; wanted: " + ", ".join(wanted) + ".",
                      ("latest_user_ask_not_reflected",))


def pinned_check(summary: str, pins: Sequence[PinnedText]) -> AuditCheck:
    """Every text the user pinned before the cut must be in the summary word for word."""
    missing = pinned_missing(summary, pins)
    kept = len(pins) - len(missing)
    detail = f"Pinned text kept verbatim: {kept} of {len(pins)} pinned entries"
    if not missing:
        return AuditCheck("pinned", True, detail + ".")
    return AuditCheck("pinned", False, detail + "; missing word for word: "
                      + ", ".join(f"entry {m}" for m in missing),
                      tuple(f"pinned_text_missing:{m}" for m in missing))


def budget_check(summary: str, budget: int | None) -> AuditCheck:
    n = len(summary)
    if budget is None:
        return AuditCheck("budget", True, f"{n} characters (this agent caps no summary size).")
    if n <= budget:
        return AuditCheck("budget", True, f"{n} of {budget} characters.")
    return AuditCheck("budget", False, f"{n} characters exceed the budget of {budget}.",
                      (f"over_budget:{n}>{budget}",))


def class_coverage(entities: Sequence[Identifier], dropped: Sequence[DroppedItem]) -> tuple[ClassCoverage, ...]:
    total: dict[str, int] = {}
    lost: dict[str, int] = {}
    for e in entities:
        total[e.cls] = total.get(e.cls, 0) + 1
    for d in dropped:
        lost[d.cls] = lost.get(d.cls, 0) + 1
    return tuple(ClassCoverage(c, total.get(c, 0) - lost.get(c, 0), total.get(c, 0))
                 for c in IDENTIFIER_CLASSES)
