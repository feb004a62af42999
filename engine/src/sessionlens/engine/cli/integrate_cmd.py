"""``sessionlens integrate {pi,openclaw,claude-code,codex}``: install (or ``--uninstall``)
SessionLens in an agent's compactions. ``--dry-run`` prints every file it would create, edit
or remove, with a diff, and changes nothing; otherwise each touched file is backed up
beside itself first and replaced atomically (``integrate.install``)."""

from __future__ import annotations

import argparse

from sessionlens.engine._io.folders import user_folders
from sessionlens.engine.cli.args import add_basedir_arg
from sessionlens.engine.cli.output import emit_json, emit_lines
from sessionlens.engine.integrate.install import AGENTS, apply_changes, plan_changes

__all__ = ["register"]


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("integrate", help="put SessionLens in an agent's own compactions")
    p.add_argument("agent", choices=AGENTS)
    p.add_argument("--dry-run", action="store_true",
                   help="print the exact files and edits, change nothing")
    p.add_argument("--uninstall", action="store_true", help="take SessionLens out again")
    add_basedir_arg(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    changes = plan_changes(args.agent, user_folders(args.basedir), uninstall=args.uninstall)
    backups = [] if args.dry_run else apply_changes(changes)
    if args.json:
        emit_json({"agent": args.agent, "dry_run": args.dry_run, "uninstall": args.uninstall,
                   "changes": [{"path": str(c.path), "action": c.action, "why": c.why,
                                "before": c.before, "after": c.after} for c in changes],
                   "backups": [str(b) for b in backups]})
        return 0
    verb = "would" if args.dry_run else "did"
    lines = [f"{args.agent}: nothing to change"] if not changes else []
    for c in changes:
        lines.append(f"{verb} {c.action} {c.path}  ({c.why})")
        lines += c.diff_lines(f"{c.path} (now)", f"{c.path} (after)")
    lines += [f"backup: {b}" for b in backups]
    emit_lines(lines)
    return 0
