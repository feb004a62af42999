"""Plan benchmark: time the pure planning steps on the ~100 MB load-benchmark transcript.

Reuses ``benchmarks/load.py``'s generator (same seed, same file), loads it once, then times
(best of ``--runs``, target < 1 s each after load):
  plan            ``plan_compaction`` with OpenClaw defaults on the file as it stood before its
                  last compaction (region = after the compaction before that)
  plan manual     a hard-boundary manual plan (everything in the region summarized)
  plan worst      the same file with its compactions spliced out, so the region is the whole
                  active path (the most a plan can ever walk); then again with the
                  estimates taken from a ``count_tokens`` report, as the GUI does
  forensics       ``analyze_compactions`` over every compaction in the file
  pruning         ``preview_pruning`` over the replayed context
Usage: ``python benchmarks/plan.py [--size-mb 100] [--dir FOLDER] [--seed 7] [--runs 3]``
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from load import add_file_args, bench_file  # noqa: E402  (the load benchmark's data)
from sessionlens.engine.lineage.forensics import analyze_compactions  # noqa: E402
from sessionlens.engine.load.reader import load_transcript  # noqa: E402
from sessionlens.engine.load.tree import build_transcript  # noqa: E402
from sessionlens.engine.model import Transcript  # noqa: E402
from sessionlens.engine.plan.planner import plan_compaction  # noqa: E402
from sessionlens.engine.plan.pruning import preview_pruning  # noqa: E402
from sessionlens.engine.settings import DEFAULT_SETTINGS  # noqa: E402
from sessionlens.engine.tokens.counts import count_tokens  # noqa: E402


def best_of(runs: int, fn: Callable[[], Any]) -> tuple[float, Any]:
    best, result = float("inf"), None
    for _ in range(runs):
        gc.collect()
        t0 = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t0)
    return best, result


def without_compactions(t: Transcript) -> Transcript:
    """The transcript with every compaction removed and its children re-parented."""
    parent_of = {e.id: e.parent_id for e in t.entries if e.type == "compaction"}

    def lift(pid: str | None) -> str | None:
        while pid in parent_of:
            pid = parent_of[pid]
        return pid

    kept = [replace(e, parent_id=lift(e.parent_id)) if e.parent_id in parent_of else e
            for e in t.entries if e.type != "compaction"]
    return build_transcript(t.path, t.format, t.header, kept, ())


def before_last_compaction(t: Transcript) -> Transcript:
    """The transcript as it stood just before its last compaction was written (if it ends
    with one, planning it again would be "Already compacted")."""
    if not t.entries or t.entries[-1].type != "compaction":
        return t
    return build_transcript(t.path, t.format, t.header, t.entries[:-1], ())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_file_args(ap)
    args = ap.parse_args(argv)

    path = bench_file(args)
    t0 = time.perf_counter()
    t = load_transcript(path)
    print(f"file        {path}  {path.stat().st_size / (1 << 20):.1f} MB, loaded in "
          f"{time.perf_counter() - t0:.2f} s: {len(t.entries):,} entries, active path "
          f"{len(t.active_path):,}, {len(t.compactions)} compactions")
    t = before_last_compaction(t)
    worst = without_compactions(t)

    def report(name: str, seconds: float, detail: str) -> None:
        verdict = "OK" if seconds < 1.0 else "MISSED"
        print(f"{name:<15} {seconds * 1000:8.1f} ms  ({verdict}, target < 1 s)  {detail}")

    secs, plan = best_of(args.runs, lambda: plan_compaction(t, DEFAULT_SETTINGS))
    report("plan", secs, f"region {len(plan.region_entry_ids):,} entries, "
                         f"{len(plan.chunks)} chunks, first kept {plan.first_kept_entry_id}")
    secs, plan = best_of(args.runs, lambda: plan_compaction(t, DEFAULT_SETTINGS, manual=True))
    report("plan manual", secs, f"{len(plan.summarize_entry_ids):,} entries summarized")
    secs, plan = best_of(args.runs, lambda: plan_compaction(worst, DEFAULT_SETTINGS))
    report("plan worst", secs, f"region {len(plan.region_entry_ids):,} entries (no compaction), "
                               f"{len(plan.chunks)} chunks")
    t1 = time.perf_counter()
    report_worst = count_tokens(worst)
    counted = time.perf_counter() - t1
    secs, plan = best_of(args.runs,
                         lambda: plan_compaction(worst, DEFAULT_SETTINGS, tokens=report_worst))
    report("plan worst+rep", secs, f"estimates taken from a TokenReport (count_tokens itself: "
                                   f"{counted:.1f} s, done once per file and cached)")
    secs, found = best_of(args.runs, lambda: analyze_compactions(t, DEFAULT_SETTINGS))
    report("forensics", secs, f"{len(found)} compactions")
    secs, pruning = best_of(args.runs, lambda: preview_pruning(t))
    report("pruning", secs, f"{len(pruning.pruned_entry_ids):,} results, "
                            f"{pruning.tokens_saved:,} tokens saved")
    return 0


if __name__ == "__main__":
    sys.exit(main())
