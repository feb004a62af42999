"""Compare two points of a session's lineage: what was removed, added, or summarized.

A point is a transcript as loaded (a file of the chain, a checkpoint copy, a restored fork)
or a transcript as it stood at one of its entries (``point_transcript``: pi files are
append-only, so the entries up to that line are exactly the file as it was then). Entries
keep their ids across successors and checkpoints, so the comparison is by id along each
point's active path. An entry of A that B no longer shows counts as *summarized* when a
compaction B made after A covers it (it lies before that compaction's first kept entry),
and as *removed* otherwise. An append-mode compaction keeps the old entries in the file
but out of the model's context; those are *summarized* too, with ``in_file`` set.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sessionlens.engine.errors import LoadError
from sessionlens.engine.load.tree import build_transcript
from sessionlens.engine.model import Entry, Transcript

__all__ = ["DiffEntry", "LineageDiff", "compare_points", "point_transcript"]


@dataclass(frozen=True, slots=True)
class DiffEntry:
    entry_id: str
    type: str
    role: str | None
    #: summarized: the compaction of B whose summary now stands for this entry.
    compaction_id: str | None = None
    #: summarized: still on B's path in the file, only out of the context.
    in_file: bool = False


@dataclass(frozen=True, slots=True)
class LineageDiff:
    """A -> B. Lists follow A's path order (``added``: B's path order)."""

    a_path: Path
    b_path: Path
    a_leaf: str | None
    b_leaf: str | None
    removed: tuple[DiffEntry, ...]
    added: tuple[DiffEntry, ...]
    summarized: tuple[DiffEntry, ...]
    #: Entries on both active paths and still in B's context (or never in A's either).
    kept: int
    #: Compactions on B's path that A's path does not have, in B's path order.
    new_compactions: tuple[str, ...]

    @property
    def same(self) -> bool:
        return not (self.removed or self.added or self.summarized)


def point_transcript(t: Transcript, entry_id: str) -> Transcript:
    """``t`` as it stood when ``entry_id`` was the last line written (leaf = that entry)."""
    i = t.index.get(entry_id)
    if i is None:
        raise LoadError(t.path, f"no entry {entry_id!r} to open the file at")
    if i == len(t.entries) - 1:
        return t
    return build_transcript(t.path, t.format, t.header, t.entries[: i + 1], (),
                            t.file_size, t.file_mtime_ns, gaps=t.gaps)


def _item(e: Entry, compaction: str | None = None, in_file: bool = False) -> DiffEntry:
    return DiffEntry(e.id, e.type, e.role, compaction, in_file)


def _coverage(a: Transcript, b: Transcript, new: list[Entry]) -> dict[str, str]:
    """Entry id of A's path -> the latest new compaction of B whose summary covers it."""
    pos = {eid: n for n, eid in enumerate(a.active_path)}
    covered: dict[str, str] = {}
    for c in new:  # in B's path order: later compactions overwrite earlier ones
        fk = c.first_kept_entry_id
        if fk is None or fk == c.id or fk not in pos:
            # hard boundary, or a cut A never had: everything A showed before it
            b_pos = {eid: n for n, eid in enumerate(b.active_path)}
            limit = b_pos.get(fk, b_pos[c.id]) if fk is not None else b_pos[c.id]
            span = [eid for eid in a.active_path
                    if eid not in b_pos or b_pos[eid] < limit]
        else:
            span = list(a.active_path[: pos[fk]])
        for eid in span:
            covered[eid] = c.id
    return covered


def compare_points(a: Transcript, b: Transcript) -> LineageDiff:
    """What changed from point ``a`` to point ``b`` (ids compared along active paths)."""
    a_path, b_path = set(a.active_path), set(b.active_path)
    a_ctx = {i.entry_id for i in a.context}
    b_ctx = {i.entry_id for i in b.context}
    new = [b.entry(i) for i in b.active_path
           if b.entry(i).type == "compaction" and i not in a_path]
    covered = _coverage(a, b, new)
    removed: list[DiffEntry] = []
    summarized: list[DiffEntry] = []
    kept = 0
    for eid in a.active_path:
        e = a.entry(eid)
        if eid not in b_path:
            if eid in covered:
                summarized.append(_item(e, covered[eid]))
            else:
                removed.append(_item(e))
        elif eid in a_ctx and eid not in b_ctx and eid in covered:
            summarized.append(_item(e, covered[eid], in_file=True))
        else:
            kept += 1
    added = tuple(_item(b.entry(i)) for i in b.active_path if i not in a_path)
    return LineageDiff(a.path, b.path, a.leaf_id, b.leaf_id, tuple(removed), added,
                       tuple(summarized), kept, tuple(c.id for c in new))
