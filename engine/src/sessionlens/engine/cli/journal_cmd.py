"""``sessionlens journal [--json]``: the automatic compactions the integrations saw."""

from __future__ import annotations

import argparse

from sessionlens.engine._io.folders import user_folders
from sessionlens.engine.cli.args import add_basedir_arg
from sessionlens.engine.cli.output import emit_json, emit_lines, warn
from sessionlens.engine.integrate.journal import journal_path, read_journal

__all__ = ["register"]


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("journal", help="list the compactions the agents' integrations saw")
    add_basedir_arg(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    state = user_folders(args.basedir).state
    read = read_journal(state)
    for problem in read.problems:
        warn(f"warning: {problem}")
    if args.json:
        emit_json({"journal": str(journal_path(state)),
                   "entries": [e.as_dict() for e in read.entries],
                   "problems": list(read.problems)})
        return 0
    if not read.entries:
        emit_lines([f"no compaction journaled yet ({journal_path(state)})"])
        return 0
    lines = []
    for e in read.entries:
        audit = ("audit passed" if e.audit_passed else "audit FAILED ("
                 + ", ".join(e.failed_checks) + ")" if e.audit_passed is False else "no audit")
        who = {"sessionlens": f"SessionLens ({e.summarizer})", "agent": f"{e.agent}'s own",
               "none": "nobody (no compaction)"}[e.writer]
        line = f"{e.at}  {e.agent:<11} {e.session[:12]:<12} {e.trigger or '-':<9} " \
               f"summary: {who}; {audit}"
        if e.pins_kept:
            line += f"; pins kept {len(e.pins_kept)}"
        if e.pins_missing:
            line += f"; pins MISSING {len(e.pins_missing)}"
        if e.dropped:
            line += f"; dropped {len(e.dropped)}"
        lines.append(line)
        if e.fallback_reason:
            lines.append(f"    why: {e.fallback_reason}")
    emit_lines(lines)
    return 0
