"""``sessionlens export FILE --format md|json|html -o OUT``: an audited summary, portable.

Exports a compaction the transcript holds (default: the last one) with its audit, what it
dropped, the entry range it covers and the hashes that tie it to the source file.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from sessionlens.engine.cli.output import emit_json, emit_lines
from sessionlens.engine.export.summary import bundle_for_compaction, export_summary
from sessionlens.engine.load.reader import load_transcript

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("export", help="export an audited compaction summary (md, json, html)")
    p.add_argument("file", type=Path, help="transcript file (.jsonl)")
    p.add_argument("--format", dest="fmt", required=True, choices=("md", "json", "html"),
                   help="output format")
    p.add_argument("-o", "--output", type=Path, required=True, help="file to write")
    p.add_argument("--compaction", metavar="ID", default=None,
                   help="compaction entry id (default: the last compaction)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    transcript = load_transcript(args.file)
    bundle = bundle_for_compaction(transcript, args.compaction)
    written = export_summary(bundle, args.fmt, args.output)
    if args.json:
        emit_json({"written": [str(written)], "compaction_id": bundle.compaction_id,
                   "passed": bundle.report.passed, "format": args.fmt})
    else:
        emit_lines([f"wrote {written} ({args.fmt}; compaction {bundle.compaction_id}, "
                    f"audit {'passed' if bundle.report.passed else 'failed'})"])
    return 0
