"""``sessionlens chain FILE``: the files a session went through, and its checkpoints."""

from __future__ import annotations

import argparse
from pathlib import Path

from sessionlens.engine.lineage.chain import build_chain, chain_to_json
from sessionlens.engine.load.reader import detect_format

from .output import emit_json, emit_lines

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("chain", help="predecessors, successors and checkpoints of a transcript")
    p.add_argument("file", type=Path, help="transcript file (.jsonl)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    path: Path = args.file
    detect_format(path)  # a clear LoadError for a folder, an empty file or a non-transcript
    chain = build_chain(path)
    if args.json:
        emit_json(chain_to_json(chain))
        return 0
    lines = ["chain (oldest first):"]
    for link in chain.links:
        mark = "*" if link.relation == "self" else " "
        missing = "" if link.exists else "  (missing)"
        lines.append(f" {mark} {link.path}  session {link.session_id or '?'}  "
                     f"compactions {link.compactions}{missing}")
    lines.append(f"checkpoints: {len(chain.checkpoints)}")
    for cp in chain.checkpoints:
        where = "store+file" if cp.in_store and cp.file_exists else (
            "store" if cp.in_store else "file")
        lines.append(f"   {cp.path or '(no file)'}  [{where}]  leaf {cp.leaf_id or '?'}")
    if chain.archives:
        lines.append("archives:")
        lines.extend(f"   {p}" for p in chain.archives)
    lines.extend(f"warning: {d}" for d in chain.diagnostics)
    emit_lines(lines)
    return 0
