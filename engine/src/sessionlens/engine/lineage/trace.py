"""Fact trace: where a fact first appeared, who mentioned it, and which compaction lost it.

"Why did my agent forget X?" has a precise answer: the first compaction that replaced the
history holding X with a summary that does not carry it, while nothing it kept verbatim
mentions X either. This walks the transcripts of a session's chain (oldest first, as
``load_chain_transcripts`` gives them) along each file's active path, skipping the entries a
successor copied from its predecessor, and keeps one bit of state: is X in the agent's
context right now? A mention puts it there; a compaction keeps it there if its summary
(``summary_contains``, by the value's class) or its kept tail carries it, and otherwise
drops it. Pure: the transcripts are loaded by the caller.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from sessionlens.engine.audit.span import path_to
from sessionlens.engine.contract.identifiers import classify_value, entry_text, summary_contains
from sessionlens.engine.contract.templates import fallback_text
from sessionlens.engine.model import Entry, ThinkingBlock, Transcript
from sessionlens.engine.sessions.store import foreign_basename
from sessionlens.engine.transcript_secrets import blanked, transcript_secret_values

__all__ = ["CompactionTrace", "FactMention", "FactTrace", "MentionFate", "describe_trace",
           "mention_fate", "trace_fact", "trace_to_json"]

TraceStatus = Literal["kept", "dropped", "absent"]
_SNIPPET = 60


@dataclass(frozen=True, slots=True)
class FactMention:
    """One entry that mentions the fact."""

    path: Path
    entry_id: str
    line: int
    timestamp: str | None
    #: The message role, or the entry type for non-message entries.
    role: str
    snippet: str
    on_active_path: bool
    #: Position in the walk over the chain (orders mentions against compactions).
    order: int


@dataclass(frozen=True, slots=True)
class CompactionTrace:
    """What one compaction did with the fact."""

    #: 1-based, in chain order ("compaction 3").
    number: int
    compaction_id: str
    path: Path
    line: int
    timestamp: str | None
    on_active_path: bool
    #: The fact was in context just before (mentioned since, or kept by the previous summary).
    known_before: bool
    in_summary: bool
    #: An entry the compaction kept verbatim (from ``firstKeptEntryId`` on) mentions it.
    in_kept_tail: bool
    order: int

    @property
    def kept(self) -> bool:
        """The fact is still in context after this compaction."""
        return self.in_summary or self.in_kept_tail

    @property
    def status(self) -> TraceStatus:
        """kept; dropped (it was in context and is not any more); absent (it was not)."""
        if self.kept:
            return "kept"
        return "dropped" if self.known_before else "absent"


@dataclass(frozen=True, slots=True)
class FactTrace:
    """The life of one fact along a chain of transcripts."""

    query: str
    #: The identifier class the query was matched by, or None for free text.
    cls: str | None
    files: tuple[Path, ...]
    mentions: tuple[FactMention, ...]
    compactions: tuple[CompactionTrace, ...]

    @property
    def first_seen(self) -> FactMention | None:
        return min(self.mentions, key=lambda m: m.order, default=None)

    @property
    def lost_at(self) -> CompactionTrace | None:
        """The first compaction on an active path that dropped the fact after it was known."""
        return next((c for c in self.compactions if c.on_active_path and c.status == "dropped"),
                    None)

    @property
    def mentioned_after_loss(self) -> tuple[FactMention, ...]:
        lost = self.lost_at
        if lost is None:
            return ()
        return tuple(m for m in self.mentions if m.on_active_path and m.order > lost.order)


def _fold(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def _haystack(entry: Entry) -> str:
    """What an entry says: its readable text and its thinking (the model saw both)."""
    parts = [entry_text(entry)]
    if entry.message is not None:
        parts.extend(b.thinking for b in entry.message.content if isinstance(b, ThinkingBlock))
    return "\n".join(p for p in parts if p)


class _Matcher:
    def __init__(self, query: str) -> None:
        self.query = query.strip()
        self.cls = classify_value(self.query)
        self.folded = _fold(self.query)

    def contains(self, text: str) -> bool:
        if not text or not self.query:
            return False
        if self.cls is not None:
            return summary_contains(text, self.query, self.cls)
        return self.folded in _fold(text)

    def snippet(self, text: str) -> str:
        flat = " ".join(text.split())
        at = flat.casefold().find(self.query.casefold())
        if at < 0:
            return flat[: 2 * _SNIPPET] + ("…" if len(flat) > 2 * _SNIPPET else "")
        start, end = max(0, at - _SNIPPET), min(len(flat), at + len(self.query) + _SNIPPET)
        return ("…" if start else "") + flat[start:end] + ("…" if end < len(flat) else "")


def _parents(transcripts: Sequence[Transcript]) -> list[int | None]:
    """For each transcript, the index of the earlier one its header names as predecessor."""
    by_name: dict[str, int] = {}
    out: list[int | None] = []
    for i, t in enumerate(transcripts):
        h = t.header
        raw = (h.parent_session or h.branched_from) if h is not None else None
        out.append(by_name.get(foreign_basename(raw)) if raw else None)
        by_name.setdefault(t.path.name, i)
    return out


def _role(entry: Entry) -> str:
    return entry.message.role if entry.message is not None else entry.type


class _Walk:
    """The state of the walk: mentions and compactions found so far, in order."""

    def __init__(self, matcher: _Matcher, secrets: Mapping[str, str]) -> None:
        self.m = matcher
        self.secrets = secrets  # blanked in every snippet (issue 39 item 2)
        self.mentions: list[FactMention] = []
        self.compactions: list[CompactionTrace] = []
        self.order = 0

    def mention(self, t: Transcript, entry: Entry, on_path: bool) -> bool:
        text = _haystack(entry)
        if not self.m.contains(text):
            return False
        self.order += 1
        self.mentions.append(FactMention(t.path, entry.id, entry.line, entry.timestamp,
                                         _role(entry), self.m.snippet(blanked(text, self.secrets)),
                                         on_path, self.order))
        return True

    def compaction(self, t: Transcript, path: Sequence[Entry], at: int, known: bool,
                   on_path: bool) -> bool:
        entry = path[at]
        ids = [e.id for e in path[:at]]
        tail: Sequence[Entry] = ()
        if entry.first_kept_entry_id in ids:
            tail = path[ids.index(entry.first_kept_entry_id):at]
        in_tail = any(self.m.contains(_haystack(e)) for e in tail)
        self.order += 1
        summary = entry.summary or ""
        in_summary = fallback_text(summary) is None and self.m.contains(summary)  # a
        # placeholder ("Summary unavailable ...") keeps nothing, whatever words it has
        c = CompactionTrace(len(self.compactions) + 1, entry.id, t.path, entry.line,
                            entry.timestamp, on_path, known, in_summary, in_tail, self.order)
        self.compactions.append(c)
        return c.kept


def trace_fact(transcripts: Sequence[Transcript], query: str) -> FactTrace:
    """Trace ``query`` (any text or identifier) through ``transcripts``, oldest first.

    A successor's copies of its predecessor's entries (same ids) are not counted twice; a
    compaction both files hold is judged where it first appears. Entries off the active
    path are listed as mentions but do not change what the agent had in context."""
    m = _Matcher(query)
    secrets: dict[str, str] = {}
    for t in transcripts:
        secrets.update(transcript_secret_values(t))
    walk = _Walk(m, secrets)
    parents = _parents(transcripts)
    seen_by: list[frozenset[str]] = []
    state_by: list[bool] = []
    for i, t in enumerate(transcripts):
        parent = parents[i]
        inherited = seen_by[parent] if parent is not None else frozenset()
        in_context = state_by[parent] if parent is not None else False
        path = t.path_entries()
        on_path = {e.id for e in path}
        for at, entry in enumerate(path):
            if entry.id in inherited:
                continue
            if entry.type == "compaction":
                in_context = walk.compaction(t, path, at, in_context, True)
            elif walk.mention(t, entry, True):
                in_context = True
        for entry in t.entries:  # side branches: who mentioned it there, and what they kept
            if entry.id in inherited or entry.id in on_path:
                continue
            if entry.type == "compaction":
                side = path_to(t, entry.id)
                walk.compaction(t, side, len(side) - 1, False, False)
            else:
                walk.mention(t, entry, False)
        seen_by.append(inherited | {e.id for e in t.entries})
        state_by.append(in_context)
    return FactTrace(m.query, m.cls, tuple(t.path for t in transcripts), tuple(walk.mentions),
                     tuple(walk.compactions))


@dataclass(frozen=True, slots=True)
class MentionFate:
    """What the compactions after one mention did with the fact (search's fate of a hit)."""

    #: live: no compaction on the active path came after the mention; kept: each one since
    #: kept it; lost: ``compaction`` dropped it; unmentioned: the entry does not mention it.
    status: Literal["live", "kept", "lost", "unmentioned"]
    compaction: CompactionTrace | None = None


def mention_fate(trace: FactTrace, entry_id: str, path: Path | None = None) -> MentionFate:
    """The fate of the fact as entry ``entry_id`` mentioned it: the trace's own verdicts on
    the compactions that followed, along the chain into successors (``lost_at`` is this for
    the first mention). A successor's copy of an entry is its predecessor's mention."""
    found = [m for m in trace.mentions if m.entry_id == entry_id]
    mention = next((m for m in found if path is not None and m.path == path),
                   found[0] if found else None)
    if mention is None:
        return MentionFate("unmentioned")
    last: CompactionTrace | None = None
    for c in trace.compactions:
        if not c.on_active_path or c.order < mention.order:
            continue
        if c.status == "dropped":
            return MentionFate("lost", c)
        last = c
    return MentionFate("kept", last) if last is not None else MentionFate("live")


def _when(timestamp: str | None) -> str:
    """``2026-01-31T08:12:05.723Z`` as ``2026-01-31 08:12`` (the time as recorded)."""
    if not timestamp:
        return "time not recorded"
    return timestamp.replace("T", " ")[:16]


def describe_trace(trace: FactTrace) -> str:
    """The answer in one or two sentences (what the CLI prints and the GUI shows)."""
    first = trace.first_seen
    kept_by = [c for c in trace.compactions if c.on_active_path and c.in_summary]
    if first is None and not kept_by:
        return f"{trace.query!r} is not mentioned in these {len(trace.files)} file(s)."
    parts: list[str] = []
    if first is not None:
        parts.append(f"first seen in {first.path.name} entry {first.entry_id} "
                     f"({_when(first.timestamp)}, {first.role}); mentioned in "
                     f"{len(trace.mentions)} entr{'y' if len(trace.mentions) == 1 else 'ies'}")
    else:
        parts.append(f"never mentioned in an entry; compaction {kept_by[0].number} "
                     "brought it in through its summary")
    lost = trace.lost_at
    if lost is not None:
        again = trace.mentioned_after_loss
        after = ("never mentioned again" if not again else
                 f"mentioned again in {len(again)} later entr{'y' if len(again) == 1 else 'ies'}"
                 f" (first: {again[0].entry_id})")
        parts.append(f"lost at compaction {lost.number} ({_when(lost.timestamp)}), {after}")
    elif any(c.on_active_path for c in trace.compactions):
        parts.append("no compaction dropped it")
    return "; ".join(parts) + "."


def _mention_json(m: FactMention) -> dict[str, Any]:
    return {"path": str(m.path), "entry_id": m.entry_id, "line": m.line,
            "timestamp": m.timestamp, "role": m.role, "snippet": m.snippet,
            "on_active_path": m.on_active_path}


def trace_to_json(trace: FactTrace) -> dict[str, Any]:
    """The ``trace --json`` object: ``compactions`` in chain order, ``lost_at`` an id or null."""
    lost = trace.lost_at
    first = trace.first_seen
    return {
        "query": trace.query,
        "class": trace.cls,
        "files": [str(p) for p in trace.files],
        "first_seen": _mention_json(first) if first is not None else None,
        "mentions": [_mention_json(m) for m in trace.mentions],
        "compactions": [{"id": c.compaction_id, "number": c.number, "kept": c.kept,
                         "status": c.status, "in_summary": c.in_summary,
                         "in_kept_tail": c.in_kept_tail, "known_before": c.known_before,
                         "path": str(c.path), "line": c.line, "timestamp": c.timestamp,
                         "on_active_path": c.on_active_path} for c in trace.compactions],
        "lost_at": lost.compaction_id if lost is not None else None,
        "lost_at_number": lost.number if lost is not None else None,
        "mentioned_after_loss": len(trace.mentioned_after_loss),
        "verdict": describe_trace(trace),
    }
