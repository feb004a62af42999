"""The chain of transcripts one session went through: predecessors, successors, checkpoints.

Compaction rotation, forks and restores each start a new file whose header names the old
one in ``parentSession`` (legacy v1: ``branchedFrom``), so a session's history is a chain of
files. Backward links are read from headers; forward links are found by scanning the same
folder for files whose parent has this file's name. Paths written on another machine are
resolved by base name in the folder, as OpenClaw does. Only headers are read (and the lines
that mention a compaction), so a long chain of big files stays quick; Claude Code and Codex
files, which have no such header, go through the loader's adapters instead.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import orjson

from sessionlens.engine.load.session_header import read_header
from sessionlens.engine.model import Diagnostic
from sessionlens.engine.sessions.classify import classify_session_file
from sessionlens.engine.sessions.discovery import summarize_session_file
from sessionlens.engine.sessions.store import (
    foreign_basename,
    read_session_store,
    resolve_session_file,
)

__all__ = ["ChainLink", "ChainCheckpoint", "Chain", "build_chain",
           "load_chain_transcripts", "chain_to_json"]

if TYPE_CHECKING:
    from sessionlens.engine.model import Transcript

Relation = Literal["ancestor", "self", "successor"]


@dataclass(frozen=True, slots=True)
class ChainLink:
    """One transcript of the chain and the file it continues (``parent``)."""

    path: Path
    session_id: str | None
    parent: Path | None
    compactions: int
    relation: Relation
    exists: bool = True
    #: Why the window began (OpenClaw's SQLite store: initial, reset, rollover, fork,
    #: rewind, switch, recovery, compaction); None for files.
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class ChainCheckpoint:
    """A checkpoint of a chain member: a ``.checkpoint.`` copy, a store record, or both."""

    path: Path | None
    session_id: str | None
    checkpoint_id: str | None = None
    session_key: str | None = None
    created_at: int | None = None
    reason: str | None = None
    leaf_id: str | None = None
    in_store: bool = False
    file_exists: bool = False


@dataclass(frozen=True, slots=True)
class Chain:
    """Links oldest first (ancestors, the file asked about, then its successors)."""

    path: Path
    links: tuple[ChainLink, ...]
    checkpoints: tuple[ChainCheckpoint, ...]
    archives: tuple[Path, ...]
    diagnostics: tuple[Diagnostic, ...]


def _parent_raw(header: dict[str, Any] | None) -> str | None:
    if header is None:
        return None
    for key in ("parentSession", "branchedFrom"):
        value = header.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def _count_compactions(path: Path) -> int:
    """Compaction entries in a pi file, by the same quick scan ``sessions`` lists them with."""
    info = summarize_session_file(path)
    return info.compactions or 0 if info is not None else 0


def _adapter_facts(path: Path) -> tuple[str | None, str | None, int]:
    """Session id, parent link and compaction count of a file with no pi header.

    Claude Code and Codex files keep their id and compactions in adapter-specific lines,
    so they are read through the loader (and its adapters) instead of by header alone.
    """
    from sessionlens.engine.errors import SessionLensError
    from sessionlens.engine.load.reader import load_transcript  # heavy; only for non-pi files

    try:
        t = load_transcript(path)
    except SessionLensError:
        return None, None, 0
    h = t.header
    raw = (h.parent_session or h.branched_from) if h is not None else None
    return t.session_id, raw, len(t.compactions)


def _link(path: Path, relation: Relation, folder: Path) -> tuple[ChainLink, str | None]:
    exists = path.is_file()
    header = read_header(path) if exists else None
    if exists and header is None:
        sid, raw, count = _adapter_facts(path)
    else:
        raw = _parent_raw(header)
        sid = header.get("id") if header and isinstance(header.get("id"), str) else None
        count = _count_compactions(path) if exists else 0
    parent = resolve_session_file(raw, None, folder) if raw else None
    return ChainLink(path, sid, parent, count, relation, exists), raw


def _children_index(folder: Path) -> dict[str, list[Path]]:
    """Parent base name -> files in ``folder`` whose header names that parent."""
    index: dict[str, list[Path]] = {}
    for child in sorted(folder.iterdir()):
        if classify_session_file(child.name) != "primary" or not child.is_file():
            continue
        raw = _parent_raw(read_header(child))
        if raw:
            index.setdefault(foreign_basename(raw), []).append(child)
    return index


def build_chain(path: Path | str) -> Chain:
    """Follow ``path``'s chain both ways and gather its checkpoints and archives.

    One session of a multi-session file (``crush.db/<id>``, ``.aider.chat.history.md/<n>``)
    is a chain of its own: those agents write no successor files or checkpoints."""
    start = Path(path).resolve()
    folder = start.parent
    if not start.exists() and folder.is_file():
        from .store_chain import store_chain_links  # OpenClaw 2026.8+: its windows

        store = store_chain_links(start)
        if store is not None:
            windows, archived = store
            return Chain(start, tuple(
                ChainLink(p, s.id, folder / s.window.previous_session_id
                          if s.window and s.window.previous_session_id else None,
                          _adapter_facts(p)[2], rel, True,
                          s.window.reason if s.window else None)
                for p, s, rel in windows), (), archived, ())
        sid, _raw, count = _adapter_facts(start)
        return Chain(start, (ChainLink(start, sid, None, count, "self", True),), (), (), ())
    diags: list[Diagnostic] = []
    seen: set[Path] = {start}
    me, _ = _link(start, "self", folder)
    ancestors: list[ChainLink] = []
    parent = me.parent
    while parent is not None:
        resolved = parent.resolve()
        if resolved in seen:
            diags.append(Diagnostic(str(resolved), 1, "parentSession loops back into the "
                                    "chain; stopped there", "warning"))
            break
        seen.add(resolved)
        link, _ = _link(resolved, "ancestor", folder)
        ancestors.append(link)
        if not link.exists:
            diags.append(Diagnostic(str(resolved), None, "predecessor file not found",
                                    "warning"))
            break
        parent = link.parent
    ancestors.reverse()

    successors: list[ChainLink] = []
    children = _children_index(folder)
    stack = list(reversed(children.get(start.name, [])))
    while stack:
        child = stack.pop().resolve()
        if child in seen:
            continue
        seen.add(child)
        link, _ = _link(child, "successor", folder)
        successors.append(link)
        stack.extend(reversed(children.get(child.name, [])))

    links = tuple(ancestors) + (me,) + tuple(successors)
    checkpoints = _checkpoints(folder, links, diags)
    names = {link.path.name for link in links}
    archives = tuple(p for p in sorted(folder.iterdir())
                     if classify_session_file(p.name) in ("archive-reset", "archive-deleted")
                     and any(p.name.startswith(n + ".") for n in names))
    return Chain(start, links, checkpoints, archives, tuple(diags))


def load_chain_transcripts(path: Path | str,
                           load: Callable[[Path], Transcript] | None = None
                           ) -> tuple[tuple[Transcript, ...], tuple[Diagnostic, ...]]:
    """Every existing transcript of ``path``'s chain, loaded, oldest first (a predecessor
    always before its successors), and a diagnostic for each that could not be read."""
    from sessionlens.engine.errors import SessionLensError
    from sessionlens.engine.load.reader import load_transcript

    loader = load or load_transcript
    chain = build_chain(path)
    out: list[Transcript] = []
    diags = list(chain.diagnostics)
    for link in chain.links:
        if not link.exists:
            continue
        try:
            out.append(loader(link.path))
        except SessionLensError as exc:
            diags.append(Diagnostic(str(link.path), None, f"not loaded: {exc}", "warning"))
    return tuple(out), tuple(diags)


def _checkpoints(folder: Path, links: tuple[ChainLink, ...],
                 diags: list[Diagnostic]) -> tuple[ChainCheckpoint, ...]:
    sids = {link.session_id for link in links if link.session_id}
    names = {link.path.name for link in links}
    files = {p.name: p for p in sorted(folder.iterdir())
             if classify_session_file(p.name) == "checkpoint"
             and p.name.split(".checkpoint.")[0] in sids}
    out: list[ChainCheckpoint] = []
    store_path = folder / "sessions.json"
    if store_path.is_file():
        try:
            store = read_session_store(store_path)
        except Exception as exc:  # noqa: BLE001 - a broken store must not hide the chain
            diags.append(Diagnostic(str(store_path), None, f"store not read: {exc}", "warning"))
            store = None
        for rec in store.records if store is not None else ():
            for cp in rec.checkpoints:
                pre, post = cp.pre, cp.post
                ids = {cp.session_id, pre.session_id if pre else None,
                       post.session_id if post else None}
                related = bool(ids & sids) or (post is not None and post.session_file
                                               is not None and post.session_file.name in names)
                if not related:
                    continue
                file = pre.session_file if pre is not None else None
                if file is not None:
                    files.pop(file.name, None)
                out.append(ChainCheckpoint(
                    file, (pre.session_id if pre else None) or cp.session_id,
                    cp.checkpoint_id or None, cp.session_key, cp.created_at, cp.reason,
                    pre.leaf_id if pre else None, True, file is not None and file.is_file()))
    for name, file in files.items():
        out.append(ChainCheckpoint(file, name.split(".checkpoint.")[0],
                                   leaf_id=_tail_leaf(file), file_exists=True))
    return tuple(out)


def _tail_leaf(path: Path) -> str | None:
    """The leaf of a checkpoint copy no store record describes: the id on its last line
    that has one (pi's leaf is the last entry; OpenClaw reads checkpoints the same way).
    None for v1 files, whose ids exist only once loaded, and for unreadable files."""
    header = read_header(path)
    if header is None or header.get("version") is None:
        return None
    try:
        with open(path, "rb") as fh:
            size = fh.seek(0, os.SEEK_END)
            block = min(size, 1 << 16)
            while True:
                fh.seek(size - block)
                lines = fh.read(block).split(b"\n")
                for raw in reversed(lines if block == size else lines[1:]):
                    try:
                        obj = orjson.loads(raw)
                    except orjson.JSONDecodeError:
                        continue
                    if isinstance(obj, dict) and obj.get("type") != "session" and isinstance(
                            obj.get("id"), str):
                        return str(obj["id"])
                if block == size:
                    return None
                block = min(size, block * 8)
    except OSError:
        return None


def chain_to_json(chain: Chain) -> dict[str, Any]:
    """The ``chain`` command's JSON object (DESIGN.md: chain[], checkpoints[])."""
    return {
        "path": str(chain.path),
        "chain": [{"path": str(link.path), "session_id": link.session_id,
                   "parent": str(link.parent) if link.parent else None,
                   "compactions": link.compactions, "relation": link.relation,
                   "exists": link.exists, "reason": link.reason} for link in chain.links],
        "checkpoints": [{"path": str(c.path) if c.path else None, "session_id": c.session_id,
                         "checkpoint_id": c.checkpoint_id, "session_key": c.session_key,
                         "created_at": c.created_at, "reason": c.reason, "leaf_id": c.leaf_id,
                         "in_store": c.in_store, "file_exists": c.file_exists}
                        for c in chain.checkpoints],
        "archives": [str(p) for p in chain.archives],
        "diagnostics": [{"line": d.line, "reason": d.reason, "path": d.path}
                        for d in chain.diagnostics],
    }
