"""Which entries a compaction already in a transcript replaced.

To audit a historical compaction we need the span its summary stood in for: every entry it
took out of the model's context. By the replay rule (transcript-format.md §1.8, including the
"hardened" boundary) that is the entries on its path after the previous compaction or reset
(or from the start) up to its ``firstKeptEntryId``, or up to the compaction itself when that
id is not found before it; and also the tail the previous boundary had kept verbatim, which
the context held until this compaction and does not hold after it. Whether the agent showed
that tail to its summarizer depends on the release that wrote the compaction, and
``audit.kept_tail`` reads it from the file per compaction; either way it is gone unless the
summary carries it, so it is audited with the rest.
"""

from __future__ import annotations

from collections.abc import Container, Sequence
from dataclasses import dataclass

from sessionlens.engine.errors import AuditError
from sessionlens.engine.model import Entry, Transcript
from sessionlens.engine.plan.cutpoints import carried_tail_indices, region_bounds

__all__ = ["CompactionSpan", "carried_tail", "compaction_span", "default_compaction_id",
           "path_to", "span_on_path", "taken_out"]


@dataclass(frozen=True, slots=True)
class CompactionSpan:
    """The region a compaction summarized."""

    compaction_id: str
    #: Entry ids replaced by the summary (every entry the compaction took out of the
    #: context), root side first: ``carried_tail_entry_ids``, then the region after the
    #: previous boundary up to ``firstKeptEntryId``.
    summarized_entry_ids: tuple[str, ...]
    previous_compaction_id: str | None
    first_kept_entry_id: str | None
    #: True when ``firstKeptEntryId`` was found before the compaction (recent tail kept).
    kept_tail: bool
    #: The entries the previous compaction (or reset) had kept verbatim, which this one
    #: took out of the context (the first ids of ``summarized_entry_ids``).
    carried_tail_entry_ids: tuple[str, ...] = ()


def path_to(transcript: Transcript, entry_id: str) -> tuple[Entry, ...]:
    """Entries from the root down to ``entry_id`` (cycles and missing parents end the walk)."""
    chain: list[Entry] = []
    seen: set[str] = set()
    current = transcript.get(entry_id)
    while current is not None and current.id not in seen:
        seen.add(current.id)
        chain.append(current)
        if current.parent_id is None or current.parent_id == current.id:
            break
        current = transcript.get(current.parent_id)
    chain.reverse()
    return tuple(chain)


def default_compaction_id(transcript: Transcript) -> str:
    """The last compaction on the active path, else the last in the file."""
    on_path = [i for i in transcript.active_path if transcript.entry(i).type == "compaction"]
    if on_path:
        return on_path[-1]
    if transcript.compactions:
        return transcript.compactions[-1].id
    raise AuditError(f"{transcript.path}: the transcript holds no compaction to audit")


def taken_out(region: Sequence[str], still_held: Container[str]) -> tuple[str, ...]:
    """The entries of ``region`` a written compaction took out of its file: those the
    written file no longer holds. The one rule for "what the summary stands in for" of a
    write: applied at write time (``still_held``: what the successor will keep) and when
    the written successor is read back (``still_held``: the successor's ids), so the audit
    at write time and ``sessionlens audit`` of the written file judge the same span. A
    successor keeps the last summarized assistant turn verbatim (``persist.successor``) and
    non-message rows; neither is something the summary has to carry."""
    return tuple(i for i in region if i not in still_held)


def carried_tail(before: Sequence[Entry], boundary: int | None) -> list[Entry]:
    """The entries the boundary ``before[boundary]`` kept verbatim, which the context held
    until the next compaction (``plan.cutpoints.carried_tail_indices``)."""
    return [before[i] for i in carried_tail_indices(before, boundary)]


def span_on_path(before: Sequence[Entry], entry: Entry) -> CompactionSpan:
    """The span of compaction ``entry``, given the path that leads to it (``before``).

    Its ``firstKeptEntryId`` normally lies in the region after the previous boundary; one
    inside the previous kept tail (an OpenClaw cut may go there) keeps the rest of that tail
    and the whole region, so only the part of the tail before it was replaced."""
    start, boundary = region_bounds(before)
    # a reset ends the region but is not a compaction: the previous one is looked for past it
    previous = next((e.id for e in reversed(before) if e.type == "compaction"), None)
    wanted = entry.first_kept_entry_id
    cut = next((i for i in range(len(before) - 1, -1, -1) if before[i].id == wanted), None)
    kept = cut is not None
    end = len(before) if cut is None else max(cut, start)
    carried = [before[i] for i in carried_tail_indices(before, boundary)
               if cut is None or i < cut]
    return CompactionSpan(
        compaction_id=entry.id,
        summarized_entry_ids=tuple(e.id for e in (*carried, *before[start:end])),
        previous_compaction_id=previous,
        first_kept_entry_id=wanted,
        kept_tail=kept,
        carried_tail_entry_ids=tuple(e.id for e in carried),
    )


def compaction_span(transcript: Transcript, compaction_id: str | None = None) -> CompactionSpan:
    """The span of ``compaction_id`` (default: see ``default_compaction_id``)."""
    cid = compaction_id or default_compaction_id(transcript)
    entry = transcript.get(cid)
    if entry is None or entry.type != "compaction":
        known = ", ".join(e.id for e in transcript.compactions) or "none"
        raise AuditError(f"{transcript.path}: no compaction with id {cid!r} (compactions: {known})")
    return span_on_path(path_to(transcript, cid)[:-1], entry)
