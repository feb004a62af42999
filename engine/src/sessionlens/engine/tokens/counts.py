"""Token accounting for a loaded transcript: the three numbers DESIGN.md asks for, per entry.

* **reported**: the context size the provider reported, from the last valid assistant usage
  after the latest compaction/reset boundary (transcript-format.md §3.1/§3.2). Truth where present.
* **exact**: tiktoken over ``entry_count_text`` (offline data, see ``tokenizer``), each image
  charged ``EXACT_IMAGE_TOKENS``.
* **estimate**: what the agent itself would have decided: pi's chars/4 and newest OpenClaw's
  CJK/image-aware variant, and, for other agents with a rule of their own (Gemini CLI,
  OpenCode), that rule (``agent_rules``).

What the model sees comes first: ``count_context_tokens`` counts only the replayed context
(at most a window's worth), so the three numbers of the current context are there at once;
``count_tokens`` counts every entry of the file. Both report through one ``TokenReport``
whose ``scope`` says which; a figure that was not counted is None, never 0.

Exact counts go through a ``CountCache`` keyed by the text's digest (``count_cache``), so a
file opened again, or grown, tokenizes only texts never seen before. ``use_count_cache``
sets the process's cache (the app and the CLI point it at the cache folder); without it
counts are remembered in memory only. Reports are also kept per (transcript, encoding).

The reported usage (``reported``) and the context along the path (``series``) live in their
own modules and are re-exported here, where callers have always found them.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Generic, TypeVar

from sessionlens.engine.errors import LoadCancelled
from sessionlens.engine.load.formats.catalog import FORMATS
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
from .reported import reported_usage_entry, valid_usage_tokens
from .series import ContextPoint, context_series, entry_context_tokens, pi_tokens
from .text_counter import TextCounter
from .token_report import CountScope, EntryTokens, TokenReport
from .tokenizer import (
    ENCODING_NAMES,
    check_encoding_name,
    encoding_tag,
    ensure_tiktoken_data,
    get_encoding,
)

if TYPE_CHECKING:
    from .count_cache import CountCache

__all__ = [
    "CHARS_PER_TOKEN", "ENCODING_NAMES", "EXACT_IMAGE_TOKENS", "OPENCLAW_IMAGE_TOKENS",
    "PI_IMAGE_CHARS", "ContextPoint", "EstimateRules",
    "entry_context_tokens", "pi_tokens", "context_series", "count_context_tokens",
    "count_tokens", "ensure_tiktoken_data", "entry_count_text", "estimate_entry_tokens",
    "estimate_message_chars", "get_encoding", "reported_usage_entry", "use_count_cache",
]

_CACHE_SIZE = 8
#: Entries measured, keyed and looked up per batch (the tokenizer starts on misses early).
_BATCH = 2048

V = TypeVar("V")

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

_default_lock = threading.Lock()
_default_cache: CountCache | None = None


def use_count_cache(folder: Path | str | None) -> CountCache:
    """Make the count cache in ``folder`` the process's default (None: memory only).

    Called once by a face at start-up, like ``ensure_tiktoken_data``; a folder that cannot be
    written still works (lookups of an existing file, new counts in memory: see ``note``).
    """
    from .count_cache import CountCache

    global _default_cache
    cache = CountCache() if folder is None else CountCache.in_folder(folder)
    with _default_lock:
        old, _default_cache = _default_cache, cache
    if old is not None:
        old.close()
    return cache


def _cache_or_default(cache: CountCache | None) -> CountCache:
    global _default_cache
    if cache is not None:
        return cache
    with _default_lock:
        if _default_cache is None:
            from .count_cache import CountCache

            _default_cache = CountCache()
        return _default_cache


# --------------------------------------------------------------------------- counting

@dataclass(slots=True)
class _Counted:
    """Per-entry figures of one counting pass, in the order of the entries given."""

    pi: list[int]
    oc: list[int]
    exact: list[int]
    tokenized: int
    cached: int


def _count_entries(entries: Sequence[Entry], encoding: str, cache: CountCache, path: Path,
                   on_progress: Callable[[int, int], None] | None,
                   cancel: Callable[[], bool] | None, helpers: bool) -> _Counted:
    """Estimates and exact counts of ``entries``; only texts the cache lacks are tokenized.

    Entries are measured and looked up in batches, so the tokenizer (and its helpers) start
    on the first misses while later entries are still being measured. The encoding is not
    even loaded when every text is known.
    """
    from .count_cache import text_key

    tag = encoding_tag(encoding)
    total = len(entries)
    pi: list[int] = []
    oc: list[int] = []
    images: list[int] = []
    keys: list[bytes] = []
    known: dict[bytes, int] = {}
    todo: dict[bytes, None] = {}  # keys to tokenize, in the order their texts were queued
    counter: TextCounter | None = None
    cached = 0

    def progress(done: int, _n: int) -> None:
        if on_progress is not None:
            on_progress(min(total, cached + done), total)

    try:
        for start in range(0, total, _BATCH):
            if cancel is not None and cancel():
                raise LoadCancelled(path, "token counting cancelled")
            texts: dict[bytes, str] = {}
            for entry in entries[start:start + _BATCH]:
                text, pi_chars, oc_chars, n_images = measure_entry(entry)
                key = text_key(text) if text else b""
                if key:
                    texts.setdefault(key, text)
                keys.append(key)
                images.append(n_images)
                pi.append(estimate_tokens_from_chars(pi_chars))
                oc.append(estimate_tokens_from_chars(oc_chars))
            hits = cache.lookup(tag, [k for k in texts if k not in known and k not in todo])
            known.update(hits)
            cached += len(hits)
            for key, text in texts.items():
                if key not in known and key not in todo:
                    if counter is None:
                        counter = TextCounter(encoding, path, total, progress, cancel,
                                              helpers=helpers)
                    counter.add(text)
                    todo[key] = None
            progress(0, total)
        if counter is not None:
            learned = dict(zip(todo, counter.finish(), strict=True))
            cache.store(tag, learned)
            known.update(learned)
    finally:
        if counter is not None:
            counter.close()
    exact = [(known[k] if k else 0) + n * EXACT_IMAGE_TOKENS for k, n in zip(keys, images, strict=True)]
    if on_progress is not None:
        on_progress(total, total)
    return _Counted(pi, oc, exact, len(todo), cached)


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
                return (valid_usage_tokens(usage_entry) or 0) + tail
    return sum(estimates.get(it.entry_id, 0) for it in items)


def _report(transcript: Transcript, encoding: str, entries: Sequence[Entry], counted: _Counted,
            scope: CountScope) -> TokenReport:
    per_entry = {e.id: EntryTokens(counted.pi[i], counted.oc[i], counted.exact[i])
                 for i, e in enumerate(entries)}
    by_role: dict[str, int] | None = None
    by_type: dict[str, int] | None = None
    if scope == "file":
        by_role, by_type = {}, {}
        for i, entry in enumerate(entries):
            n = counted.exact[i]
            by_type[entry.type] = by_type.get(entry.type, 0) + n
            if entry.message is not None:
                by_role[entry.message.role] = by_role.get(entry.message.role, 0) + n
    usage_entry = reported_usage_entry(transcript)
    ctx_ids = [item.entry_id for item in transcript.context]
    entry_format = FORMATS.get(transcript.format)
    rule = entry_format.token_rule if entry_format is not None else None
    pi_by_id = {e.id: counted.pi[i] for i, e in enumerate(entries)}
    agent_context: int | None = None
    if rule == "pi":
        agent_context = _estimate_context(transcript, usage_entry, pi_by_id)
    elif rule is not None:
        agent_context = _estimate_context(
            transcript, usage_entry, {e.id: agent_entry_tokens(e, rule) for e in entries})
    return TokenReport(
        encoding=encoding,
        entries=MappingProxyType(per_entry),
        reported_context=None if usage_entry is None else valid_usage_tokens(usage_entry),
        reported_entry_id=None if usage_entry is None else usage_entry.id,
        estimate_context=_estimate_context(transcript, usage_entry, pi_by_id),
        estimate_context_openclaw=_estimate_context(
            transcript, usage_entry, {e.id: counted.oc[i] for i, e in enumerate(entries)}),
        exact_context=sum(per_entry[i].exact for i in ctx_ids if i in per_entry),
        exact_total=sum(counted.exact) if scope == "file" else None,
        by_role=None if by_role is None else MappingProxyType(dict(sorted(by_role.items()))),
        by_type=None if by_type is None else MappingProxyType(dict(sorted(by_type.items()))),
        agent_rule=rule,
        estimate_context_agent=agent_context,
        scope=scope,
        pending=len(transcript.entries) - len(per_entry) if scope == "context" else 0,
        tokenized=counted.tokenized,
        cached=counted.cached,
    )


def count_tokens(transcript: Transcript, encoding: str = "o200k_base", *,
                 on_progress: Callable[[int, int], None] | None = None,
                 cancel: Callable[[], bool] | None = None,
                 helpers: bool = True, cache: CountCache | None = None) -> TokenReport:
    """Count every entry three ways and total the replayed context (``scope`` "file").

    ``on_progress(done, total)`` reports entries counted; ``cancel()`` returning True stops
    the count with ``LoadCancelled``. ``helpers=False`` keeps the work on the calling thread
    (the GUI does, so its UI thread keeps a core). ``cache`` defaults to the process's
    (``use_count_cache``). Raises ``ConfigError`` for an unknown encoding.
    """
    check_encoding_name(encoding)  # fail fast on a bad name, before any work
    hit = _reports.get(transcript, encoding)
    if hit is not None:
        if on_progress is not None:
            on_progress(len(transcript.entries), len(transcript.entries))
        return hit
    entries = transcript.entries
    counted = _count_entries(entries, encoding, _cache_or_default(cache), transcript.path,
                             on_progress, cancel, helpers)
    report = _report(transcript, encoding, entries, counted, "file")
    _reports.put(transcript, report, encoding)
    return report


def count_context_tokens(transcript: Transcript, encoding: str = "o200k_base", *,
                         cancel: Callable[[], bool] | None = None,
                         cache: CountCache | None = None) -> TokenReport:
    """The three numbers of what the model sees, counting only the replayed context.

    The report's ``scope`` is "context": ``entries`` holds the context's entries and the
    whole-file figures are None. Its context figures are the ones ``count_tokens`` gives.
    When the whole file was already counted, that report is returned instead.
    """
    check_encoding_name(encoding)
    full = _reports.get(transcript, encoding)
    if full is not None:
        return full
    tag = encoding + "/context"
    hit = _reports.get(transcript, tag)
    if hit is not None:
        return hit
    seen: dict[str, Entry] = {}
    for item in transcript.context:
        entry = transcript.get(item.entry_id)
        if entry is not None:
            seen.setdefault(entry.id, entry)
    entries = tuple(seen.values())
    counted = _count_entries(entries, encoding, _cache_or_default(cache), transcript.path,
                             None, cancel, False)
    report = _report(transcript, encoding, entries, counted, "context")
    _reports.put(transcript, report, tag)
    return report
