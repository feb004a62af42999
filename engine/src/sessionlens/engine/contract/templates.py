"""Which template a summary follows, and which of its headings are missing or repeated.

A summary is judged against the template it was written to: pi's structured checkpoint,
OpenClaw's safeguard headings, a document with headings of its own (older pi and custom
prompts, e.g. sample 01's "Context Checkpoint"), or a fallback placeholder that some agent
wrote when summarization failed (sample 03's "Summary unavailable due to context limits").
The heading lists and the summary limits live here, the one copy the summarizer's prompts
and the auditor both read.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Literal

__all__ = [
    "FALLBACK_PATTERNS", "FOCUS_MAX_CHARS", "FOCUS_TRUNCATION_MARKER", "IDENTIFIER_POLICIES",
    "QUALITY_FEEDBACK_HEAD",
    "IdentifierPolicy",
    "REQUIRED_SECTIONS", "SPLIT_TURN_HEADER", "SUMMARY_MAX_CHARS", "SUMMARY_TRUNCATION_MARKER",
    "TURN_PREFIX_SECTIONS",
    "TemplateName",
    "detect_template",
    "fallback_text",
    "heading_lines",
    "required_sections",
    "section_reasons",
    "substantive_text",
]

#: OpenClaw caps a summary (body plus suffix) at this many characters (§3.5, §3.6).
SUMMARY_MAX_CHARS = 16_000
SUMMARY_TRUNCATION_MARKER = "\n\n[Compaction summary truncated to fit budget]"
#: The user's focus / identifier instructions are cut here (OpenClaw's 4,000-character cap).
FOCUS_MAX_CHARS = 4_000
FOCUS_TRUNCATION_MARKER = "\n[focus instructions cut at 4000 characters]"
#: The first line of the quality loop's feedback, which it appends to the user's focus
#: instructions; a summarizer reading the focus stops there (the rest is not the user's).
QUALITY_FEEDBACK_HEAD = "The previous summary did not pass the quality audit. Problems found:"
#: What joins the history summary and a split turn's prefix summary (pi ``compact``).
SPLIT_TURN_HEADER = "\n\n---\n\n**Turn Context (split turn):**\n\n"
#: How strictly a summary must keep opaque identifiers (OpenClaw ``identifierPolicy``).
IdentifierPolicy = Literal["strict", "off", "custom"]
IDENTIFIER_POLICIES: tuple[IdentifierPolicy, ...] = ("strict", "off", "custom")

#: The exact heading lines each template must hold (pi's structured one, OpenClaw's safeguard).
REQUIRED_SECTIONS: dict[str, tuple[str, ...]] = {
    "structured": ("## Goal", "## Constraints & Preferences", "## Progress", "### Done",
                   "### In Progress", "### Blocked", "## Key Decisions", "## Next Steps",
                   "## Critical Context"),
    "safeguard": ("## Decisions", "## Open TODOs", "## Constraints/Rules",
                  "## Pending user asks", "## Exact identifiers"),
}
TURN_PREFIX_SECTIONS = ("## Original Request", "## Early Progress", "## Context for Suffix")

#: "structured" (pi) and "safeguard" (OpenClaw) have fixed headings; "custom" is judged on
#: the headings it declares; "fallback" is a placeholder; "none" is plain prose.
TemplateName = Literal["structured", "safeguard", "custom", "fallback", "none"]

#: Placeholder texts agents write instead of a summary (§3.6 fallback chain, sample 03).
FALLBACK_PATTERNS: tuple[re.Pattern[str], ...] = (
    re.compile(r"summary unavailable due to (?:context|size) limits", re.I),
    re.compile(r"^\s*no prior history\.?\s*$", re.I),
    re.compile(r"^\s*context contained \d+ messages? \(\d+ oversized\)", re.I),
)

_HEADING = re.compile(r"^#{1,6}\s+\S")


def required_sections(template: str) -> tuple[str, ...]:
    """The exact heading lines a template requires (empty for templates without a fixed list)."""
    return tuple(REQUIRED_SECTIONS.get(template, ()))


def heading_lines(summary: str) -> tuple[str, ...]:
    """Every Markdown heading line, trimmed, in order (repeats kept)."""
    return tuple(line.strip() for line in summary.splitlines() if _HEADING.match(line.strip()))


def fallback_text(summary: str) -> str | None:
    """The placeholder sentence if the summary is a fallback rather than a summary."""
    body = summary.strip()
    if not body or len(body) > 600 or heading_lines(body):
        return None
    for pattern in FALLBACK_PATTERNS:
        if pattern.search(body):
            return body.splitlines()[0].strip()
    return None


def detect_template(summary: str, *, from_hook: bool = False) -> TemplateName:
    """The template the summary follows, judged by its own headings.

    A fixed template is recognised when at least half of its headings are present as exact
    lines; when both qualify the better match wins, and a tie goes to the writer
    (``fromHook`` compactions were written by OpenClaw's safeguard).
    """
    if fallback_text(summary) is not None:
        return "fallback"
    headings = set(heading_lines(summary))
    if not headings:
        return "none"
    scores: dict[str, float] = {}
    for name in ("structured", "safeguard"):
        wanted = required_sections(name)
        if wanted:
            scores[name] = sum(h in headings for h in wanted) / len(wanted)
    best = [name for name, score in scores.items() if score >= 0.5]
    if not best:
        return "custom"
    if len(best) == 2 and scores["structured"] == scores["safeguard"]:
        return "safeguard" if from_hook else "structured"
    return "structured" if max(best, key=lambda n: scores[n]) == "structured" else "safeguard"


def section_reasons(summary: str, template: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(required headings, failure reasons) for the template.

    Fixed templates: each required heading must be an exact trimmed line, exactly once
    (``missing_section:<h>``, ``duplicate_section:<h>``). A custom document is held to its
    own headings: none may repeat at the same text.
    """
    counts = Counter(heading_lines(summary))
    wanted = required_sections(template)
    if template == "custom" or not wanted:
        wanted = tuple(h for h in counts if h.startswith("## ")) if template == "custom" else ()
    reasons: list[str] = []
    for heading in wanted:
        n = counts.get(heading, 0)
        if n == 0:
            reasons.append(f"missing_section:{heading}")
        elif n > 1:
            reasons.append(f"duplicate_section:{heading}")
    return wanted, tuple(reasons)


_FILE_TAGS = re.compile(r"<(read-files|modified-files)>.*?</\1>", re.S)
#: Lines that say nothing: an empty section's placeholder, a rule, an empty bullet.
_EMPTY_LINES = frozenset({"", "(none)", "none", "n/a", "---", "no prior history."})


def substantive_text(summary: str) -> str:
    """What a summary says beyond its headings, empty "(none)" sections, rules and the
    file-list tags: "" for a summary that is all structure and no content."""
    text = _FILE_TAGS.sub("", summary)
    lines = [x.strip() for x in text.splitlines()]
    return "\n".join(x for x in lines if not _HEADING.match(x)
                     and re.sub(r"^(?:[-*•]|\d+[.)])\s*(?:\[[ x]\]\s*)?", "", x).strip().casefold()
                     not in _EMPTY_LINES)
