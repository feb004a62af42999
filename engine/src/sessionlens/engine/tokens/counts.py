"""Token accounting for a loaded transcript: the three numbers DESIGN.md asks for, per entry.

* **reported**: the context size the provider reported, from the last valid assistant usage
  after the latest compaction/reset boundary (transcript-format.md §3.1/§3.2). Truth where present.
* **exact**: tiktoken over ``entry_count_text`` (offline data, see ``tokenizer``), each image
  charged ``EXACT_IMAGE_TOKENS``.
* **estimate**: what the agent itself would have decided: pi's chars/4 and newest OpenClaw's
  CJK/image-aware variant, and, for other agents with a rule of their own (Gemini CLI,
  OpenCode), that rule (``agent_rules``).

``count_tokens`` does the I/O-free but CPU-heavy work once per (transcript, encoding) and caches
it. The estimates come out of the same per-entry pass that builds the text to tokenize
(``measure_entry``), so they are recomputed with it rather than cached on their own.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Generic, TypeVar

from sessionlens.engine.errors import LoadCancelled
from sessionlens.engine.load.formats.catalog import FORMATS
from sessionlens.engine.load.replay import BOUNDARY_TYPES, last_boundary
from sessionlens.engine.model import Entry, Transcript

from .agent_rules import agent_entry_tokens
from .estimate import (
    CHARS_PER_TOKEN,
    EXACT_IMAGE_TOKENS,
    OPENCLAW_IMAGE_TOKENS,
    PI_IMAGE_CHARS,
    EstimateRules,
    entry_count_text,
    estimate_entry_tokens,
    estimate_message_chars,
    estimate_tokens_from_chars,
    measure_entry,
)
from .tokenizer import ENCODING_NAMES, TextCounter, ensure_tiktoken_data, get_encoding

__all__ = [
    "CHARS_PER_TOKEN", "ENCODING_NAMES", "EXACT_IMAGE_TOKENS", "OPENCLAW_IMAGE_TOKENS",
    "PI_IMAGE_CHARS", "ContextPoint", "EntryTokens", "EstimateRules", "TokenReport",
    "entry_context_tokens", "context_series", "count_tokens", "ensure_tiktoken_data", "entry_count_text",
    "estimate_entry_tokens", "estimate_message_chars", "get_encoding", "reported_usage_entry",
]

_CACHE_SIZE = 8

V = TypeVar("V")


@dataclass(frozen=True, slots=True)
class EntryTokens:
    """Tokens of one entry by each method (0 for entries the model never sees)."""

    estimate_pi: int
    estimate_openclaw: int
    exact: int


@dataclass(frozen=True, slots=True)
class TokenReport:
    """Per-entry counts and context totals of one transcript under one encoding."""

    encoding: str
    #: entry id -> its counts, for every entry in the file (all branches).
    entries: Mapping[str, EntryTokens]
    #: Context size the provider reported (last valid usage after the boundary), or None.
    reported_context: int | None
    #: The assistant entry whose usage gave ``reported_context``.
    reported_entry_id: str | None
    #: pi ``estimateContextTokens``: last valid usage + pi estimates after it, else the sum.
    estimate_context: int
    #: The same with newest OpenClaw's per-message estimate.
    estimate_context_openclaw: int
    #: Exact tokens over the replayed context (a compaction counts its summary).
    exact_context: int
    #: Exact tokens over every entry in the file.
    exact_total: int
    #: Exact tokens over the whole file, by message role (non-message entries excluded).
    by_role: Mapping[str, int]
    #: Exact tokens over the whole file, by entry type.
    by_type: Mapping[str, int]
    #: The agent's own estimating rule (``agent_rules``), None when it has none.
    agent_rule: str | None = None
    #: The context estimated by that rule (as ``estimate_context``), None without a rule:
    #: the exact count is then the one to go by.
    estimate_context_agent: int | None = None


@dataclass(frozen=True, slots=True)
class ContextPoint:
    """Context size right after one active-path entry, for charting context along the path."""

    entry_id: str
    #: Position on the active path (0 = root).
    index: int
    tokens: int
    #: True when ``tokens`` is a provider-reported usage, False when estimated.
    reported: bool


# --------------------------------------------------------------------------- reported usage

def _valid_usage_tokens(entry: Entry) -> int | None:
    """Context tokens of an assistant entry's usage, or None if it does not count (§3.1).

    Error and aborted turns are skipped, as pi does; a usage of 0 (gateway-injected or
    adapter messages without usage) is not a report either.
    """
    msg = entry.message
    if msg is None or msg.role != "assistant" or msg.usage is None:
        return None
    if msg.stop_reason in ("error", "aborted"):
        return None
    tokens = msg.usage.context_tokens
    return tokens if tokens > 0 else None


def reported_usage_entry(transcript: Transcript) -> Entry | None:
    """The assistant entry whose usage is the reported context size, or None (pure)."""
    path = transcript.path_entries()
    start = last_boundary(path) + 1
    for i in range(len(path) - 1, start - 1, -1):
        if _valid_usage_tokens(path[i]) is not None:
            return path[i]
    return None


# --------------------------------------------------------------------------- cache

class _ByTranscript(Generic[V]):
    """A small LRU keyed by a transcript's identity (plus a tag such as the encoding).

    Transcripts are unhashable (they hold mappings) and slotted (no weakrefs), so the key is
    ``id()``; each item keeps its transcript alive, which makes the id unambiguous and bounds
    the memory to the last few transcripts counted.
    """

    def __init__(self, size: int) -> None:
        self._size = size
        self._items: OrderedDict[tuple[int, str], tuple[Transcript, V]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, transcript: Transcript, tag: str = "") -> V | None:
        with self._lock:
            hit = self._items.get((id(transcript), tag))
            if hit is None or hit[0] is not transcript:
                return None
            self._items.move_to_end((id(transcript), tag))
            return hit[1]

    def put(self, transcript: Transcript, value: V, tag: str = "") -> None:
        with self._lock:
            self._items[(id(transcript), tag)] = (transcript, value)
            self._items.move_to_end((id(transcript), tag))
            while len(self._items) > self._size:
                self._items.popitem(last=False)


_reports: _ByTranscript[TokenReport] = _ByTranscript(_CACHE_SIZE)


# --------------------------------------------------------------------------- the report

def _estimate_context(transcript: Transcript, usage_entry: Entry | None,
                      estimates: Mapping[str, int]) -> int:
    """pi ``estimateContextTokens`` over the replayed context (usage only after the boundary).

    ``usage_entry`` is ``reported_usage_entry(transcript)``, found once by the caller.
    """
    items = transcript.context
    if usage_entry is not None:
        for i in range(len(items) - 1, -1, -1):
            if items[i].entry_id == usage_entry.id:
                tail = sum(estimates.get(it.entry_id, 0) for it in items[i + 1:])
                return (_valid_usage_tokens(usage_entry) or 0) + tail
    return sum(estimates.get(it.entry_id, 0) for it in items)


def count_tokens(transcript: Transcript, encoding: str = "o200k_base", *,
                 on_progress: Callable[[int, int], None] | None = None,
                 cancel: Callable[[], bool] | None = None,
                 helpers: bool = True) -> TokenReport:
    """Count every entry three ways and total the replayed context (cached per encoding).

    ``on_progress(done, total)`` reports entries tokenized; ``cancel()`` returning True stops
    the count with ``LoadCancelled``. ``helpers=False`` keeps the work on the calling thread
    (the GUI does, so its UI thread keeps a core). Raises ``ConfigError`` for an unknown encoding.
    """
    get_encoding(encoding)  # fail fast on a bad name, before any work
    hit = _reports.get(transcript, encoding)
    if hit is not None:
        if on_progress is not None:
            on_progress(len(transcript.entries), len(transcript.entries))
        return hit

    entries = transcript.entries
    pi: list[int] = []
    oc: list[int] = []
    images: list[int] = []
    tokenizing = TextCounter(encoding, transcript.path, len(entries), on_progress, cancel,
                             helpers=helpers)
    try:
        for i, entry in enumerate(entries):
            if cancel is not None and i & 1023 == 0 and cancel():
                raise LoadCancelled(transcript.path, "token counting cancelled")
            text, pi_chars, oc_chars, n_images = measure_entry(entry)
            tokenizing.add(text)
            images.append(n_images)
            pi.append(estimate_tokens_from_chars(pi_chars))
            oc.append(estimate_tokens_from_chars(oc_chars))
        exact = tokenizing.finish()
    finally:
        tokenizing.close()

    per_entry: dict[str, EntryTokens] = {}
    by_role: dict[str, int] = {}
    by_type: dict[str, int] = {}
    for i, entry in enumerate(entries):
        n = exact[i] + images[i] * EXACT_IMAGE_TOKENS
        per_entry[entry.id] = EntryTokens(pi[i], oc[i], n)
        by_type[entry.type] = by_type.get(entry.type, 0) + n
        if entry.message is not None:
            by_role[entry.message.role] = by_role.get(entry.message.role, 0) + n

    usage_entry = reported_usage_entry(transcript)
    ctx_ids = [item.entry_id for item in transcript.context]
    entry_format = FORMATS.get(transcript.format)
    rule = entry_format.token_rule if entry_format is not None else None
    agent_context: int | None = None
    if rule == "pi":
        agent_context = _estimate_context(
            transcript, usage_entry, {e.id: pi[i] for i, e in enumerate(entries)})
    elif rule is not None:
        agent_context = _estimate_context(
            transcript, usage_entry, {e.id: agent_entry_tokens(e, rule) for e in entries})
    report = TokenReport(
        encoding=encoding,
        entries=MappingProxyType(per_entry),
        reported_context=None if usage_entry is None else _valid_usage_tokens(usage_entry),
        reported_entry_id=None if usage_entry is None else usage_entry.id,
        estimate_context=_estimate_context(
            transcript, usage_entry, {e.id: pi[i] for i, e in enumerate(entries)}),
        estimate_context_openclaw=_estimate_context(
            transcript, usage_entry, {e.id: oc[i] for i, e in enumerate(entries)}),
        exact_context=sum(per_entry[i].exact for i in ctx_ids if i in per_entry),
        exact_total=sum(t.exact for t in per_entry.values()),
        by_role=MappingProxyType(dict(sorted(by_role.items()))),
        by_type=MappingProxyType(dict(sorted(by_type.items()))),
        agent_rule=rule,
        estimate_context_agent=agent_context,
    )
    _reports.put(transcript, report, encoding)
    return report


#: Rows that replay as a message (pi ``getMessageFromEntry``).
_CONTEXT_ENTRY_TYPES = frozenset({"message", "custom_message", "branch_summary"})


def entry_context_tokens(entry: Entry, tokens: TokenReport | None = None) -> int:
    """pi's estimate of what ``entry`` adds to the context: 0 for rows the model never sees
    (metadata, compaction rows, excluded bash runs); the report's count when one is given."""
    if entry.type not in _CONTEXT_ENTRY_TYPES or (
            entry.message is not None and entry.message.exclude_from_context):
        return 0
    known = tokens.entries.get(entry.id) if tokens is not None else None
    return known.estimate_pi if known is not None else estimate_entry_tokens(entry, "pi")


def context_series(transcript: Transcript, report: TokenReport) -> tuple[ContextPoint, ...]:
    """Context tokens after each active-path entry: reported usage where there is one, else
    the last known size plus pi estimates. A compaction or reset restarts the running size at
    its summary plus the entries it kept. Pure."""
    path = transcript.path_entries()
    position = {e.id: i for i, e in enumerate(path)}
    points: list[ContextPoint] = []
    running = 0

    def est(entry: Entry) -> int:
        counts = report.entries.get(entry.id)
        if counts is None or (entry.message is not None and entry.message.exclude_from_context):
            return 0
        return counts.estimate_pi

    for i, entry in enumerate(path):
        reported = _valid_usage_tokens(entry)
        if reported is not None:
            running = reported
        elif entry.type in BOUNDARY_TYPES:
            kept_from = position.get(entry.first_kept_entry_id or "", i)
            kept_from = kept_from if kept_from < i else i
            running = est(entry) + sum(est(e) for e in path[kept_from:i])
        else:
            running += est(entry)
        points.append(ContextPoint(entry.id, i, running, reported is not None))
    return tuple(points)
