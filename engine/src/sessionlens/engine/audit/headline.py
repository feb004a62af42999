"""The audit's headline: two findings that must never read as one.

A green "Audit passed" over red coverage bars reads as "nothing important was lost", which
it does not mean. The headline therefore says two things, each labelled with who says it:

- ``rule``: the verdict of the agent's own rule (OpenClaw's quality guard,
  ``openclaw_verdict``): would the agent accept this summary?
- ``losses``: SessionLens's own finding over the whole summarized span: how many specifics
  were dropped and which classes kept least.

and, beside them, ``checks``: SessionLens's checks, the gate a write must pass. Every face
(GUI audit panel, Accept dialog, ``audit``/``compact`` text, exports) prints these strings as
they are, so the wording is decided once, here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol

from .checks import AuditCheck, ClassCoverage
from .dropped import DroppedItem
from .openclaw_verdict import OpenClawVerdict

__all__ = ["AuditHeadline", "Judged", "LossLevel", "audit_headline"]


class Judged(Protocol):
    """What a headline is made of: an audit's verdicts (``report.AuditReport`` is one)."""

    @property
    def passed(self) -> bool: ...
    @property
    def checks(self) -> tuple[AuditCheck, ...]: ...
    @property
    def coverage(self) -> tuple[ClassCoverage, ...]: ...
    @property
    def dropped(self) -> tuple[DroppedItem, ...]: ...
    @property
    def summarized_entry_ids(self) -> tuple[str, ...]: ...
    @property
    def openclaw(self) -> OpenClawVerdict | None: ...
    @property
    def total_loss(self) -> bool: ...
    @property
    def checks_passed(self) -> int: ...

#: "none": every specific kept; "some": some dropped; "total": the summary is no summary.
LossLevel = Literal["none", "some", "total"]

#: How a class is named in the losses line ("URL coverage 62%").
_CLASS_NAMES: dict[str, str] = {
    "path": "path", "command": "command", "error": "error message", "url": "URL",
    "uuid": "UUID", "hash": "hash", "host": "host", "port": "port", "quantity": "figure",
    "number": "number",
}
#: At most this many weakest classes are named in the losses line.
_NAMED_CLASSES = 2


@dataclass(frozen=True, slots=True)
class AuditHeadline:
    """The audit in three lines, each saying whose finding it is."""

    #: "OpenClaw's rule: would accept" / "OpenClaw's rule: would refuse (reasons)".
    rule: str
    #: None when no rule verdict was computed.
    rule_accepts: bool | None
    #: "SessionLens: 29 of 140 specifics dropped; URL coverage 62% (13 of 21), ...".
    losses: str
    loss_level: LossLevel
    #: "SessionLens checks: 6 of 6 passed" / "... FAILED: identifiers, errors (4 of 6 passed)".
    checks: str

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON data (``headline`` in audit, compact and export output)."""
        return {"rule": self.rule, "rule_accepts": self.rule_accepts, "losses": self.losses,
                "loss_level": self.loss_level, "checks": self.checks}

    @property
    def lines(self) -> tuple[str, str, str]:
        """The three lines in the order every text face prints them."""
        return self.rule, self.losses, self.checks


def _pct(found: int, total: int) -> str:
    return f"{100 * found // total}%"


def _rule(report: Judged) -> tuple[str, bool | None]:
    verdict = report.openclaw
    if verdict is None:
        return "OpenClaw's rule: not computed", None
    if verdict.passed:
        return "OpenClaw's rule: would accept", True
    return f"OpenClaw's rule: would refuse ({'; '.join(_readable(verdict.reasons))})", False


def _readable(reasons: tuple[str, ...]) -> list[str]:
    """OpenClaw's failure codes in words: headings counted, identifiers named."""
    headings = sum(r.startswith("missing_section:") for r in reasons)
    out = [f"{headings} required heading{'s' if headings > 1 else ''} missing"] if headings else []
    for r in reasons:
        if r.startswith("missing_identifiers:"):
            out.append("identifiers missing: " + r.partition(":")[2].replace(",", ", "))
        elif r == "latest_user_ask_not_reflected":
            out.append("latest user ask not reflected")
        elif not r.startswith("missing_section:"):
            out.append(r)
    return out


def _losses(report: Judged) -> tuple[str, LossLevel]:
    total = sum(c.total for c in report.coverage)
    dropped = len(report.dropped)
    if report.total_loss:
        return (f"SessionLens: TOTAL LOSS, the summary is a placeholder: all {dropped} specifics "
                f"of the {len(report.summarized_entry_ids)} summarized entries are gone"), "total"
    if dropped == 0:
        if total == 0:
            return "SessionLens: nothing dropped (the span holds no specifics to keep)", "none"
        return f"SessionLens: nothing dropped, all {total} specifics kept", "none"
    weak = sorted((c for c in report.coverage if c.total and c.found < c.total),
                  key=lambda c: (c.ratio, -c.total))
    named = ", ".join(f"{_CLASS_NAMES.get(c.cls, c.cls)} coverage {_pct(c.found, c.total)} "
                      f"({c.found} of {c.total})" for c in weak[:_NAMED_CLASSES])
    more = len(weak) - _NAMED_CLASSES
    return (f"SessionLens: {dropped} of {total} specifics dropped"
            + (f"; {named}" if named else "")
            + (f" and {more} more class{'es' if more > 1 else ''}" if more > 0 else "")), "some"


def _checks(report: Judged) -> str:
    n, of = report.checks_passed, len(report.checks)
    if report.passed:
        return f"SessionLens checks: {n} of {of} passed"
    failed = ", ".join(c.name for c in report.checks if not c.passed)
    return f"SessionLens checks: FAILED {failed} ({n} of {of} passed)"


def audit_headline(report: Judged) -> AuditHeadline:
    """The headline of ``report``. Pure."""
    rule, accepts = _rule(report)
    losses, level = _losses(report)
    return AuditHeadline(rule, accepts, losses, level, _checks(report))
