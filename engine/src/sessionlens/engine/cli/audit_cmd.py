"""``sessionlens audit FILE [--compaction ID]``: why did my agent forget?

Audits a compaction the transcript already holds (default: the last one) against the
template it follows, lists the identifiers it lost, and everything else it dropped.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from sessionlens.engine.audit.dropped import CLASS_TITLES, build_recovery_pack
from sessionlens.engine.audit.recorded import audit_compaction_in_chain
from sessionlens.engine.audit.report import audit_report_dict
from sessionlens.engine.cli.flush_views import (
    add_flush_arguments,
    flush_report,
    memory_flush_json,
    memory_flush_lines,
    resolved_settings_for,
)
from sessionlens.engine.cli.output import emit_json, emit_lines
from sessionlens.engine.load.reader import load_transcript

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("audit", help="audit a compaction summary already in a transcript")
    p.add_argument("file", type=Path, help="transcript file (.jsonl)")
    p.add_argument("--compaction", metavar="ID", default=None,
                   help="compaction entry id (default: the last compaction)")
    p.add_argument("--policy", choices=("strict", "off"), default="strict",
                   help="identifier policy: strict fails on missing identifiers, off only reports")
    add_flush_arguments(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    transcript = load_transcript(args.file)
    audited = audit_compaction_in_chain(transcript, args.compaction, identifier_policy=args.policy)
    report = audited.report
    flush = flush_report(transcript, resolved_settings_for(transcript, args), args)
    if args.json:
        out = audit_report_dict(report)
        out["span_source"] = None if audited.span_source is None else str(audited.span_source)
        out["memory_flush"] = memory_flush_json(flush)
        emit_json(out)
        return 0
    lines = [
        f"{transcript.path}  compaction {report.compaction_id}: "
        f"{'PASSED' if report.passed else 'FAILED'}",
        f"  template {report.template} (follows: {report.detected_template}); "
        f"{len(report.summarized_entry_ids)} entries summarized"
        + (f" (read from the predecessor {audited.span_source})"
           if audited.span_source is not None else ""),
    ]
    for c in report.checks:
        lines.append(f"  [{'ok' if c.passed else 'FAIL'}] {c.name}: {c.detail}")
        lines.extend(f"         {r}" for r in c.reasons)
    kept = [f"{c.cls} {c.found}/{c.total}" for c in report.coverage if c.total]
    lines.append("  coverage   " + (", ".join(kept) or "nothing to cover"))
    if report.dropped:
        lines.append(f"  dropped    {len(report.dropped)} specifics:")
        for item in report.dropped:
            where = ", ".join(item.entry_ids[:3])
            lines.append(f"    {CLASS_TITLES.get(item.cls, item.cls)}: {item.value}  ({where})")
        lines += ["", "  recovery:", "    " + build_recovery_pack(report.dropped).instruction]
    emit_lines(lines + memory_flush_lines(flush))
    return 0
