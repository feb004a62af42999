"""``sessionlens trace FILE TEXT [--json]``: which compaction made the agent forget TEXT?

Follows TEXT (any words, a path, an error, an id) through FILE and its chain of predecessor
and successor files: where it first appeared, every entry that mentions it, and for each
compaction whether the summary (or the tail it kept) still carried it. The answer reads
"lost at compaction 3 (2026-01-31 08:12), never mentioned again".
"""

from __future__ import annotations

import argparse
from pathlib import Path

from sessionlens.engine.lineage.chain import load_chain_transcripts
from sessionlens.engine.lineage.trace import describe_trace, trace_fact, trace_to_json
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.model import Diagnostic, Transcript

from .output import emit_json, emit_lines, warn

__all__ = ["register", "run"]

_STATUS = {"kept": "kept", "dropped": "DROPPED", "absent": "not in context"}


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("trace", help="trace a fact through a transcript and its chain: "
                                     "which compaction lost it")
    p.add_argument("file", type=Path, help="transcript file (.jsonl)")
    p.add_argument("text", help="the text or identifier to follow")
    p.add_argument("--no-chain", action="store_true",
                   help="only this file, not its predecessors and successors")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    transcripts: tuple[Transcript, ...]
    diags: tuple[Diagnostic, ...] = ()
    if args.no_chain:
        transcripts = (load_transcript(args.file),)
    else:
        load_transcript(args.file)  # a clear error for a file that is no transcript
        transcripts, diags = load_chain_transcripts(args.file)
    for d in diags:
        warn(f"warning: {d.path}: {d.reason}")
    trace = trace_fact(transcripts, args.text)
    if args.json:
        emit_json(trace_to_json(trace))
        return 0
    lines = [describe_trace(trace), ""]
    first = trace.first_seen
    if trace.mentions:
        lines.append(f"mentions ({len(trace.mentions)}):")
        for m in trace.mentions:
            side = "" if m.on_active_path else "  [side branch]"
            lines.append(f"  {m.path.name}:{m.line}  {m.entry_id}  {m.role:<10} {m.snippet}{side}")
    if trace.compactions:
        lines.append(f"compactions ({len(trace.compactions)}, oldest first):")
        for c in trace.compactions:
            how = " (summary)" if c.in_summary else " (kept tail)" if c.in_kept_tail else ""
            side = "" if c.on_active_path else "  [side branch]"
            mark = "  <- lost here" if trace.lost_at is c else ""
            lines.append(f"  {c.number:>3}. {c.compaction_id}  {c.path.name}:{c.line}  "
                         f"{(c.timestamp or '')[:16]}  {_STATUS[c.status]}{how}{side}{mark}")
    elif first is not None:
        lines.append("no compaction in these files")
    emit_lines(lines)
    return 0
