"""SessionLens against the agent's own loader, on the same ~100 MB v3 transcripts.

In one run, round-robin (so a busy machine slows every contender alike), medians of
``--runs`` (at least 5), each in a fresh process whose wall time and peak RSS are taken:

  pi            pi's own ``SessionManager.open`` + ``buildSessionContext`` from the pinned npm
                package (tests/fidelity/node), under Node; the time is the one measured
                around those two calls inside Node (its process start and import excluded)
  node-bare     ``JSON.parse`` of every line under Node (read + split + parse)
  python-bare   ``json.loads`` of every line under Python (read + parse)
  engine        ``load_transcript`` + ``count_context_tokens`` in one Python process (timed
                inside it, cold count cache), the load alone shown beside it
  inspect-cold  ``sessionlens inspect --json FILE`` as a process, a count cache that has never
                seen the file (fresh ``--basedir``; tokenizer data already seeded, as after the
                first run on a machine)
  inspect-warm  the same command again with the same cache (the file opened again: answered
                from the answer ``inspect`` kept, after checking the file's SHA-256)
  inspect-fresh the same again with ``--fresh``: worked out again, only the counts remembered

Ratios are against pi's open + buildSessionContext (wall time, as asked); the CPU time of each
whole process is printed beside it, since wall time on a shared machine also measures the
other jobs. Two inputs, both with compactions and
side branches and a replayed context of about a window's worth: one re-linked from the real
samples' entries (``/work/shared/samples``, never copied into the repository), one from this
benchmark's own generator (``load.py``'s entry generator with compactions near the end).

Usage: ``python benchmarks/vs_agents.py [--size-mb 100] [--runs 7] [--dir DIR] [--keep]``;
the inputs go to DIR (default: a temp folder; ``bench-data/`` is gitignored).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))

from load import generate  # noqa: E402  (the load benchmark's generator)
from machine import describe_machine  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
NODE_MODULES = ROOT / "tests" / "fidelity" / "node" / "node_modules"
SAMPLES = Path(os.environ.get("SESSIONLENS_SAMPLES", ROOT.parent / "shared" / "samples"))
#: Real samples whose entries the first input is made of (pi v1 and OpenClaw v3 files).
REAL_SAMPLES = ("01_", "03_", "04_")
#: Compactions and side branches in each input.
COMPACTIONS = 5
BRANCHES = 3
#: Text after the last compaction: about what a 200k-token window holds.
TAIL_BYTES = 900_000

PI_SCRIPT = """
const t0 = performance.now();
const { SessionManager } = await import(process.argv[3]);
const t1 = performance.now();
const sm = SessionManager.open(process.argv[2]);
const ctx = sm.buildSessionContext();
const t2 = performance.now();
console.log(JSON.stringify({seconds: (t2 - t1) / 1000, import_s: (t1 - t0) / 1000,
                            messages: ctx.messages.length}));
"""
NODE_BARE_SCRIPT = """
const fs = require("fs");
const t0 = performance.now();
const lines = fs.readFileSync(process.argv[2], "utf8").split("\\n");
let n = 0;
for (const line of lines) { if (line.trim()) { JSON.parse(line); n++; } }
console.log(JSON.stringify({seconds: (performance.now() - t0) / 1000, lines: n}));
"""
PY_BARE_SCRIPT = """
import json, sys, time
t0 = time.perf_counter()
n = 0
with open(sys.argv[1], "rb") as fh:
    for line in fh:
        if line.strip():
            json.loads(line)
            n += 1
print(json.dumps({"seconds": time.perf_counter() - t0, "lines": n}))
"""
ENGINE_SCRIPT = """
import gc, json, sys, time
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.tokens.counts import count_context_tokens, use_count_cache
cache = use_count_cache(sys.argv[2])
gc.disable()
t0 = time.perf_counter()
t = load_transcript(sys.argv[1])
t1 = time.perf_counter()
r = count_context_tokens(t, "o200k_base", cache=cache)
t2 = time.perf_counter()
print(json.dumps({"seconds": t2 - t0, "load_s": t1 - t0, "exact": r.exact_context,
                  "context": len(t.context)}))
"""


# --------------------------------------------------------------------------- the inputs

def _sample_rows(prefix: str) -> list[dict[str, Any]]:
    matches = sorted(SAMPLES.glob(f"{prefix}*.jsonl"))
    if not matches:
        raise SystemExit(f"real sample {prefix}* not found in {SAMPLES}")
    rows = [json.loads(line) for line in matches[0].read_bytes().splitlines() if line.strip()]
    return [r for r in rows if isinstance(r, dict) and r.get("type") != "session"]


class Relinker:
    """Writes entries with fresh ids, each a child of the last, into a v3 file."""

    def __init__(self, out: Any, session_id: str, seed: int) -> None:
        self.out = out
        self.rnd = random.Random(seed)
        self.ids: list[str] = []
        self.leaf: str | None = None
        self.size = 0
        self.write({"type": "session", "version": 3, "id": session_id,
                    "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/home/dev/project"},
                   header=True)

    def write(self, row: dict[str, Any], *, header: bool = False) -> None:
        if not header:
            eid = f"{len(self.ids) + 1:08x}"
            row = {**row, "id": eid, "parentId": self.leaf}
            row.pop("firstKeptEntryIndex", None)
            self.ids.append(eid)
            self.leaf = eid
        line = orjson.dumps(row) + b"\n"
        self.out.write(line)
        self.size += len(line)

    def compaction(self, summary: str, tokens_before: int) -> None:
        kept = self.ids[-self.rnd.randint(6, 30)]
        self.write({"type": "compaction", "timestamp": "2026-01-02T00:00:00.000Z",
                    "summary": summary, "firstKeptEntryId": kept, "tokensBefore": tokens_before})

    def branch(self) -> None:
        """Go back a few entries: what follows is the active branch, the rest a side one."""
        self.leaf = self.ids[-self.rnd.randint(4, 12)]


def _milestones(target: int) -> tuple[list[int], list[int]]:
    """Byte sizes at which to compact (the last one leaves ``TAIL_BYTES``) and to branch."""
    last = max(target // 2, target - TAIL_BYTES)
    compactions = [last * (k + 1) // COMPACTIONS for k in range(COMPACTIONS)]
    branches = [target * (2 * k + 1) // (2 * BRANCHES + 1) for k in range(BRANCHES)]
    return compactions, branches


def build_from_samples(path: Path, size_mb: float, seed: int) -> None:
    """Real entries of the samples, cycled, re-id'd and re-linked; compactions reuse real
    summaries; the samples' own compactions are left out so they fall where planned."""
    pools = [_sample_rows(p) for p in REAL_SAMPLES]
    summaries = [r for pool in pools for r in pool if r.get("type") == "compaction"
                 and isinstance(r.get("summary"), str) and r["summary"]]
    rows = [r for pool in pools for r in pool if r.get("type") != "compaction"]
    target = int(size_mb * (1 << 20))
    compactions, branches = _milestones(target)
    with open(path, "wb") as fh:
        w = Relinker(fh, "bench-real-samples", seed)
        i = 0
        while w.size < target:
            w.write(rows[i % len(rows)])
            i += 1
            if compactions and w.size >= compactions[0]:
                compactions.pop(0)
                real = summaries[len(compactions) % len(summaries)]
                w.compaction(real["summary"], int(real.get("tokensBefore") or 150_000))
            if branches and w.size >= branches[0]:
                branches.pop(0)
                w.branch()


def build_generated(path: Path, size_mb: float, seed: int) -> None:
    """``load.py``'s generated turns (tools, thinking, images, labels, branch summaries)."""
    compactions, branches = _milestones(int(size_mb * (1 << 20)))
    generate(path, size_mb, seed, compactions=compactions, branches=branches,
             session_id="bench-generated")


# --------------------------------------------------------------------------- measuring

@dataclass
class Figures:
    """What one contender measured: inner seconds, process wall seconds, peak RSS bytes."""

    seconds: list[float] = field(default_factory=list)
    wall: list[float] = field(default_factory=list)
    #: user + system CPU seconds of the whole process (all its threads): steadier than wall
    #: time on a machine other jobs keep busy
    cpu: list[float] = field(default_factory=list)
    rss: list[int] = field(default_factory=list)
    extra: dict[str, list[float]] = field(default_factory=dict)


def run_measured(cmd: list[str], env: dict[str, str]) -> tuple[float, float, int, str]:
    """Wall seconds, CPU seconds, peak RSS (bytes) and stdout of one process."""
    with tempfile.TemporaryFile() as out:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.PIPE, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
        if proc.stderr:
            proc.stderr.close()
        out.seek(0)
        text = out.read().decode()
    if proc.returncode != 0:
        raise SystemExit(f"{cmd[0]} failed ({proc.returncode}): {err.strip()[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024, text


def median(xs: list[float]) -> float:
    return statistics.median(xs) if xs else float("nan")


def contenders(path: Path, work: Path, env: dict[str, str]) -> Iterator[tuple[str, list[str]]]:
    """(name, command) for one round; inspect-cold gets a fresh cache folder each round."""
    node = shutil.which("node")
    sm = NODE_MODULES / "@mariozechner" / "pi-coding-agent" / "dist" / "core" / "session-manager.js"
    if node and sm.exists():
        yield "pi", [node, str(work / "pi.mjs"), str(path), sm.as_uri()]
    if node:
        yield "node-bare", [node, str(work / "bare.cjs"), str(path)]
    yield "python-bare", [sys.executable, "-c", PY_BARE_SCRIPT, str(path)]
    cold = Path(tempfile.mkdtemp(prefix="cold-", dir=work))
    yield "engine", [sys.executable, "-c", ENGINE_SCRIPT, str(path), str(cold / "engine")]
    script = Path(sys.executable).parent / "sessionlens"  # what a user runs
    entry = [str(script)] if script.exists() else [sys.executable, "-m", "sessionlens.engine.cli"]
    inspect = [*entry, "inspect", "--json", str(path)]
    yield "inspect-cold", [*inspect, "--basedir", str(cold)]
    yield "inspect-warm", [*inspect, "--basedir", str(cold)]
    yield "inspect-fresh", [*inspect, "--fresh", "--basedir", str(cold)]


def bench(path: Path, runs: int, work: Path, env: dict[str, str]) -> dict[str, Figures]:
    figures: dict[str, Figures] = {}
    answers: dict[str, Any] = {}
    for _ in range(runs):
        for name, cmd in contenders(path, work, env):
            wall, cpu, rss, out = run_measured(cmd, env)
            f = figures.setdefault(name, Figures())
            f.wall.append(wall)
            f.cpu.append(cpu)
            f.rss.append(rss)
            data = json.loads(out)
            if name.startswith("inspect"):
                f.seconds.append(wall)
                answers[name] = {**data["tokens"], "report_cache": data["report_cache"]}
            else:
                f.seconds.append(float(data["seconds"]))
                for key in ("load_s", "import_s"):
                    if key in data:
                        f.extra.setdefault(key, []).append(float(data[key]))
                answers[name] = data
    cold, warm = answers.get("inspect-cold"), answers.get("inspect-warm")
    if cold and warm:
        print(f"  inspect: context exact {cold['exact']:,} (reported {cold['reported_context']}, "
              f"estimate {cold['estimate']:,}); cold run tokenized {cold['tokenized_texts']} "
              f"texts, warm run {warm['tokenized_texts']} (cached {warm['cached_texts']}); "
              f"whole file counted: {cold['file']['counted']}")
        if cold["exact"] != warm["exact"]:
            raise SystemExit("cold and warm inspect disagree on the context's exact count")
        fresh = answers.get("inspect-fresh")
        print(f"  inspect: answered from the kept answer: cold {cold['report_cache']['hit']}, "
              f"warm {warm['report_cache']['hit']}"
              + (f", fresh {fresh['report_cache']['hit']}" if fresh else ""))
    if "pi" in answers and "engine" in answers:
        print(f"  pi context messages {answers['pi']['messages']:,}; engine context items "
              f"{answers['engine']['context']:,}")
    return figures


def report(title: str, path: Path, figures: dict[str, Figures]) -> dict[str, float]:
    size = path.stat().st_size
    print(f"\n{title}: {path.name}, {size / 1e6:.1f} MB")
    pi = median(figures["pi"].seconds) if "pi" in figures else float("nan")
    print(f"  {'':<13} {'median s':>9} {'process s':>10} {'CPU s':>7} {'peak RSS':>10} "
          f"{'RSS/file':>9} {'vs pi':>7}")
    out: dict[str, float] = {}
    for name, f in figures.items():
        s = median(f.seconds)
        rss = max(f.rss)
        note = ""
        if "load_s" in f.extra:
            note = f"  (load alone {median(f.extra['load_s']):.3f} s)"
        if "import_s" in f.extra:
            note = f"  (Node start + import not included: {median(f.extra['import_s']):.3f} s)"
        print(f"  {name:<13} {s:9.3f} {median(f.wall):10.3f} {median(f.cpu):7.3f} "
              f"{rss / 2**20:8.0f} MiB "
              f"{rss / size:8.2f}x {s / pi:6.2f}x{note}")
        out[name] = s / pi
        out[name + ":rss"] = rss / size
    for name, target in (("inspect-cold", 0.75), ("inspect-warm", 0.5), ("inspect-fresh", 0.5)):
        if name in out:
            ok = out[name] <= target and out[name + ":rss"] <= 3.0
            print(f"  {name}: {out[name]:.2f}x pi (target <= {target}x), peak RSS "
                  f"{out[name + ':rss']:.2f}x file (target <= 3x): {'OK' if ok else 'MISSED'}")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size-mb", type=float, default=100.0)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--dir", type=Path, help="folder for the inputs (kept); default: temp")
    ap.add_argument("--keep", action="store_true", help="keep the temp folder")
    args = ap.parse_args(argv)
    if args.runs < 5:
        ap.error("--runs must be at least 5 (medians of 5 or more)")
    work = Path(tempfile.mkdtemp(prefix="sessionlens-vs-agents-"))
    data_dir = args.dir or work
    data_dir.mkdir(parents=True, exist_ok=True)
    (work / "pi.mjs").write_text(PI_SCRIPT)
    (work / "bare.cjs").write_text(NODE_BARE_SCRIPT)
    env = {**os.environ, "TIKTOKEN_CACHE_DIR": str(work / "tiktoken")}
    # byte-compile the sources, as an installed package is: without it (PYTHONDONTWRITEBYTECODE
    # on this machine) every run would compile the engine from source first
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "engine" / "src"),
                    str(ROOT / "gui" / "src")], check=True, capture_output=True)
    # seed the tokenizer data once, as any earlier run on the machine would have
    subprocess.run([sys.executable, "-c", "from sessionlens.engine import ensure_tiktoken_data;"
                    "ensure_tiktoken_data()"], env=env, check=True)
    try:
        print(f"machine: {describe_machine()} at start; node {_version(['node', '--version'])}; "
              f"{args.runs} rounds, round-robin")
        inputs = [("real samples, re-linked", data_dir / "vs-agents-real.jsonl",
                   build_from_samples),
                  ("generated", data_dir / "vs-agents-generated.jsonl", build_generated)]
        for title, path, build in inputs:
            if not path.exists() or abs(path.stat().st_size - args.size_mb * (1 << 20)) > (8 << 20):
                t0 = time.perf_counter()
                build(path, args.size_mb, args.seed)
                print(f"built {path} in {time.perf_counter() - t0:.1f} s")
            mtime = path.stat().st_mtime_ns
            report(title, path, bench(path, args.runs, work, env))
            if path.stat().st_mtime_ns != mtime:
                raise SystemExit(f"{path} was modified during the benchmark")
        print(f"\nload average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 0


def _version(cmd: list[str]) -> str:
    try:
        return subprocess.run(cmd, capture_output=True, text=True).stdout.strip() or "?"
    except OSError:
        return "not found"


if __name__ == "__main__":
    sys.exit(main())
