"""Branches inside one file, as an outline a tree view can show with branch points folded.

A pi/OpenClaw file is a tree: every later entry whose parent is an earlier one starts a
branch (transcript-format.md §1.7). Listing every entry with its depth makes a deep tree
unreadable; this outline keeps one line of descent at each level (the active path where it
passes, else the newest child) and hangs the other children of a branch point under it as
branch nodes, each with its size, tip, labels, and the ``branch_summary`` pi wrote when the
user navigated away from it (found through the summary's ``fromId``, the abandoned leaf).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from sessionlens.engine.load.tree import children_of
from sessionlens.engine.model import Entry, Transcript

__all__ = ["OutlineNode", "BranchOutline", "branch_outline"]


@dataclass(frozen=True, slots=True)
class OutlineNode:
    """An entry line, or a branch (a fold holding the entries of one side branch)."""

    kind: Literal["entry", "branch"]
    #: The entry (for a branch: its first entry).
    entry_id: str
    #: Index of the parent node in ``BranchOutline.nodes`` (-1: top level).
    parent: int
    children: tuple[int, ...]
    on_active_path: bool
    #: entries: more than one child starts here. branches: always False.
    is_branch_point: bool = False
    label: str | None = None
    #: branches: entries inside (nested folds included); entries: 1 + entries of their folds.
    size: int = 1
    #: branches: the last entry of the branch's own line of descent.
    tip_id: str | None = None
    #: branches: the ``branch_summary`` written on leaving a leaf inside this fold.
    summary_id: str | None = None
    summary: str | None = None
    #: How many branch folds enclose this node.
    depth: int = 0


@dataclass(frozen=True, slots=True)
class BranchOutline:
    nodes: tuple[OutlineNode, ...]
    top: tuple[int, ...]
    #: entry id -> its node index (where to scroll to select an entry).
    node_of_entry: dict[str, int] = field(default_factory=dict)

    @property
    def branch_points(self) -> tuple[str, ...]:
        return tuple(n.entry_id for n in self.nodes if n.is_branch_point)

    @property
    def branches(self) -> tuple[OutlineNode, ...]:
        return tuple(n for n in self.nodes if n.kind == "branch")


@dataclass(slots=True)
class _Node:
    kind: Literal["entry", "branch"]
    entry_id: str
    parent: int
    depth: int
    children: list[int] = field(default_factory=list)
    size: int = 0
    branch_point: bool = False
    tip: str | None = None


def branch_outline(t: Transcript) -> BranchOutline:
    """The outline of ``t``'s entry tree (iterative: a 100k-entry path is no recursion)."""
    kids = children_of(t)
    order = t.index
    on_path = set(t.active_path)
    nodes: list[_Node] = []
    top: list[int] = []
    visited: set[str] = set()

    def attach(node: _Node) -> int:
        nodes.append(node)
        i = len(nodes) - 1
        (top if node.parent < 0 else nodes[node.parent].children).append(i)
        return i

    def main_child(children: tuple[str, ...]) -> str:
        on = [c for c in children if c in on_path]
        return on[0] if on else max(children, key=lambda c: order[c])

    roots = kids.get(None, ())
    first = t.active_path[0] if t.active_path and t.active_path[0] in roots else (
        roots[0] if roots else None)
    # (first entry, container node or -1 (top) or -2 (a new top-level fold), depth)
    stack: list[tuple[str, int, int]] = [
        (r, -2, 1) for r in sorted((r for r in roots if r != first), key=lambda r: -order[r])]
    if first is not None:
        stack.append((first, -1, 0))  # the main line first, other roots after it
    while stack:
        start, container, depth = stack.pop()
        if container == -2:
            container = attach(_Node("branch", start, -1, 0))
        fold = container if container >= 0 and nodes[container].kind == "branch" else -1
        current: str | None = start
        pending: list[tuple[str, int, int]] = []
        while current is not None and current not in visited:
            visited.add(current)
            i = attach(_Node("entry", current, container, depth, size=1))
            if fold >= 0:
                nodes[fold].tip = current
            children = tuple(c for c in kids.get(current, ()) if c not in visited)
            if not children:
                break
            nxt = main_child(children)
            if len(children) > 1:
                nodes[i].branch_point = True
                for side in sorted((c for c in children if c != nxt), key=lambda c: order[c]):
                    pending.append((side, attach(_Node("branch", side, i, depth)), depth + 1))
            current = nxt
        stack.extend(reversed(pending))
    leftovers = [e.id for e in t.entries if e.id not in visited]
    if leftovers:  # entries in a parent cycle reach no root: keep them visible anyway
        fold = attach(_Node("branch", leftovers[0], -1, 0))
        for eid in leftovers:
            attach(_Node("entry", eid, fold, 1, size=1))
        nodes[fold].tip = leftovers[-1]
    for i in range(len(nodes) - 1, -1, -1):
        n = nodes[i]
        if n.parent >= 0:
            nodes[n.parent].size += n.size
    entry_node = {n.entry_id: i for i, n in enumerate(nodes) if n.kind == "entry"}
    summaries: dict[int, Entry] = {}
    for e in t.entries:  # a summary belongs to the outermost fold holding the leaf it left
        if e.type != "branch_summary" or e.from_id not in entry_node:
            continue
        outer, i = -1, entry_node[e.from_id]
        while i >= 0:
            if nodes[i].kind == "branch":
                outer = i
            i = nodes[i].parent
        if outer >= 0:
            summaries[outer] = e
    out: list[OutlineNode] = []
    for k, n in enumerate(nodes):
        is_branch = n.kind == "branch"
        summary = summaries.get(k)
        label = t.labels.get(n.entry_id)
        if is_branch:
            label = next((t.labels[nodes[c].entry_id] for c in n.children
                          if nodes[c].entry_id in t.labels), None)
        out.append(OutlineNode(
            n.kind, n.entry_id, n.parent, tuple(n.children), n.entry_id in on_path,
            n.branch_point, label, n.size, n.tip, summary.id if summary else None,
            summary.summary if summary else None, n.depth))
    node_of = {n.entry_id: i for i, n in enumerate(out) if n.kind == "entry"}
    return BranchOutline(tuple(out), tuple(top), node_of)
