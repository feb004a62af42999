"""Did a later compaction keep what a search hit found? One small function on the audit's primitives.

A hit entry that a recorded compaction replaced (``audit.span.compaction_span``) survives
only as far as that compaction's summary carries it, and then each later compaction that
re-summarized that summary (``previous_compaction_id``). What must be carried are the
specifics the query matched: the entry's identifiers (``contract.identifiers``) that
contain a query term, or, when none does, the query's own distinctive words. The first
summary in that chain missing one of them is where the fact was lost.

The full fact trace across files (``lineage/trace.py``) is built on the same primitives;
this is its per-hit, per-file core.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypeVar

from sessionlens.engine.contract.identifiers import extract_identifiers, summary_contains
from sessionlens.engine.model import Entry, Message, TextBlock, Transcript

if TYPE_CHECKING:
    from sessionlens.engine.lineage.trace import FactTrace

__all__ = ["FateStatus", "HitFate", "RecordedCompaction", "hit_fate", "query_words",
           "follow_chains", "traced_fate"]

HitT = TypeVar("HitT")

#: live: no compaction replaced the entry yet; kept: every summary since carries the
#: specifics; lost: ``compaction_id``'s summary dropped ``missing``; unchecked: replaced,
#: but the entry holds none of the query's words to look for (a purely semantic hit).
FateStatus = Literal["live", "kept", "lost", "unchecked"]

#: Words that tell nothing on their own: a summary need not repeat them.
_FILLER = frozenset(
    "the and for with that this from into onto was were are is be been did does do done "
    "where what when which who whom why how have has had not but you your our we they it "
    "its there here then than also just about after before".split())


@dataclass(frozen=True, slots=True)
class RecordedCompaction:
    """A compaction recorded in the file, as the index keeps it."""

    compaction_id: str
    previous_id: str | None
    summary: str
    #: The entry ids it replaced (any container: the index parses its list lazily).
    replaced: Container[str]


@dataclass(frozen=True, slots=True)
class HitFate:
    """What compaction did with a hit."""

    status: FateStatus
    #: The compaction that replaced the entry (kept: the last summary checked; lost: the
    #: one whose summary dropped it; live: None).
    compaction_id: str | None = None
    #: The specifics that were checked, and those the summary did not carry.
    checked: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()


def query_words(terms: Sequence[str]) -> tuple[str, ...]:
    """The query terms worth finding in a summary (filler and 1-2 letter words dropped)."""
    out = []
    for term in terms:
        t = term.strip()
        if t and t.casefold() not in _FILLER and (len(t) >= 3 or any(c.isdigit() for c in t)):
            out.append(t)
    return tuple(dict.fromkeys(out))


def _specifics(entry_id: str, text: str, terms: Sequence[str]) -> list[tuple[str, str | None]]:
    probe = Entry("message", entry_id, None, None, 0,
                  message=Message("user", (TextBlock(text),)))
    words = [w.casefold() for w in query_words(terms)]
    found: list[tuple[str, str | None]] = [(i.value, i.cls) for i in extract_identifiers([probe])
             if any(w in i.value.casefold() for w in words)]
    if found:
        return found
    folded = text.casefold()
    return [(w, None) for w in dict.fromkeys(words) if w in folded]


def _carries(summary: str, value: str, cls: str | None) -> bool:
    if cls is None:  # a plain word: any spelling of its case
        return summary_contains(summary.casefold(), value.casefold())
    return summary_contains(summary, value, cls)


def hit_fate(entry_id: str, text: str, terms: Sequence[str],
             compactions: Sequence[RecordedCompaction]) -> HitFate:
    """Whether the compactions of the hit's file (in file order) kept what the query found
    in entry ``entry_id`` (whose indexed text is ``text``)."""
    specifics = _specifics(entry_id, text, terms)
    checked = tuple(v for v, _ in specifics)
    first = next((c for c in compactions if entry_id in c.replaced), None)
    if first is None:  # a summary is itself replaced by the next summary built on it
        first = next((c for c in compactions if c.previous_id == entry_id), None)
    if first is None:  # what to look for is kept: a successor may have compacted it
        return HitFate("live", checked=checked)
    if not specifics:
        return HitFate("unchecked", first.compaction_id)
    by_previous: dict[str, RecordedCompaction] = {}  # the summary that re-summarized each
    for c in compactions:
        if c.previous_id is not None:
            by_previous.setdefault(c.previous_id, c)
    current: RecordedCompaction | None = first
    last = first
    seen: set[str] = set()
    while current is not None and current.compaction_id not in seen:
        seen.add(current.compaction_id)
        missing = tuple(v for v, cls in specifics if not _carries(current.summary, v, cls))
        if missing:
            return HitFate("lost", current.compaction_id, checked, missing)
        last = current
        current = by_previous.get(current.compaction_id)
    return HitFate("kept", last.compaction_id, checked)


def traced_fate(transcripts: Sequence[Transcript], path: Path, entry_id: str,
                checked: Sequence[str], traces: dict[str, FactTrace] | None = None) -> HitFate:
    """The fate of a hit as ``trace`` gives it (``lineage.trace.mention_fate``), over the
    hit file's whole chain, successors included: every specific ``checked`` is traced, and
    the first compaction that dropped one of them is where the hit was lost. The one
    answer ``search`` and ``trace`` both give. ``traces`` caches each value's trace over
    these transcripts (hits of one chain share them)."""
    from sessionlens.engine.lineage.trace import mention_fate, trace_fact

    cache: dict[str, FactTrace] = {} if traces is None else traces
    for value in checked:
        if value not in cache:
            cache[value] = trace_fact(transcripts, value)
    fates = [(value, mention_fate(cache[value], entry_id, path)) for value in checked]
    lost = [(f.compaction.order, f.compaction.compaction_id, v) for v, f in fates
            if f.status == "lost" and f.compaction is not None]
    if lost:
        first = min(lost)
        missing = tuple(v for order, _, v in lost if order == first[0])
        return HitFate("lost", first[1], tuple(checked), missing)
    kept = [f.compaction for _, f in fates if f.status == "kept" and f.compaction is not None]
    if kept:
        return HitFate("kept", max(kept, key=lambda c: c.order).compaction_id, tuple(checked))
    return HitFate("live", checked=tuple(checked))


def follow_chains(hits: Sequence[HitT], fate_of: Callable[[HitT], HitFate],
                  path_of: Callable[[HitT], Path], entry_of: Callable[[HitT], str]
                  ) -> list[HitFate]:
    """Each hit's fate as ``trace`` gives it (``traced_fate``) wherever compaction could
    have touched it: its file holds compactions, or a successor continues it. A hit whose
    file has neither keeps the index's answer, which is then trace's too ("live"). Each
    chain is loaded once; a chain that cannot be read keeps the index's answer."""
    from sessionlens.engine.errors import SessionLensError
    from sessionlens.engine.lineage.chain import build_chain, load_chain_transcripts

    loaded: dict[Path, tuple[Transcript, ...] | None] = {}
    traces: dict[int, dict[str, FactTrace]] = {}  # per loaded chain
    out: list[HitFate] = []
    for hit in hits:
        fate, path = fate_of(hit), path_of(hit)
        if not fate.checked:
            out.append(fate)
            continue
        if path not in loaded:
            try:
                chain = build_chain(path)
                follows = any(link.relation == "successor" and link.exists
                              for link in chain.links)
                loaded[path] = (load_chain_transcripts(path)[0]
                                if follows or fate.status != "live" else None)
            except (OSError, SessionLensError):
                loaded[path] = None
        transcripts = loaded[path]
        out.append(fate if transcripts is None else
                   traced_fate(transcripts, path.resolve(), entry_of(hit), fate.checked,
                               traces.setdefault(id(transcripts), {})))
    return out
