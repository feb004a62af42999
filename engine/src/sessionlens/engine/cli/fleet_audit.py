"""``sessionlens audit --all [ROOT ...] [--report OUT.html] [--json [OUT.json]]``.

Audits every session under the roots (default: the agents' own folders, OpenClaw stores
included) on Dask (a local cluster of processes by default; ``--scheduler ADDRESS`` for an
existing one, ``--on WORKER=ROOT`` for roots on a worker's own disk; ``--workers 0`` runs
serially here) and writes one report. Progress goes to stderr as sessions finish; a session
that fails is reported and the run goes on. Rows of unchanged files are reused from the
state folder (``--no-cache`` audits everything again).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from sessionlens.engine._io.atomic import atomic_write_text
from sessionlens.engine._io.folders import user_folders
from sessionlens.engine.errors import ConfigError, LoadError
from sessionlens.engine.fleet.aggregate import FleetReport, aggregate_fleet, fleet_json
from sessionlens.engine.fleet.fleet_run import FleetProgress, run_fleet
from sessionlens.engine.fleet.report_html import open_command, write_fleet_html
from sessionlens.engine.fleet.row_cache import RowCache
from sessionlens.engine.fleet.rows import SessionFailure, SessionRow

from .args import add_basedir_arg, non_negative_int
from .output import emit_json, emit_lines

__all__ = ["add_fleet_arguments", "run_all"]


def add_fleet_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``audit --all`` (the roots are ``audit``'s positional words)."""
    g = p.add_argument_group("every session at once (--all)")
    g.add_argument("--all", action="store_true",
                   help="audit every session under the ROOTs given as positional words "
                        "(default: the agents' session folders) and report across them")
    g.add_argument("--report", type=Path, metavar="OUT.html",
                   help="with --all: write the self-contained HTML report here")
    g.add_argument("--workers", type=non_negative_int, metavar="N", default=None,
                   help="with --all: processes of the local Dask cluster (default: one per "
                        "core); 0 audits serially in this process")
    g.add_argument("--scheduler", metavar="ADDRESS",
                   help="with --all: use this running Dask cluster instead of a local one")
    g.add_argument("--on", action="append", default=[], metavar="WORKER=ROOT",
                   help="with --scheduler: a root on that worker's own disk (repeatable); "
                        "the worker reads it and only result rows travel")
    g.add_argument("--no-cache", action="store_true",
                   help="with --all: audit every session again (default: reuse the rows of "
                        "unchanged files)")
    g.add_argument("--quiet", action="store_true", help="with --all: no progress on stderr")
    add_basedir_arg(p)


def _worker_roots(items: list[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for item in items:
        worker, sep, root = item.partition("=")
        if not sep or not worker or not root:
            raise ConfigError(f"--on {item!r}: give WORKER=ROOT (a worker address or name, "
                              "and a folder on that worker)")
        out.setdefault(worker, []).append(root)
    return out


def _progress(quiet: bool) -> FleetProgress:
    def show(done: int, total: int, result: SessionRow | SessionFailure | None) -> None:
        if quiet or result is None:
            return
        if isinstance(result, SessionFailure):
            text = f"FAILED {result.path}: {result.kind}: {result.error}"
        else:
            text = f"{len(result.compactions)} compaction(s)  {result.path}"
        print(f"[{done}/{total}] {text}", file=sys.stderr, flush=True)
    return show


def _lines(report: FleetReport, written: list[str]) -> list[str]:
    t = report.total
    lines = [f"{report.sessions:,} session(s), {report.sessions_with_compactions:,} with "
             f"compactions; {t.compactions:,} compaction(s): {t.dropped:,} specifics dropped, "
             f"{t.kept_share:.0%} kept, {t.critical:,} critical, {t.flush_missed:,} "
             f"memory-flush miss(es), {t.pointless:,} pointless",
             f"{report.audited:,} audited, {report.reused:,} reused, {len(report.failures):,} "
             f"failed, in {report.seconds:.1f} s ({report.mode})"]
    if report.ranked:
        lines.append("worst compactions:")
        for r in report.ranked[:10]:
            c = r.compaction
            lines.append(f"  {c.severity:<8} {c.dropped:>6,} dropped  {c.kept_share:>4.0%} kept  "
                         f"{c.trigger:<16} {open_command(r.session.path, c.compaction_id)}")
    lines += [f"FAILED {f.path}: {f.kind}: {f.error}" for f in report.failures]
    lines += [f"wrote {w}" for w in written]
    return lines


def run_all(args: argparse.Namespace) -> int:
    roots = list(args.file) or None
    worker_roots = _worker_roots(args.on)
    if worker_roots and args.scheduler is None:
        raise ConfigError("--on WORKER=ROOT needs --scheduler ADDRESS")
    if args.scheduler is None:  # this machine's roots: a typo is an error, not "no sessions"
        for root in roots or []:
            if not Path(root).exists():
                raise LoadError(root, "no such file or folder")
    cache = None if args.no_cache else RowCache(user_folders(args.basedir).state)
    try:
        run = run_fleet(roots, workers=args.workers, scheduler=args.scheduler,
                        worker_roots=worker_roots, cache=cache,
                        on_progress=_progress(args.quiet))
    finally:
        if cache is not None:
            cache.close()
    report = aggregate_fleet(run)
    written: list[str] = []
    if args.report is not None:
        written.append(str(write_fleet_html(report, args.report)))
    obj = fleet_json(report, run.rows)
    if isinstance(args.json, str):
        out = Path(args.json)
        out.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(out, json.dumps(obj, ensure_ascii=False, indent=1) + "\n")
        written.append(str(out))
    if args.json is True:
        obj["written"] = written
        emit_json(obj)
    else:
        emit_lines(_lines(report, written))
    return 0
