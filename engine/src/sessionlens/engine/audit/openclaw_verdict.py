"""What OpenClaw's own quality guard would say about a summary (transcript-format.md §3.6).

SessionLens judges a summary on the whole span it replaces; OpenClaw's ``auditSummaryQuality``
judges it on five headings, the opaque identifiers of the last 10 messages and the raw text
of the latest user message (envelope included). Users running OpenClaw want both answers, and
must be able to tell them apart, so this verdict is kept separate and always labelled as
OpenClaw's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sessionlens.engine.contract.ask import has_ask_overlap
from sessionlens.engine.contract.identifiers import entry_text, summary_contains
from sessionlens.engine.contract.opaque import AUDIT_RECENT_MESSAGES, extract_opaque_identifiers
from sessionlens.engine.contract.templates import required_sections
from sessionlens.engine.model import Entry

__all__ = ["OPENCLAW_LABEL", "OpenClawVerdict", "openclaw_verdict", "recent_opaque_identifiers"]

#: How every face names this verdict.
OPENCLAW_LABEL = "OpenClaw's quality guard (its own rules)"


@dataclass(frozen=True, slots=True)
class OpenClawVerdict:
    """OpenClaw's ``auditSummaryQuality`` result: ok, and its failure reasons verbatim."""

    passed: bool
    reasons: tuple[str, ...]
    #: The identifiers OpenClaw would require (at most 12, from the last 10 messages).
    identifiers: tuple[str, ...]
    #: The latest user message as OpenClaw reads it (raw text, envelope included).
    latest_ask: str | None
    label: str = OPENCLAW_LABEL

    def as_dict(self) -> dict[str, Any]:
        return {"label": self.label, "passed": self.passed, "reasons": list(self.reasons),
                "identifiers": list(self.identifiers), "latest_ask": self.latest_ask}


def _raw_latest_ask(entries: Sequence[Entry]) -> str | None:
    for entry in reversed(entries):
        if entry.message is not None and entry.message.role == "user" and entry.message.text.strip():
            return entry.message.text
    return None


def recent_opaque_identifiers(entries: Sequence[Entry]) -> tuple[str, ...]:
    """The identifiers OpenClaw's strict audit requires: from the last 10 messages' text."""
    messages = [e for e in entries if e.message is not None]
    return extract_opaque_identifiers(
        "\n".join(entry_text(e) for e in messages[-AUDIT_RECENT_MESSAGES:]))


def openclaw_verdict(summary: str, entries: Sequence[Entry], *, strict: bool = True
                     ) -> OpenClawVerdict:
    """OpenClaw's verdict on ``summary`` as the replacement of ``entries``.

    Pure. ``strict`` is ``identifierPolicy: "strict"`` (OpenClaw's default); otherwise the
    identifiers are listed but not required, as OpenClaw does."""
    lines = {line.strip() for line in summary.splitlines()}
    reasons = [f"missing_section:{h}" for h in required_sections("safeguard") if h not in lines]
    identifiers = recent_opaque_identifiers(entries)
    missing = [i for i in identifiers if not summary_contains(summary, i)]
    if strict and missing:
        reasons.append("missing_identifiers:" + ",".join(missing[:3]))
    ask = _raw_latest_ask(entries)
    if not has_ask_overlap(summary, ask):
        reasons.append("latest_user_ask_not_reflected")
    return OpenClawVerdict(not reasons, tuple(reasons), identifiers, ask)
