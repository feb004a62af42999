"""``sessionlens sessions [DIR]``: list the session transcripts in a folder (or the defaults).

Uses the cheap scan of ``discovery`` so listing a folder of large files stays quick.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from sessionlens.engine.errors import LoadError
from sessionlens.engine.load.reader import detect_format
from sessionlens.engine.sessions.classify import SESSION_FILE_KINDS
from sessionlens.engine.sessions.discovery import (
    SearchedFolder,
    SessionInfo,
    discover_sessions,
    searched_session_dirs,
)

from .output import emit_json, emit_lines

__all__ = ["register", "run", "session_record"]


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("sessions", help="list session transcripts (default: known agent folders)")
    p.add_argument("dir", nargs="?", type=Path, help="folder (or file) to scan")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--all", action="store_true",
                   help="also list archives and checkpoint copies (reset, deleted, bak, ...)")
    p.set_defaults(func=run)


def session_record(s: SessionInfo) -> dict[str, Any]:
    """One ``sessions[]`` item of the ``--json`` output."""
    return {
        "path": str(s.path), "agent": s.agent, "session_id": s.session_id, "format": s.format,
        "entries": s.entries, "compactions": s.compactions, "size": s.size,
        "modified": s.modified.isoformat().replace("+00:00", "Z"), "project": s.project,
        "kind": s.kind, "parent_session_id": s.parent_session_id, "title": s.title,
    }


def _searched_lines(searched: list[SearchedFolder], found: list[SessionInfo]) -> list[str]:
    """Every place looked at: each existing one with what it held, the absent ones counted
    per agent (with the first as an example), so the search is never a mystery."""
    lines = ["searched:"]
    absent: dict[str, list[Path]] = {}
    for f in searched:
        if not f.exists:
            absent.setdefault(f.agent, []).append(f.path)
            continue
        n = sum(1 for s in found if s.path == f.path or f.path in s.path.parents)
        lines.append(f"  {f.agent:11} {f.path}  ({n} session{'s' if n != 1 else ''})")
    for agent, paths in absent.items():
        more = f" and {len(paths) - 1} more place(s)" if len(paths) > 1 else ""
        lines.append(f"  {agent:11} not on this machine: {paths[0]}{more}")
    return lines


def run(args: argparse.Namespace) -> int:
    searched: list[SearchedFolder] = []
    if args.dir is not None:
        if not args.dir.exists():
            raise LoadError(args.dir, "no such file or folder")
        if args.dir.is_file():
            detect_format(args.dir)  # a named file that is no transcript is an error, not "none"
        dirs = [args.dir]
    else:
        searched = searched_session_dirs()
        dirs = [f.path for f in searched if f.exists]
    kinds = SESSION_FILE_KINDS - {"lock", "temp", "store", "other", "trajectory"} \
        if args.all else frozenset({"primary"})
    found = discover_sessions(dirs, kinds=kinds)
    if args.json:
        emit_json({"dirs": [str(d) for d in dirs],
                   "searched": [{"agent": f.agent, "path": str(f.path), "exists": f.exists}
                                for f in searched] or [{"agent": None, "path": str(d),
                                                        "exists": True} for d in dirs],
                   "sessions": [session_record(s) for s in found]})
        return 0
    where = _searched_lines(searched, found) if searched else [f"searched {d}" for d in dirs]
    if not found:
        emit_lines(["no sessions found", *where])
        return 0
    lines = [f"{len(found)} session(s)", *where]
    for s in found:
        comp = "?" if s.compactions is None else str(s.compactions)
        lines.append(f"  {s.modified:%Y-%m-%d %H:%M}  {s.format:18} {s.entries:>7,} entries  "
                     f"{comp:>3} compactions  {s.agent or '-':11} {s.path}")
    emit_lines(lines)
    return 0
