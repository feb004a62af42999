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
    SessionInfo,
    default_session_dirs,
    discover_sessions,
)

from .output import emit_json, emit_lines, warn

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


def run(args: argparse.Namespace) -> int:
    if args.dir is not None:
        if not args.dir.exists():
            raise LoadError(args.dir, "no such file or folder")
        if args.dir.is_file():
            detect_format(args.dir)  # a named file that is no transcript is an error, not "none"
        dirs = [args.dir]
    else:
        dirs = default_session_dirs()
        if not dirs:
            warn("sessionlens sessions: no session folders of any known agent found")
    kinds = SESSION_FILE_KINDS - {"lock", "temp", "store", "other", "trajectory"} \
        if args.all else frozenset({"primary"})
    found = discover_sessions(dirs, kinds=kinds)
    if args.json:
        emit_json({"dirs": [str(d) for d in dirs],
                   "sessions": [session_record(s) for s in found]})
        return 0
    if not found:
        emit_lines([f"no sessions found in {', '.join(map(str, dirs)) or '(no folders)'}"])
        return 0
    lines = [f"{len(found)} session(s)"]
    for s in found:
        comp = "?" if s.compactions is None else str(s.compactions)
        lines.append(f"  {s.modified:%Y-%m-%d %H:%M}  {s.format:18} {s.entries:>7,} entries  "
                     f"{comp:>3} compactions  {s.agent or '-':11} {s.path}")
    emit_lines(lines)
    return 0
