"""Fleet benchmark: sessions per second of ``audit --all``, serial vs a local Dask cluster.

Two corpora, each written by this file's own generator (fixed seed) as an OpenClaw gateway
(``agents/<id>/sessions/*.jsonl``):

* ``real``: runs of the real samples' entries (pi v1 and OpenClaw v3: ``01_``, ``03_``,
  ``04_`` in ``../shared/samples``), re-id'd and re-linked into v3 files, with 1-3
  compactions reusing the samples' real summaries;
* ``generated``: synthetic turns (asks naming paths and commands, tool calls, tool results
  with errors and numbers) with 1-3 compactions whose summaries keep a random part of the
  span's specifics.

For each corpus and size (default 200 and 2,000 sessions) it times ``run_fleet`` serially
(``--workers 0``) and on a ``LocalCluster`` of ``--workers`` processes (default: one per
core), and checks that both give the same rows; the serial run fills a fresh row cache
(the cluster run uses none), and a serial rerun then reuses every row from it. It also
prints the cluster's fixed cost (a run over an empty folder).

Usage: ``python benchmarks/fleet.py [--sizes 200,2000] [--corpus real|generated|both]
[--workers N] [--dir DIR]``. Data goes under ``--dir`` (default: a temp folder) and is
reused when present.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from machine import describe_machine  # noqa: E402
from sessionlens.engine.fleet.fleet_run import FleetRun, run_fleet  # noqa: E402
from sessionlens.engine.fleet.row_cache import RowCache  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = Path(os.environ.get("SESSIONLENS_SAMPLES", ROOT.parent / "shared" / "samples"))
REAL_SAMPLES = ("01_", "03_", "04_")
AGENTS = ("main", "ops", "research", "billing")
START = datetime(2026, 1, 5, tzinfo=UTC)
MAX_LINE = 20_000


def _iso(when: datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%S.000Z")


def _real_pools() -> tuple[list[dict[str, Any]], list[str]]:
    rows: list[dict[str, Any]] = []
    summaries: list[str] = []
    for prefix in REAL_SAMPLES:
        matches = sorted(SAMPLES.glob(f"{prefix}*.jsonl"))
        if not matches:
            raise SystemExit(f"real sample {prefix}* not found in {SAMPLES}")
        for line in matches[0].read_bytes().splitlines():
            if not line.strip() or len(line) > MAX_LINE:
                continue
            obj = json.loads(line)
            if obj.get("type") == "compaction" and isinstance(obj.get("summary"), str):
                summaries.append(obj["summary"])
            elif obj.get("type") in ("message", "model_change", "thinking_level_change"):
                rows.append(obj)
    return rows, summaries


def _generated_turn(rnd: random.Random, k: int) -> tuple[list[dict[str, Any]], list[str]]:
    """One user ask, an assistant tool call, its result: rows and the specifics named."""
    path = f"/srv/app/mod{rnd.randrange(500)}/file{k}.py"
    cmd = f"pytest -q tests/test_{rnd.randrange(300)}.py"
    err = f"ValueError: bad row {rnd.randrange(10_000)}"
    url = f"https://docs.example.com/p/{rnd.randrange(1000)}"
    call = f"call_{k}"
    usage = {"input": 2000 + 300 * k, "output": 40, "cacheRead": 0, "cacheWrite": 0,
             "totalTokens": 2040 + 300 * k}
    rows = [
        {"type": "message", "message": {"role": "user", "content": f"Look at {path} and see "
                                        f"{url}; then run {cmd}", "timestamp": k}},
        {"type": "message", "message": {
            "role": "assistant", "content": [
                {"type": "text", "text": f"Reading {path} first."},
                {"type": "toolCall", "id": call, "name": "bash", "arguments": {"command": cmd}}],
            "api": "openai-completions", "provider": "openrouter",
            "model": rnd.choice(("qwen/qwen3-coder", "anthropic/claude-sonnet-4.5")),
            "stopReason": "toolUse", "usage": usage, "timestamp": k}},
        {"type": "message", "message": {
            "role": "toolResult", "toolCallId": call, "toolName": "bash",
            "content": [{"type": "text", "text": f"collected 12 items\nE   {err}\n"
                         f"1 failed, 11 passed in {rnd.randrange(90)}.2s"}],
            "isError": False, "timestamp": k}},
    ]
    return rows, [path, cmd, err, url]


def _write(path: Path, rows: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def build(folder: Path, corpus: str, count: int, seed: int = 40) -> None:
    """``count`` sessions of ``corpus`` under ``folder/agents/<agent>/sessions/``."""
    rnd = random.Random(seed)
    pool, summaries = _real_pools() if corpus == "real" else ([], [])
    for i in range(count):
        agent = AGENTS[i % len(AGENTS)]
        sid = f"{i:08x}-f1ee-4000-8000-{rnd.getrandbits(48):012x}"
        when = START + timedelta(days=i * 150 / max(1, count))
        out: list[dict[str, Any]] = [{"type": "session", "version": 3, "id": sid,
                                      "timestamp": _iso(when), "cwd": f"/srv/{agent}"}]
        ids: list[str] = []
        leaf: str | None = None

        def add(row: dict[str, Any], ts: datetime, out: list[dict[str, Any]] = out,
                ids: list[str] = ids) -> None:
            nonlocal leaf
            eid = f"{len(ids) + 1:08x}"
            row = {**row, "id": eid, "parentId": leaf, "timestamp": row.get("timestamp")
                   or _iso(ts)}
            row.pop("firstKeptEntryIndex", None)
            out.append(row)
            ids.append(eid)
            leaf = eid

        turns = rnd.randint(10, 25)
        cuts = set(rnd.sample(range(3, turns), k=rnd.randint(1, 3)))
        at = rnd.randrange(len(pool)) if pool else 0
        named: list[str] = []
        for k in range(turns):
            if corpus == "real":
                made = [pool[(at + 3 * k + j) % len(pool)] for j in range(3)]
            else:
                made, specifics = _generated_turn(rnd, k)
                named += specifics
            for row in made:
                add(row, when + timedelta(minutes=k))
            if k in cuts:
                if corpus == "real":
                    summary = summaries[rnd.randrange(len(summaries))]
                else:
                    kept = [s for s in named if rnd.random() < 0.5]
                    summary = ("## Goal\nFix the failing tests.\n## Progress\n"
                               + "".join(f"- {s}\n" for s in kept))
                    named = []
                add({"type": "compaction", "summary": summary,
                     "firstKeptEntryId": ids[-rnd.randint(2, min(6, len(ids)))],
                     "tokensBefore": 40_000 + 1000 * k}, when + timedelta(minutes=k, seconds=30))
        _write(folder / "agents" / agent / "sessions" / f"{sid}.jsonl", out)


def _rate(run: FleetRun, n: int) -> str:
    return f"{run.seconds:7.1f} s  {n / run.seconds:6.1f} sessions/s"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="200,2000")
    ap.add_argument("--corpus", choices=("real", "generated", "both"), default="both")
    ap.add_argument("--workers", type=int, default=None,
                    help="local cluster processes (default: one per core)")
    ap.add_argument("--dir", type=Path, default=None)
    args = ap.parse_args()
    print(describe_machine())
    base = args.dir or Path(tempfile.mkdtemp(prefix="sessionlens-fleet-"))
    workers = args.workers or os.cpu_count() or 1
    empty = base / "empty"
    empty.mkdir(parents=True, exist_ok=True)
    fixed = run_fleet([empty], workers=workers)
    print(f"local cluster of {workers} processes: start + stop with no session "
          f"{fixed.seconds:.1f} s")
    corpora = ("real", "generated") if args.corpus == "both" else (args.corpus,)
    for corpus in corpora:
        for size in (int(s) for s in args.sizes.split(",")):
            folder = base / f"{corpus}-{size}"
            if not folder.exists():
                t0 = time.perf_counter()
                build(folder, corpus, size)
                print(f"{corpus} {size}: generated in {time.perf_counter() - t0:.1f} s")
            cache = RowCache(base / f"state-{corpus}-{size}-{time.time_ns()}")
            serial = run_fleet([folder], workers=0, cache=cache)  # fills a fresh cache
            cluster = run_fleet([folder], workers=workers)
            compactions = sum(len(r.compactions) for r in serial.rows)
            same = cluster.rows == serial.rows and cluster.failures == serial.failures
            print(f"{corpus:9} {size:5,} sessions ({compactions:,} compactions, "
                  f"{len(serial.failures)} failed)")
            print(f"  serial                        {_rate(serial, size)}")
            print(f"  local cluster of {workers} processes  {_rate(cluster, size)}  "
                  f"x{serial.seconds / cluster.seconds:.2f}  "
                  f"({'same rows' if same else 'ROWS DIFFER'})")
            again = run_fleet([folder], workers=0, cache=cache)
            cache.close()
            print(f"  rerun, every row reused       {_rate(again, size)}  "
                  f"({again.reused:,} reused)")


if __name__ == "__main__":
    main()
