"""``sessionlens export FILE --format md|json|html -o OUT [--transcript]``: portable and audited.

By default it exports a compaction the transcript holds (default: the last one) with its
audit, what it dropped, the entry range it covers and the hashes that tie it to the source
file; a file with no compaction has no summary to export, and the command says so (exit 0,
nothing written). With ``--transcript`` it exports the session itself (md or html): every
message of the active path with thinking, tool calls, results and images, each compaction
shown as a boundary with its audit.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from sessionlens.engine.audit.recorded import audit_every_compaction
from sessionlens.engine.cli.output import emit_json, emit_lines
from sessionlens.engine.errors import ExportError
from sessionlens.engine.export.summary import bundle_for_compaction, export_summary
from sessionlens.engine.export.transcript import TRANSCRIPT_FORMATS, export_transcript
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.model import Transcript

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("export", help="export an audited compaction summary (md, json, html), "
                                      "or with --transcript the session itself (md, html)")
    p.add_argument("file", type=Path, help="transcript file (.jsonl)")
    p.add_argument("--format", dest="fmt", required=True, choices=("md", "json", "html"),
                   help="output format")
    p.add_argument("-o", "--output", type=Path, required=True, help="file to write")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--compaction", metavar="ID", default=None,
                      help="compaction entry id (default: the last compaction)")
    what.add_argument("--transcript", action="store_true",
                      help="export the whole transcript (md or html) instead of a summary")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def _transcript(args: argparse.Namespace, transcript: Transcript) -> int:
    if args.fmt not in TRANSCRIPT_FORMATS:
        raise ExportError("a transcript exports as md or html (json is the file itself)")
    audits = {cid: a.report for cid, a in audit_every_compaction(transcript).items()}
    done = export_transcript(transcript, args.fmt, args.output, audits=audits)
    if args.json:
        emit_json({"written": [str(done.path)], "format": args.fmt, "kind": "transcript",
                   "entries": done.entries, "compactions": done.compactions,
                   "secrets_redacted": done.secrets_redacted})
    else:
        emit_lines([f"wrote {done.path} ({args.fmt}; transcript: {done.entries} entries, "
                    f"{done.compactions} compactions, {done.secrets_redacted} secrets blanked)"])
    return 0


def run(args: argparse.Namespace) -> int:
    transcript = load_transcript(args.file)
    if args.transcript:
        return _transcript(args, transcript)
    if not transcript.compactions:
        reason = (f"{transcript.path} holds no compaction, so there is no summary to export; "
                  "use --transcript to export the session itself")
        if args.json:
            emit_json({"written": [], "nothing_to_export": True, "reason": reason})
        else:
            emit_lines([f"nothing to export: {reason}"])
        return 0
    bundle = bundle_for_compaction(transcript, args.compaction)
    written = export_summary(bundle, args.fmt, args.output)
    if args.json:
        emit_json({"written": [str(written)], "compaction_id": bundle.compaction_id,
                   "passed": bundle.report.passed, "format": args.fmt})
    else:
        emit_lines([f"wrote {written} ({args.fmt}; compaction {bundle.compaction_id}, "
                    f"audit {'passed' if bundle.report.passed else 'failed'})"])
    return 0
