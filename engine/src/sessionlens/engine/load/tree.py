"""The entry tree of a transcript: leaf, active path, replayed context, labels, name.

Shared by every format: a parser produces header + entries + diagnostics and
``build_transcript`` applies the rules of transcript-format.md §1.7 and §1.8 once, so the
Claude Code and Codex adapters get the same tree handling as pi / OpenClaw files.

Leaf rules: pi takes the last entry in file order, whatever its type. Newest OpenClaw
(agent-core storage) adds ``leaf`` rows and ``appendMode: "side"``; a file holding either is
read with those rules (leaf rows move the leaf, side and non-core rows do not, an append
made after a leaf move hangs off the visible leaf). Files without them are read as pi does,
which the format notes call exact for such files.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from sessionlens.engine.model import (
    ContextItem,
    Diagnostic,
    Entry,
    Format,
    FormatGaps,
    SessionHeader,
    Transcript,
)

from .replay import build_context

__all__ = [
    "TreeResult", "resolve_tree", "build_context", "children_of", "resolve_labels",
    "session_name", "build_transcript", "dedupe_entries", "CORE_ENTRY_TYPES",
    "dangling_references",
]

#: Entry types that move the leaf under OpenClaw agent-core rules (§1.7).
CORE_ENTRY_TYPES = frozenset({
    "message", "thinking_level_change", "model_change", "compaction", "branch_summary",
    "custom", "custom_message", "label", "session_info",
})


@dataclass(frozen=True, slots=True)
class TreeResult:
    """Where the session stands: the leaf, the path to it, and what was odd on the way."""

    leaf_id: str | None
    active_path: tuple[str, ...]
    diagnostics: tuple[Diagnostic, ...]
    #: entry id -> the parent used for the walk (None for roots, cycles broken).
    parents: Mapping[str, str | None] = field(default_factory=dict)


def dedupe_entries(entries: Sequence[Entry], path: str) -> tuple[tuple[Entry, ...],
                                                                 list[Diagnostic]]:
    """Keep the first entry of each id; later ones are reported and left out."""
    seen: dict[str, Entry] = {}
    kept: list[Entry] = []
    diags: list[Diagnostic] = []
    for e in entries:
        first = seen.get(e.id)
        if first is None:
            seen[e.id] = e
            kept.append(e)
            continue
        same = first.type == e.type and first.parent_id == e.parent_id
        diags.append(Diagnostic(
            path, e.line, f"duplicate id {e.id!r} (first on line {first.line}); ignored",
            "warning" if same else "error"))
    if len(kept) == len(entries):
        return tuple(entries), diags
    return tuple(kept), diags


def _superseded_compactions(entries: Sequence[Entry], by_id: Mapping[str, Entry]) -> set[str]:
    """Compactions that are an ancestor of a later compaction (a newer one replaced them)."""
    out: set[str] = set()
    for e in entries:
        if e.type != "compaction":
            continue
        seen: set[str] = set()
        at = by_id.get(e.parent_id) if e.parent_id else None
        while at is not None and at.id not in seen:
            seen.add(at.id)
            if at.type == "compaction":
                out.add(at.id)
            at = by_id.get(at.parent_id) if at.parent_id else None
    return out


def dangling_references(entries: Sequence[Entry], by_id: Mapping[str, Entry],
                        path: str, *, successor: bool = False) -> list[Diagnostic]:
    """A ``firstKeptEntryId`` or label ``targetId`` naming no entry of the file.

    Replay then keeps nothing before that compaction (or the label shows nowhere): a real
    loss the user should hear about, not a silent one. (Leaf rows are checked where the
    leaf is resolved.) In a ``successor`` (its header names a ``parentSession``) the older
    compactions are copied rows whose kept tail a newer compaction summarized and left in
    the predecessor: their missing ``firstKeptEntryId`` is how a successor looks, not a loss."""
    diags: list[Diagnostic] = []
    copied = _superseded_compactions(entries, by_id) if successor else set()
    for e in entries:
        if e.type in ("compaction", "reset"):
            kept = e.first_kept_entry_id
            if kept is not None and kept not in by_id and e.id not in copied:
                diags.append(Diagnostic(path, e.line, f"{e.type} {e.id!r}: firstKeptEntryId "
                                        f"{kept!r} names no entry of this file; nothing "
                                        "before it is kept in the context", "warning"))
        elif e.type == "label" and e.target_id is not None and e.target_id not in by_id:
            diags.append(Diagnostic(path, e.line, f"label {e.id!r} points at missing entry "
                                    f"{e.target_id!r}; ignored", "warning"))
    return diags


def _uses_agent_core_rules(entries: Sequence[Entry]) -> bool:
    return any(e.type == "leaf" or e.append_mode is not None for e in entries)


def resolve_tree(entries: Sequence[Entry], path: str | Path,
                 by_id: Mapping[str, Entry] | None = None) -> TreeResult:
    """Leaf, active path (root -> leaf) and tree diagnostics; entries must have unique ids."""
    spath = str(path)
    diags: list[Diagnostic] = []
    if by_id is None:
        by_id = {e.id: e for e in entries}
    parents: dict[str, str | None] = {}
    for e in entries:
        p = e.parent_id
        if p is None:
            parents[e.id] = None
            continue
        if p == e.id:
            diags.append(Diagnostic(spath, e.line, f"entry {e.id!r} is its own parent; "
                                    "treated as a root", "warning"))
            p = None
        elif p not in by_id:
            diags.append(Diagnostic(spath, e.line, f"parent {p!r} of entry {e.id!r} not found; "
                                    "treated as a root", "warning"))
            p = None
        parents[e.id] = p
    _break_cycles(entries, parents, spath, diags)

    if not entries:
        return TreeResult(None, (), tuple(diags), MappingProxyType(parents))
    if _uses_agent_core_rules(entries):
        leaf: str | None = _agent_core_leaf(entries, by_id, parents, spath, diags)
    else:
        leaf = entries[-1].id
    return TreeResult(leaf, _walk(leaf, by_id, parents), tuple(diags),
                      MappingProxyType(parents))


def _break_cycles(entries: Sequence[Entry], parents: dict[str, str | None], spath: str,
                  diags: list[Diagnostic]) -> None:
    """Find parent cycles; each is reported once and broken at its earliest entry."""
    state: dict[str, int] = {}  # 1: on the current walk, 2: known to reach a root
    order: dict[str, int] | None = None
    for e in entries:
        cur: str | None = e.id
        if cur in state:
            continue
        walk: list[str] = []
        while cur is not None and cur not in state:
            state[cur] = 1
            walk.append(cur)
            cur = parents[cur]
        if cur is not None and state[cur] == 1:  # closed a loop inside this walk
            if order is None:
                order = {x.id: i for i, x in enumerate(entries)}
            cycle = walk[walk.index(cur):]
            first = min(cycle, key=order.__getitem__)
            parents[first] = None
            line = entries[order[first]].line
            diags.append(Diagnostic(spath, line, "parent cycle " + " -> ".join(cycle + [cur])
                                    + f"; broken at {first!r}, which is read as a root"))
        for w in walk:
            state[w] = 2


def _agent_core_leaf(entries: Sequence[Entry], by_id: Mapping[str, Entry],
                     parents: dict[str, str | None], spath: str,
                     diags: list[Diagnostic]) -> str | None:
    """Replay leaf moves in file order; rewires appends made after a leaf move."""
    leaf: str | None = None
    cursor: str | None = None
    for e in entries:
        if e.type == "leaf":
            target = e.target_id
            if target is not None and target not in by_id:
                diags.append(Diagnostic(spath, e.line, f"leaf entry points at missing entry "
                                        f"{target!r}; ignored", "warning"))
                continue
            leaf = _through_leaf_rows(target, by_id)
            cursor = e.append_parent_id if e.append_parent_id in by_id else leaf
            continue
        parent = parents.get(e.id)
        if parent is not None and parent == cursor and cursor != leaf:
            parents[e.id] = leaf
        if e.append_mode == "side" or e.type not in CORE_ENTRY_TYPES:
            continue
        leaf = cursor = e.id
    return leaf


def _through_leaf_rows(target: str | None, by_id: Mapping[str, Entry]) -> str | None:
    """A leaf row may point at another leaf row: follow them to a real entry (or None)."""
    seen: set[str] = set()
    while target is not None and target not in seen:
        seen.add(target)
        e = by_id.get(target)
        if e is None or e.type != "leaf":
            return target
        target = e.target_id
    return None


def _walk(leaf: str | None, by_id: Mapping[str, Entry],
          parents: Mapping[str, str | None]) -> tuple[str, ...]:
    """Ids from the root to ``leaf``; ``leaf`` rows are passed through to their target."""
    out: list[str] = []
    seen: set[str] = set()
    cur = leaf
    while cur is not None and cur not in seen:
        seen.add(cur)
        e = by_id.get(cur)
        if e is None:
            break
        if e.type == "leaf":
            cur = e.target_id
            continue
        out.append(cur)
        cur = parents.get(cur)
    out.reverse()
    return tuple(out)


def children_of(transcript: Transcript) -> Mapping[str | None, tuple[str, ...]]:
    """Parent id (None for roots) -> child ids, oldest timestamp first (pi ``getTree``)."""
    index = transcript.index
    kids: dict[str | None, list[Entry]] = {}
    for e in transcript.entries:
        p = e.parent_id
        if p is not None and (p == e.id or p not in index):
            p = None
        kids.setdefault(p, []).append(e)
    return MappingProxyType({
        p: tuple(e.id for e in sorted(es, key=lambda e: e.timestamp or ""))
        for p, es in kids.items()})


def resolve_labels(entries: Iterable[Entry]) -> Mapping[str, str]:
    """Target id -> label, in file order; a missing or empty label clears."""
    labels: dict[str, str] = {}
    for e in entries:
        if e.type != "label" or e.target_id is None:
            continue
        if e.label:
            labels[e.target_id] = e.label
        else:
            labels.pop(e.target_id, None)
    return MappingProxyType(labels)


def session_name(entries: Iterable[Entry]) -> str | None:
    """The latest ``session_info`` name; an empty or missing name clears it."""
    name: str | None = None
    for e in entries:
        if e.type == "session_info":
            name = e.name or None
    return name


def build_transcript(path: str | Path, format: Format, header: SessionHeader | None,
                     entries: Sequence[Entry], diagnostics: Sequence[Diagnostic],
                     file_size: int = 0, file_mtime_ns: int = 0,
                     file_sha256: str = "", gaps: FormatGaps | None = None) -> Transcript:
    """Assemble a Transcript from parsed entries: dedupe ids, tree, leaf, replay, labels."""
    spath = str(path)
    kept, dup_diags = dedupe_entries(entries, spath)
    by_id = {e.id: e for e in kept}
    tree = resolve_tree(kept, spath, by_id)
    dup_diags += dangling_references(
        kept, by_id, spath,
        successor=header is not None and bool(header.parent_session))
    # header version 4: OpenClaw 2026.8+, whose replay also drops failed empty turns
    context: tuple[ContextItem, ...] = build_context(
        by_id, tree.active_path, openclaw=format in ("openclaw-v3", "openclaw-sqlite")
        and header is not None and header.version >= 4)
    return Transcript(
        path=Path(path), format=format, header=header, entries=kept,
        index=MappingProxyType({e.id: i for i, e in enumerate(kept)}),
        leaf_id=tree.leaf_id, active_path=tree.active_path, context=context,
        labels=resolve_labels(kept), session_name=session_name(kept),
        diagnostics=tuple(diagnostics) + tuple(dup_diags) + tree.diagnostics,
        file_size=file_size, file_mtime_ns=file_mtime_ns, file_sha256=file_sha256,
        gaps=gaps if gaps is not None else FormatGaps())
