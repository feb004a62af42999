"""``sessionlens restore CHECKPOINT``: fork a checkpoint into a new transcript beside it."""

from __future__ import annotations

import argparse
from pathlib import Path

from sessionlens.engine.persist.restore import restore_checkpoint

from .output import emit_json, emit_lines

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("restore", help="branch a new transcript from a checkpoint copy")
    p.add_argument("checkpoint", type=Path, help="a .checkpoint.<uuid>.jsonl file "
                   "(any OpenClaw/pi transcript works)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    result = restore_checkpoint(args.checkpoint)
    written = [str(p) for p in result.written]
    if args.json:
        emit_json({"written": written, "session_id": result.session_id,
                   "parent": str(Path(args.checkpoint).resolve())})
    else:
        emit_lines([f"restored into {w}" for w in written])
    return 0
