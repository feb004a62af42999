"""``sessionlens audit FILE [--summary-file S] [--compaction ID | --cut ENTRY]``: why did my agent forget?

Without ``--summary-file`` it audits a compaction the transcript already holds (default: the
last one) against the template it follows: what it kept per class, every specific it
dropped (errors and numbers with their meaning), OpenClaw's own verdict beside it, and a
recovery pack. With ``--summary-file`` it audits that text instead: against a recorded
compaction's span (``--compaction``), or against the span a compaction made now would
replace (``--cut ENTRY``, else where the planner cuts with the default settings).

A file with no compaction and no ``--summary-file`` is a normal answer, not an error: the
command says there is nothing to audit and exits 0 (JSON: ``"nothing_to_audit": true``).
"""

from __future__ import annotations

import argparse
import contextlib
from pathlib import Path
from typing import Any

from sessionlens.engine.audit.at_cut import audit_at_cut
from sessionlens.engine.audit.dropped import CLASS_TITLES, build_recovery_pack
from sessionlens.engine.audit.recorded import ChainAudit, audit_compaction_in_chain
from sessionlens.engine.audit.report import AuditReport, audit_report_dict
from sessionlens.engine.cli.flush_views import (
    add_flush_arguments,
    flush_report,
    memory_flush_json,
    memory_flush_lines,
    resolved_settings_for,
)
from sessionlens.engine.cli.output import emit_json, emit_lines
from sessionlens.engine.errors import AuditError, PlanError, SessionLensError
from sessionlens.engine.lineage.memory_health import (
    HEALTH_FLAG_TEXT,
    MemoryHealth,
    examine_memory,
    memory_health_json,
)
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.model import Transcript
from sessionlens.engine.opened import OpenedTranscript
from sessionlens.engine.transcript_secrets import transcript_secret_values

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("audit", help="audit a compaction summary (recorded, or any text) "
                                     "against the history it replaces")
    p.add_argument("file", type=Path, nargs="*", metavar="FILE",
                   help="transcript file (.jsonl); with --all, the folders to search (ROOT)")
    p.add_argument("--summary-file", type=Path, metavar="S", default=None,
                   help="audit this text instead of a recorded summary (written by another "
                        "tool, or edited by hand)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--compaction", metavar="ID", default=None,
                       help="the recorded compaction whose span is audited (default: the last)")
    where.add_argument("--cut", metavar="ENTRY", default=None,
                       help="with --summary-file: audit against the span a compaction keeping "
                            "ENTRY onwards would replace")
    p.add_argument("--policy", choices=("strict", "off"), default="strict",
                   help="identifier policy: strict fails on missing identifiers, off only reports")
    add_flush_arguments(p)
    p.add_argument("--json", nargs="?", const=True, default=False, metavar="OUT.json",
                   help="print one JSON object (with --all, OUT.json writes it to a file)")
    from .fleet_audit import add_fleet_arguments

    add_fleet_arguments(p)
    p.set_defaults(func=run)


def _read_summary(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise AuditError(f"{path}: cannot read the summary file: {exc.strerror or exc}") from None


def _audit(args: argparse.Namespace, transcript: Transcript) -> tuple[ChainAudit, str]:
    """The audit the arguments ask for, and what its span is (for the readable header)."""
    if args.summary_file is None:
        audited = audit_compaction_in_chain(transcript, args.compaction,
                                            identifier_policy=args.policy)
        return audited, f"compaction {audited.report.compaction_id}"
    summary = _read_summary(args.summary_file)
    if args.compaction is not None:
        audited = audit_compaction_in_chain(transcript, args.compaction,
                                            identifier_policy=args.policy, summary=summary)
        return audited, f"{args.summary_file} against compaction {audited.report.compaction_id}"
    opened = OpenedTranscript(transcript, resolved_settings_for(transcript, args))
    try:
        plan = opened.plan(cut_entry_id=args.cut)  # the cut plan and compact would make
    except PlanError as exc:
        raise AuditError(f"nothing to audit the summary against: {exc}") from None
    report = audit_at_cut(transcript, summary, cut_entry_id=args.cut,
                          identifier_policy=args.policy, plan=plan)
    where = f"the cut at {args.cut}" if args.cut else "the span a compaction now would replace"
    return ChainAudit(report), f"{args.summary_file} against {where}"


def _nothing(transcript: Transcript, as_json: bool) -> int:
    reason = (f"{transcript.path} holds no compaction, so there is nothing to audit; "
              "give --summary-file S to audit a summary against the span it would replace")
    if as_json:
        emit_json({"nothing_to_audit": True, "reason": reason, "path": str(transcript.path)})
    else:
        emit_lines([f"nothing to audit: {reason}"])
    return 0


def _lines(report: AuditReport, audited: ChainAudit, what: str, path: Path) -> list[str]:
    lines = [
        f"{path}  {what}:",
        *(f"  {line}" for line in report.headline.lines),
        f"  template {report.template} (follows: {report.detected_template}); "
        f"{len(report.summarized_entry_ids)} entries summarized"
        + (f" (read from the predecessor {audited.span_source})"
           if audited.span_source is not None else ""),
    ]
    if report.carried_tail_entry_ids:
        lines.append(f"  {len(report.carried_tail_entry_ids)} of them the previous compaction had "
                     "kept verbatim: this one took them out of the context")
        if report.carried_tail_text:
            lines.append(f"  kept tail     {report.carried_tail_text}")
    if report.total_loss:
        lines.append(f"  TOTAL LOSS: the summary is no summary; all {len(report.dropped)} "
                     f"specifics of the {len(report.summarized_entry_ids)} summarized entries "
                     "are gone")
    for c in report.checks:
        lines.append(f"  [{'ok' if c.passed else 'FAIL'}] {c.name}: {c.detail}")
        lines.extend(f"         {r}" for r in c.reasons)
    kept = [f"{c.cls} {c.found}/{c.total}" for c in report.coverage if c.total]
    lines.append("  coverage   " + (", ".join(kept) or "nothing to cover")
                 + " (SessionLens: every specific of the whole span)")
    if report.dropped:
        lines.append(f"  dropped    {len(report.dropped)} specifics:")
        for item in report.dropped:
            where = ", ".join(item.entry_ids[:3])
            lines.append(f"    {CLASS_TITLES.get(item.cls, item.cls)}: {item.display}  ({where})")
        lines += ["", "  recovery:", "    " + build_recovery_pack(report.dropped).instruction]
    return lines


def _health_lines(health: MemoryHealth) -> list[str]:
    """Every compaction of the file, worst first (the GUI's Memory tab, as text)."""
    lines = [f"  memory health  {len(health.compactions)} compaction(s), worst first:"]
    for c in health.compactions:
        cov = ", ".join(f"{k.cls} {k.found}/{k.total}" for k in c.coverage) or "nothing to cover"
        size = (f"context {c.tokens_before_recorded:,} -> {c.tokens_after_recorded:,} tokens "
                "as the agent measured it" if c.tokens_after_recorded is not None
                and c.tokens_before_recorded is not None else
                f"~{c.tokens_replaced:,} tokens replaced by ~{c.summary_tokens:,}")
        lines.append(f"    {c.severity.upper():<8} #{c.number} {c.compaction_id} "
                     f"{(c.timestamp or '')[:16]}  {c.trigger}: {size}; {cov}")
        lines.extend(f"             {HEALTH_FLAG_TEXT[k]}: {d}"
                     for k, d in zip(c.flags, c.flag_details, strict=True))
    return lines


def run(args: argparse.Namespace) -> int:
    if args.all:
        from .fleet_audit import run_all

        return run_all(args)
    if isinstance(args.json, str) and not args.file:  # ``audit --json FILE``
        args.file, args.json = [Path(args.json)], True
    if len(args.file) != 1:
        raise AuditError("give one transcript FILE (or --all to audit every session)")
    args.file = args.file[0]
    transcript = load_transcript(args.file)
    if args.summary_file is None and not transcript.compactions:
        if args.cut is not None:
            raise AuditError("--cut needs --summary-file: give the summary text to audit")
        return _nothing(transcript, args.json)
    audited, what = _audit(args, transcript)
    report = audited.report
    resolved = resolved_settings_for(transcript, args)
    flush = flush_report(transcript, resolved, args)
    # every compaction of the file, judged as the GUI's Memory tab judges it (one truth)
    health = (examine_memory(transcript, resolved.settings, flush=flush)
              if args.summary_file is None else None)
    # dropped identifiers are quoted: a secret among them is blanked (issue 39 item 2)
    secrets = _secrets(transcript, audited)
    if args.json:
        out: dict[str, Any] = audit_report_dict(report)
        out["span_source"] = None if audited.span_source is None else str(audited.span_source)
        out["summary_file"] = None if args.summary_file is None else str(args.summary_file)
        out["memory_flush"] = memory_flush_json(flush)
        out["memory_health"] = memory_health_json(health) if health is not None else None
        emit_json(out, secrets)
        return 0
    emit_lines(_lines(report, audited, what, transcript.path) + memory_flush_lines(flush)
               + (_health_lines(health) if health is not None else []), secrets)
    return 0


def _secrets(transcript: Transcript, audited: ChainAudit) -> dict[str, str]:
    """The secrets of the audited file and of the file its summarized span came from."""
    found = transcript_secret_values(transcript)
    if audited.span_source is not None:
        with contextlib.suppress(SessionLensError):
            found = {**transcript_secret_values(load_transcript(audited.span_source)), **found}
    return found
