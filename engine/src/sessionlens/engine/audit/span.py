"""Which entries a compaction already in a transcript replaced.

To audit a historical compaction we need the span its summary stood in for: the entries on
its path after the previous compaction (or from the start) up to its ``firstKeptEntryId``,
or up to the compaction itself when that id is not found before it (pi's and OpenClaw's
replay rule, transcript-format.md §1.8, including the "hardened" boundary).
"""

from __future__ import annotations

from dataclasses import dataclass

from sessionlens.engine.errors import AuditError
from sessionlens.engine.model import Entry, Transcript
from sessionlens.engine.plan.cutpoints import region_bounds

__all__ = ["CompactionSpan", "compaction_span", "default_compaction_id", "path_to"]


@dataclass(frozen=True, slots=True)
class CompactionSpan:
    """The region a compaction summarized."""

    compaction_id: str
    #: Entry ids replaced by the summary, root side first.
    summarized_entry_ids: tuple[str, ...]
    previous_compaction_id: str | None
    first_kept_entry_id: str | None
    #: True when ``firstKeptEntryId`` was found before the compaction (recent tail kept).
    kept_tail: bool


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


def compaction_span(transcript: Transcript, compaction_id: str | None = None) -> CompactionSpan:
    """The span of ``compaction_id`` (default: see ``default_compaction_id``)."""
    cid = compaction_id or default_compaction_id(transcript)
    entry = transcript.get(cid)
    if entry is None or entry.type != "compaction":
        known = ", ".join(e.id for e in transcript.compactions) or "none"
        raise AuditError(f"{transcript.path}: no compaction with id {cid!r} (compactions: {known})")
    before = path_to(transcript, cid)[:-1]
    start, _ = region_bounds(before)
    # a reset ends the region but is not a compaction: the previous one is looked for past it
    previous = next((e.id for e in reversed(before) if e.type == "compaction"), None)
    region = before[start:]
    end = len(region)
    kept = False
    if entry.first_kept_entry_id is not None:
        for i, item in enumerate(region):
            if item.id == entry.first_kept_entry_id:
                end, kept = i, True
                break
    return CompactionSpan(
        compaction_id=cid,
        summarized_entry_ids=tuple(e.id for e in region[:end]),
        previous_compaction_id=previous,
        first_kept_entry_id=entry.first_kept_entry_id,
        kept_tail=kept,
    )
