"""Pinned entries: the text the user said must survive a compaction word for word.

A pinned entry after the cut is kept as it is (the successor copies it); a pinned entry
before the cut would be summarized away, so its text is carried into the summary as a quoted
block under the template's closing section (Critical Context for pi's structured template,
Exact identifiers for OpenClaw's safeguard one). The block is added by the engine after the
model answered, never left to the model, and the size cap trims the rest of the summary
before it ever touches the block. The summarizer and the auditor both read these rules, so
what is inserted is exactly what the audit looks for.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from sessionlens.engine.model import Entry, TextBlock, Transcript

from .templates import SPLIT_TURN_HEADER, SUMMARY_MAX_CHARS, SUMMARY_TRUNCATION_MARKER

__all__ = [
    "PINNED_BLOCK_HEAD",
    "PINNED_SECTION",
    "PinPlace",
    "PinnedText",
    "entry_pin_text",
    "place_pins",
    "pinned_block",
    "pinned_missing",
    "pinned_texts",
    "with_pinned",
]

#: The section each template's pinned block goes under (others get a section of their own).
PINNED_SECTION: dict[str, str] = {"structured": "## Critical Context",
                                  "safeguard": "## Exact identifiers"}
_OWN_SECTION = "## Pinned entries"
#: The first line of the block: how a reader (and a re-run) recognises it.
PINNED_BLOCK_HEAD = "Pinned by the user (kept verbatim):"
_QUOTE = re.compile(r"^[ \t]*>[ \t]?", re.M)
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class PinnedText:
    """One pinned entry before the cut: its id, role and the text that must survive."""

    entry_id: str
    role: str
    text: str


def entry_pin_text(entry: Entry) -> str:
    """The text of an entry a pin keeps: what a reader sees as its body."""
    m = entry.message
    if m is not None:
        if m.role == "bashExecution":
            return "\n".join(x for x in (f"$ {m.command}" if m.command else "", m.output or "")
                             if x)
        text = m.text
        if not text and m.tool_calls:
            text = "\n".join(f"{c.name}({json.dumps(c.arguments, ensure_ascii=False)})"
                             for c in m.tool_calls)
        return text.strip()
    if entry.summary:
        return entry.summary.strip()
    return "\n".join(b.text for b in entry.content if isinstance(b, TextBlock)).strip()


def pinned_texts(transcript: Transcript, summarized_entry_ids: Sequence[str],
                 pins: Sequence[str]) -> tuple[PinnedText, ...]:
    """The pinned entries among ``summarized_entry_ids`` (in transcript order), with text."""
    wanted = set(pins)
    out: list[PinnedText] = []
    for entry_id in summarized_entry_ids:
        if entry_id not in wanted:
            continue
        entry = transcript.get(entry_id)
        text = entry_pin_text(entry) if entry is not None else ""
        if text:
            out.append(PinnedText(entry_id, entry.role or entry.type if entry else "", text))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class PinPlace:
    """Where a pin stands against a plan: carried into the ``summary`` (before the cut),
    ``kept`` as is (after it), or ``off_path`` (another branch, or no longer in the file)."""

    entry_id: str
    role: str
    where: str
    text: str


def place_pins(transcript: Transcript, summarized_entry_ids: Sequence[str],
               pins: Sequence[str]) -> tuple[PinPlace, ...]:
    """Each pin with where it stands (in pin order), for the panels' pin lists."""
    summarized = set(summarized_entry_ids)
    on_path = set(transcript.active_path)
    out = []
    for entry_id in pins:
        entry = transcript.get(entry_id)
        role = (entry.role or entry.type) if entry is not None else ""
        where = ("summary" if entry_id in summarized else "kept" if entry_id in on_path
                 else "off_path")
        out.append(PinPlace(entry_id, role, where,
                            entry_pin_text(entry) if entry is not None else ""))
    return tuple(out)


def pinned_block(pins: Sequence[PinnedText]) -> str:
    """The quoted block: one head line, then each pinned text as a Markdown quote."""
    parts = [PINNED_BLOCK_HEAD]
    for pin in pins:
        quoted = "\n".join(f"> {line}" if line else ">" for line in pin.text.splitlines())
        parts.append(f"> [pinned {pin.role} entry {pin.entry_id}]\n{quoted}")
    return "\n\n".join(parts)


def _words(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def pinned_missing(summary: str, pins: Sequence[PinnedText]) -> tuple[str, ...]:
    """Ids of the pins whose text is not in ``summary`` word for word.

    Word for word: the same words in the same order, whatever the line breaks, spacing or
    quote marks (``>``) around them, so a user's re-wrapped edit still counts."""
    plain = _words(_QUOTE.sub("", summary))
    return tuple(p.entry_id for p in pins if _words(_QUOTE.sub("", p.text)) not in plain)


def _section_end(body: str, heading: str) -> int | None:
    """Where the section under ``heading`` ends: the next heading of its level or above, or
    the split-turn join (the turn prefix's summary follows the history's own sections)."""
    split = body.find(SPLIT_TURN_HEADER)
    history = body[:split] if split >= 0 else body
    match = re.search(rf"^[ \t]*{re.escape(heading)}[ \t]*$", history, re.M)
    if match is None:
        return None
    level = len(heading) - len(heading.lstrip("#"))
    nxt = re.compile(rf"^[ \t]*#{{1,{level}}}\s+\S", re.M).search(history, match.end())
    return nxt.start() if nxt is not None else len(history)


def with_pinned(summary: str, pins: Sequence[PinnedText], template: str, *,
                suffix: str = "", limit: int = SUMMARY_MAX_CHARS) -> str:
    """``summary`` with the pinned block under the template's section, within ``limit``.

    ``suffix`` (the file-operation tags) stays last. When the whole would exceed ``limit``
    the summary's own text is cut, with the usual marker, never the block: a pinned text
    that alone exceeds the limit is kept whole and the audit's budget check says so."""
    if not pins:
        return summary
    body = summary[:-len(suffix)] if suffix and summary.endswith(suffix) else summary
    if suffix and not summary.endswith(suffix):
        suffix = ""
    block = pinned_block(pins)
    heading = PINNED_SECTION.get(template)
    end = _section_end(body, heading) if heading else None
    extra = len(block) + 2 + len(f"\n\n{heading or _OWN_SECTION}\n\n")
    room = limit - len(suffix) - extra
    if len(body) > room:
        body = body[:max(0, room - len(SUMMARY_TRUNCATION_MARKER))].rstrip()
        body += SUMMARY_TRUNCATION_MARKER
        end = _section_end(body, heading) if heading else None
    if end is None:
        return f"{body.rstrip()}\n\n{heading or _OWN_SECTION}\n\n{block}{suffix}"
    head, tail = body[:end].rstrip(), body[end:]
    joined = f"{head}\n\n{block}"
    return joined + (f"\n\n{tail.lstrip()}" if tail.strip() else "") + suffix
