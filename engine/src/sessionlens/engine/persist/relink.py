"""Re-linking the tree a successor keeps: each kept entry's nearest kept ancestor, and the
depth-first order that puts the active branch last (pi takes the last line as the leaf).

Pure functions over parent maps; a successor drops entries anywhere in the tree, and a
damaged file can hold parent cycles, which are cut here rather than written out.
"""

from __future__ import annotations

from collections.abc import Mapping

from sessionlens.engine.model import Transcript

__all__ = ["depth_first", "kept_ancestor", "new_parents"]


def new_parents(transcript: Transcript, removed: set[str]) -> dict[str, str | None]:
    """Parent of each kept entry: the nearest kept ancestor, or None (a root)."""
    by_id: Mapping[str, int] = transcript.index
    out: dict[str, str | None] = {}
    for e in transcript.entries:
        if e.id in removed:
            continue
        p, seen = e.parent_id, {e.id}
        while p is not None and (p in removed or p not in by_id):
            if p not in by_id or p in seen:
                p = None
                break
            seen.add(p)
            pe = transcript.entries[by_id[p]]
            p = pe.target_id if pe.type == "leaf" else pe.parent_id
        out[e.id] = None if p == e.id else p
    return out


def depth_first(parents: dict[str, str | None], leaf: str | None) -> list[str]:
    """Kept ids parents-first, each node's branch toward ``leaf`` visited last.

    Entries caught in a parent cycle are reachable from no root; each cycle is cut at its
    first entry in file order, which becomes a root (``parents`` is updated to match).
    """
    on_leaf_path: set[str] = set()
    p = leaf
    while p is not None and p not in on_leaf_path:
        on_leaf_path.add(p)
        p = parents.get(p)
    children: dict[str | None, list[str]] = {}
    for cid, pid in parents.items():  # file order
        children.setdefault(pid, []).append(cid)
    for kids in children.values():
        kids.sort(key=lambda k: k in on_leaf_path)  # stable: the leaf's branch last
    order: list[str] = []
    visited: set[str] = set()

    def walk(roots: list[str]) -> None:
        stack = list(reversed(roots))
        while stack:
            node = stack.pop()
            if node in visited:
                continue
            visited.add(node)
            order.append(node)
            stack.extend(reversed(children.get(node, [])))

    stranded = _in_cycles(parents, children)
    for cid in stranded:  # entries in a parent cycle: cut the cycle, make them roots
        parents[cid] = None
    walk(stranded + children.get(None, []))
    return order


def _in_cycles(parents: dict[str, str | None],
               children: dict[str | None, list[str]]) -> list[str]:
    """Kept ids not reachable from any root (their parent chain loops), first of each loop."""
    reach: set[str] = set()
    stack = list(children.get(None, []))
    while stack:
        n = stack.pop()
        if n not in reach:
            reach.add(n)
            stack.extend(children.get(n, []))
    cut: list[str] = []
    for cid in parents:
        if cid in reach:
            continue
        cut.append(cid)
        sub = [cid]
        while sub:
            n = sub.pop()
            if n not in reach:
                reach.add(n)
                sub.extend(children.get(n, []))
    return cut


def kept_ancestor(parents: dict[str, str | None], transcript: Transcript,
             entry_id: str | None) -> str | None:
    """``entry_id`` if kept, else its nearest kept ancestor."""
    seen: set[str] = set()
    while entry_id is not None and entry_id not in parents:
        if entry_id in seen or entry_id not in transcript.index:
            return None
        seen.add(entry_id)
        e = transcript.entry(entry_id)
        entry_id = e.target_id if e.type == "leaf" else e.parent_id
    return entry_id
