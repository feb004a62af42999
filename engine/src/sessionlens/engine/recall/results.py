"""What the recall tools answer: small typed records, every one naming its session's path.

Plain frozen dataclasses of strings, numbers and tuples, so the MCP adapter publishes their
shape as each tool's output schema and a model reads the same fields every time. Lists are
bounded by the tool (``shown`` of ``total``); long texts are paged (``next_offset``).
Frozen but not slotted: the SDK reads a class's attributes as field defaults, and a slot
descriptor is no JSON value (it then publishes no schema at all).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "CompactionDrops", "CompactionFate", "CompactionLine", "DroppedFact", "EntryText",
    "FactTraceResult", "HitFateView", "MentionLine", "OriginalText", "SearchAnswer",
    "SessionHitView", "SessionLine", "SessionList", "SessionOverview",
]


@dataclass(frozen=True)
class SessionLine:
    """One session file in the scope."""

    path: str
    agent: str | None
    session_id: str | None
    format: str
    entries: int
    compactions: int | None
    modified: str
    project: str | None
    title: str | None


@dataclass(frozen=True)
class SessionList:
    sessions: tuple[SessionLine, ...]
    total: int
    roots: tuple[str, ...]


@dataclass(frozen=True)
class HitFateView:
    """What compaction did to a search hit, in words and as fields."""

    #: live (not compacted yet), kept, lost, or unchecked (replaced, nothing to look for).
    status: str
    #: "not compacted yet" / "kept by compaction X" / "lost at compaction X (missing: ...)".
    text: str
    compaction_id: str | None
    missing: tuple[str, ...]


@dataclass(frozen=True)
class SessionHitView:
    path: str
    entry_id: str
    role: str
    agent: str | None
    session_id: str | None
    timestamp: str | None
    score: float
    snippet: str
    fate: HitFateView


@dataclass(frozen=True)
class SearchAnswer:
    query: str
    hits: tuple[SessionHitView, ...]
    #: "text" (BM25) or "hybrid".
    mode: str
    notes: tuple[str, ...]


@dataclass(frozen=True)
class CompactionLine:
    """One compaction as the overview lists it (worst first, as memory health orders them)."""

    compaction_id: str
    number: int
    timestamp: str | None
    severity: str
    trigger: str
    tokens_replaced: int
    summary_tokens: int
    dropped: int
    audit_passed: bool
    flags: tuple[str, ...]


@dataclass(frozen=True)
class SessionOverview:
    path: str
    agent: str | None
    session_id: str | None
    format: str
    model: str | None
    provider: str | None
    entries: int
    messages: int
    first_timestamp: str | None
    last_timestamp: str | None
    compaction_count: int
    #: The worst compaction's severity ("critical", "warning", "notice", "ok"), or "none".
    memory_health: str
    compactions: tuple[CompactionLine, ...]


@dataclass(frozen=True)
class MentionLine:
    path: str
    entry_id: str
    timestamp: str | None
    role: str
    snippet: str
    on_active_path: bool


@dataclass(frozen=True)
class CompactionFate:
    """What one compaction of the chain did with the fact."""

    number: int
    compaction_id: str
    path: str
    timestamp: str | None
    #: kept (summary or kept tail still carries it), dropped (lost here), absent (not in
    #: context at the time).
    status: str
    in_summary: bool
    in_kept_tail: bool
    on_active_path: bool


@dataclass(frozen=True)
class FactTraceResult:
    path: str
    query: str
    #: One or two sentences: "... lost at compaction 2 (2026-01-31 08:12), ...".
    answer: str
    #: The first compaction that dropped it, e.g. "compaction 2 (578fa8c6)", or None.
    lost_at: str | None
    lost_at_compaction_id: str | None
    files: tuple[str, ...]
    mentions: tuple[MentionLine, ...]
    mentions_total: int
    compactions: tuple[CompactionFate, ...]


@dataclass(frozen=True)
class DroppedFact:
    value: str
    #: Identifier class: path, url, error, command, number, ...
    cls: str
    #: What it meant where it was written ("" when the value speaks for itself).
    context: str
    #: Entries that mention it (pass them to original_text).
    entry_ids: tuple[str, ...]


@dataclass(frozen=True)
class CompactionDrops:
    path: str
    compaction_id: str
    number: int
    timestamp: str | None
    audit_passed: bool
    total_loss: bool
    summarized_entries: int
    #: Per class "found/total" of the specifics the summarized span held.
    coverage: tuple[str, ...]
    dropped: tuple[DroppedFact, ...]
    dropped_total: int
    summary_preview: str
    #: Where the summarized span was read, when it lives in a predecessor file.
    span_source: str | None


@dataclass(frozen=True)
class EntryText:
    entry_id: str
    role: str
    timestamp: str | None
    line: int
    #: Characters of this entry's text (after redaction).
    chars: int


@dataclass(frozen=True)
class OriginalText:
    path: str
    entries: tuple[EntryText, ...]
    not_found: tuple[str, ...]
    #: One page of the entries' text, each introduced by a "--- entry <id> ..." line.
    text: str
    offset: int
    total_chars: int
    #: Pass as ``offset`` for the next page; None when this page is the last.
    next_offset: int | None
