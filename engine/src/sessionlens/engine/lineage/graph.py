"""A session's whole life as one graph: transcripts, checkpoints, archives, compactions.

``chain.build_chain`` already knows which files a session went through (the same facts
``sessionlens chain`` prints); this module turns that Chain into nodes and edges a viewer
can draw and navigate, and adds what only a loaded transcript tells: the compactions inside
each file (with the entry id to open the file at), which of them a successor merely
inherited from its predecessor, and transcripts restored from a checkpoint (whose header
points at the checkpoint copy, not at a chain member, so the Chain does not list them).
Every node says where to open it: a path and, where it matters, an entry id.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from sessionlens.engine.errors import SessionLensError
from sessionlens.engine.load.session_header import read_header
from sessionlens.engine.model import Diagnostic, Transcript
from sessionlens.engine.sessions.classify import classify_session_file
from sessionlens.engine.sessions.store import foreign_basename, read_session_store

from .branches import BranchOutline, OutlineNode, branch_outline
from .chain import Chain, ChainCheckpoint, ChainLink, build_chain

__all__ = [
    "NodeKind", "EdgeKind", "LineageNode", "LineageEdge", "Lineage", "build_lineage",
    "BranchOutline", "OutlineNode", "branch_outline",
]

NodeKind = Literal["transcript", "checkpoint", "archive", "compaction"]
#: successor: header ``parentSession``; fork: v1 ``branchedFrom``; restored: a transcript
#: whose parent is a checkpoint copy; the rest attach a node to the transcript it belongs to.
EdgeKind = Literal["successor", "fork", "restored", "checkpoint-of", "archive-of",
                   "compaction-in"]
Loader = Callable[[Path], Transcript]


@dataclass(frozen=True, slots=True)
class LineageNode:
    """One point of a session's life, and where to open it (``path`` at ``entry_id``)."""

    key: str
    kind: NodeKind
    title: str
    path: Path | None
    #: The entry to open the file at (None: the file's own leaf).
    entry_id: str | None
    #: Steps from the oldest transcript (compactions, checkpoints, archives share their
    #: transcript's generation).
    generation: int
    session_id: str | None = None
    exists: bool = True
    #: transcripts: ancestor / self / successor (as in the Chain), "restored" (forked from a
    #: checkpoint copy), or "origin" (the session a restored fork's checkpoint came from).
    relation: str | None = None
    timestamp: str | None = None
    #: transcripts: compaction entries in the file.
    compactions: int = 0
    #: compactions: the summary's length; inherited: the same entry is in the parent file.
    summary_chars: int | None = None
    tokens_before: int | None = None
    on_active_path: bool = True
    inherited: bool = False
    #: checkpoints: OpenClaw's reason, whether the store and/or a file hold it.
    reason: str | None = None
    in_store: bool = False
    #: transcripts: the store record that points at the file, and its compactionCount.
    store_key: str | None = None
    store_compactions: int | None = None


@dataclass(frozen=True, slots=True)
class LineageEdge:
    source: str
    target: str
    kind: EdgeKind


@dataclass(frozen=True, slots=True)
class Lineage:
    """The graph (nodes in drawing order: by generation, transcripts before their parts)."""

    chain: Chain
    nodes: tuple[LineageNode, ...]
    edges: tuple[LineageEdge, ...]
    diagnostics: tuple[Diagnostic, ...]

    def node(self, key: str) -> LineageNode:
        for n in self.nodes:
            if n.key == key:
                return n
        raise KeyError(key)

    def of_kind(self, kind: NodeKind) -> tuple[LineageNode, ...]:
        return tuple(n for n in self.nodes if n.kind == kind)

    def transcript_paths(self) -> tuple[Path, ...]:
        """Existing transcripts in chain order (what drift and comparisons walk)."""
        return tuple(n.path for n in self.nodes
                     if n.kind == "transcript" and n.exists and n.path is not None)


def _parent_key(path: Path) -> tuple[str | None, bool]:
    """The base name of a file's parent link, and whether it is a v1 ``branchedFrom``."""
    header = read_header(path)
    if header is None:
        return None, False
    for key in ("parentSession", "branchedFrom"):
        value = header.get(key)
        if isinstance(value, str) and value:
            return foreign_basename(value), key == "branchedFrom"
    return None, False


def _tkey(path: Path) -> str:
    return f"t:{path}"


def _key(path: Path) -> str:
    """Node key of a chain file: a checkpoint copy (a restore's parent) is a checkpoint."""
    return f"k:{path}" if classify_session_file(path.name) == "checkpoint" else _tkey(path)


class _Builder:
    """Collects nodes and edges while walking the chain (one instance per build)."""

    def __init__(self, chain: Chain, load: Loader) -> None:
        self.chain = chain
        self.load = load
        self.nodes: dict[str, LineageNode] = {}
        self.edges: list[LineageEdge] = []
        self.diags: list[Diagnostic] = list(chain.diagnostics)
        self.loaded: dict[Path, Transcript | None] = {}
        self.generation: dict[Path, int] = {}
        self.chains: list[Chain] = [chain]

    def transcript(self, path: Path) -> Transcript | None:
        if path not in self.loaded:
            try:
                self.loaded[path] = self.load(path)
            except SessionLensError as exc:
                self.diags.append(Diagnostic(str(path), None, f"not loaded: {exc}", "warning"))
                self.loaded[path] = None
        return self.loaded[path]

    def add(self, node: LineageNode) -> None:
        self.nodes.setdefault(node.key, node)

    def edge(self, source: str, target: str, kind: EdgeKind) -> None:
        e = LineageEdge(source, target, kind)
        if source in self.nodes and target in self.nodes and e not in self.edges:
            self.edges.append(e)

    def links(self, links: Iterable[ChainLink], relation: str | None = None,
              base_generation: int = 0, first_parent: str | None = None) -> None:
        for link in links:
            path = link.path
            parent_gen = self.generation.get(link.parent.resolve()) if link.parent else None
            gen = parent_gen + 1 if parent_gen is not None else base_generation
            self.generation[path] = gen
            t = self.transcript(path) if link.exists else None
            stamp = t.header.timestamp if t is not None and t.header is not None else None
            if _key(path).startswith("k:"):  # reached through a restore: the copy itself
                self.add(LineageNode(_key(path), "checkpoint", "checkpoint", path,
                                     t.leaf_id if t is not None else None, gen,
                                     link.session_id, link.exists, None, stamp))
                continue
            self.add(LineageNode(
                _tkey(path), "transcript", path.name, path, None, gen, link.session_id,
                link.exists, relation or link.relation, stamp, link.compactions))
            parent = first_parent if first_parent is not None else (
                _key(link.parent.resolve()) if link.parent else None)
            if parent is not None:
                _, v1 = _parent_key(path) if link.exists else (None, False)
                kind: EdgeKind = "restored" if parent.startswith("k:") else (
                    "fork" if v1 else "successor")
                self.edge(parent, _tkey(path), kind)
            if t is not None:
                self.compactions(path, t, gen, link.parent)

    def originals(self, folder: Path) -> None:
        """Chains of the sessions whose checkpoint copies the chain passed through."""
        wanted = {n.session_id for n in self.nodes.values()
                  if n.kind == "checkpoint" and n.session_id}
        have = {n.session_id for n in self.nodes.values() if n.kind == "transcript"}
        for sid in sorted(wanted - have):
            original = next((p for p in sorted(folder.iterdir())
                             if classify_session_file(p.name) == "primary" and p.is_file()
                             and (read_header(p) or {}).get("id") == sid), None)
            if original is not None:
                sub = build_chain(original)
                self.chains.append(sub)
                self.diags.extend(sub.diagnostics)
                self.links(sub.links, "origin")

    def compactions(self, path: Path, t: Transcript, gen: int, parent: Path | None) -> None:
        # the parent may be a checkpoint copy (a restore): load it to see what it passed on
        before = self.transcript(parent.resolve()) if parent is not None and \
            parent.is_file() else None
        on_path = set(t.active_path)
        for n, e in enumerate(t.compactions, 1):
            key = f"c:{path}#{e.id}"
            self.add(LineageNode(
                key, "compaction", f"compaction {n}", path, e.id, gen, t.session_id,
                timestamp=e.timestamp, summary_chars=len(e.summary or ""),
                tokens_before=e.tokens_before, on_active_path=e.id in on_path,
                inherited=before is not None and e.id in before.index))
            self.edge(_tkey(path), key, "compaction-in")

    def checkpoints(self, folder: Path) -> None:
        """Checkpoints of every chain met so far (a restored fork adds its own chain)."""
        seen: set[str] = set()
        n = done = 0
        while done < len(self.chains):
            cps = self.chains[done].checkpoints
            done += 1
            for cp in cps:
                n += 1
                self.checkpoint(folder, cp, n, seen)

    def checkpoint(self, folder: Path, cp: ChainCheckpoint, n: int, seen: set[str]) -> None:
        owner = next((o for o in self.nodes.values() if o.kind == "transcript"
                      and cp.session_id and o.session_id == cp.session_id), None)
        gen = owner.generation if owner is not None else 0
        key = f"k:{cp.path}" if cp.path is not None else f"k:{cp.checkpoint_id or n}"
        if key in seen:
            return
        seen.add(key)
        node = LineageNode(
            key, "checkpoint", f"checkpoint {len(seen)}",
            cp.path if cp.file_exists else None, cp.leaf_id, gen, cp.session_id,
            cp.file_exists, None, _ms_iso(cp), reason=cp.reason, in_store=cp.in_store)
        known = self.nodes.get(key)
        if known is not None:  # already met as a restore's parent: keep its place
            node = replace(node, generation=known.generation,
                           entry_id=known.entry_id or node.entry_id,
                           timestamp=node.timestamp or known.timestamp)
        self.nodes[key] = node
        if owner is not None:
            self.edge(owner.key, key, "checkpoint-of")
        if cp.path is not None and cp.file_exists:
            self.restored_from(folder, cp.path, key, node.generation + 1)

    def restored_from(self, folder: Path, checkpoint: Path, key: str, gen: int) -> None:
        """Transcripts forked from a checkpoint copy, with their own successors."""
        for child in sorted(folder.iterdir()):
            if classify_session_file(child.name) != "primary" or not child.is_file():
                continue
            name, _ = _parent_key(child)
            if name != checkpoint.name or _tkey(child.resolve()) in self.nodes:
                continue
            sub = build_chain(child)
            self.chains.append(sub)
            mine = [lk for lk in sub.links if lk.relation != "ancestor"]
            self.links(mine[:1], "restored", gen, key)
            self.links(mine[1:], "successor", gen + 1)

    def archives(self) -> None:
        by_name = {n.path.name: n for n in self.nodes.values()
                   if n.kind == "transcript" and n.path is not None}
        for path in dict.fromkeys(p for chain in self.chains for p in chain.archives):
            owner = next((o for name, o in by_name.items()
                          if path.name.startswith(name + ".")), None)
            kind = classify_session_file(path.name).removeprefix("archive-")
            key = f"a:{path}"
            self.add(LineageNode(key, "archive", f"{kind} archive", path, None,
                                 owner.generation if owner else 0,
                                 owner.session_id if owner else None, path.is_file(),
                                 reason=kind))
            if owner is not None:
                self.edge(owner.key, key, "archive-of")

    def store_facts(self, folder: Path) -> None:
        store_path = folder / "sessions.json"
        if not store_path.is_file():
            return
        try:
            store = read_session_store(store_path)
        except SessionLensError:
            return  # build_chain already reported an unreadable store
        for key, node in list(self.nodes.items()):
            if node.kind != "transcript" or node.path is None:
                continue
            rec = next((r for r in store.records if r.session_file is not None
                        and r.session_file.name == node.path.name), None)
            if rec is not None:
                self.nodes[key] = replace(node, store_key=rec.session_key,
                                          store_compactions=rec.compaction_count)


def _ms_iso(cp: ChainCheckpoint) -> str | None:
    """A store record's ``createdAt`` (ms) in the ISO form transcripts use."""
    if cp.created_at is None:
        return None
    stamp = datetime.fromtimestamp(cp.created_at / 1000, UTC)
    return stamp.strftime("%Y-%m-%dT%H:%M:%S.") + f"{stamp.microsecond // 1000:03d}Z"


_ORDER = {"transcript": 0, "compaction": 1, "checkpoint": 2, "archive": 3}


def build_lineage(path: Path | str, *, load: Loader | None = None,
                  chain: Chain | None = None) -> Lineage:
    """The lineage graph around ``path``: its chain, each file's compactions, checkpoints,
    transcripts restored from them, and archives.

    ``load`` reads one transcript (defaults to ``load_transcript``; the GUI passes a cached
    one so drift and comparisons reuse the same objects). ``chain`` lets a caller that
    already holds ``build_chain(path)`` reuse it, so both show the very same facts.
    """
    if load is None:
        from sessionlens.engine.load.reader import load_transcript

        load = load_transcript
    chain = chain if chain is not None else build_chain(path)
    b = _Builder(chain, load)
    b.links(chain.links)
    folder = chain.path.parent
    b.originals(folder)
    b.checkpoints(folder)
    b.archives()
    b.store_facts(folder)
    position = {k: i for i, k in enumerate(b.nodes)}
    nodes = sorted(b.nodes.values(), key=lambda n: (n.generation, _ORDER[n.kind],
                                                      position[n.key]))
    return Lineage(chain, tuple(nodes), tuple(b.edges), tuple(b.diags))
