"""Lineage benchmark: how long the lineage panel's engine work takes on a long, heavy chain.

Generates (fixed seed) a chain of ``--generations`` successors, each written by the engine's
own writer (successor + checkpoint copy + sessions.json record) and each grown with
``--turns`` fresh turns of ``--chars`` characters of tool output, so the files get big the
way real sessions do. Then times, cold and with every transcript already loaded (the GUI
keeps them cached): ``build_chain`` (what ``sessionlens chain`` prints), ``build_lineage``,
``analyze_drift`` over the chain, ``branch_outline`` of the newest file, and
``compare_points`` of the first and last files. The GUI runs these on the task pool; the
figures say how long the panel takes to fill after a file is opened.

Usage: python benchmarks/lineage.py [--generations 12] [--turns 300] [--chars 4000]
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sessionlens.engine.lineage.chain import build_chain
from sessionlens.engine.lineage.diff import compare_points
from sessionlens.engine.lineage.drift import analyze_drift
from sessionlens.engine.lineage.graph import branch_outline, build_lineage
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.persist.record import CompactionRecord
from sessionlens.engine.persist.writer import write_compaction

START = datetime(2026, 5, 1, tzinfo=UTC)


def _turns(path: Path, gen: int, turns: int, chars: int, rng: random.Random) -> None:
    """Append user / assistant(tool call) / toolResult triples to the file's leaf."""
    objs = [json.loads(x) for x in path.read_bytes().split(b"\n") if x.strip()]
    leaf = objs[-1]["id"] if len(objs) > 1 else None
    out: list[dict[str, Any]] = []
    n = 0

    def add(message: dict[str, Any]) -> None:
        nonlocal leaf, n
        n += 1
        eid = f"{gen:02x}{n:06x}"
        ts = (START + timedelta(days=gen, seconds=n)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
        out.append({"type": "message", "id": eid, "parentId": leaf, "timestamp": ts,
                    "message": message})
        leaf = eid

    for k in range(turns):
        add({"role": "user", "content": f"step {k}: look at /srv/mod{gen}/f{k}.py",
             "timestamp": k})
        call = f"call_{gen}_{k}"
        add({"role": "assistant", "content": [{"type": "toolCall", "id": call, "name": "read",
                                                "arguments": {"path": f"/srv/mod{gen}/f{k}.py"}}],
             "api": "a", "provider": "p", "model": "m", "stopReason": "toolUse",
             "usage": {"input": 1000 + k, "output": 20, "cacheRead": 0, "cacheWrite": 0,
                       "totalTokens": 1020 + k}, "timestamp": k})
        body = "".join(rng.choice("abcdefghij \n") for _ in range(chars))
        add({"role": "toolResult", "toolCallId": call, "toolName": "read",
             "content": [{"type": "text", "text": body}], "isError": False, "timestamp": k})
    with open(path, "a", encoding="utf-8") as fh:
        fh.writelines(json.dumps(o) + "\n" for o in out)


def make_chain(folder: Path, generations: int, turns: int, chars: int, seed: int) -> list[Path]:
    rng = random.Random(seed)
    sid = "be9c4000-0000-4000-8000-000000000001"
    first = folder / f"{sid}.jsonl"
    first.write_text(json.dumps({"type": "session", "version": 3, "id": sid,
                                 "timestamp": "2026-05-01T00:00:00.000Z", "cwd": "/srv"}) + "\n")
    (folder / "sessions.json").write_text(json.dumps({"agent:main:main": {
        "sessionId": sid, "sessionFile": f"/home/other/{first.name}"}}))
    _turns(first, 0, turns, chars, rng)
    paths = [first]
    for gen in range(1, generations + 1):
        t = load_transcript(paths[-1])
        users = [i for i in t.active_path if t.entry(i).role == "user"]
        summary = "## Goal\nbenchmark\n## Progress\n" + "\n".join(
            f"- /srv/mod{g}/f0.py" for g in range(gen)) + "\n"
        res = write_compaction(t, CompactionRecord(summary, users[-5], 100_000),
                               now=START + timedelta(days=gen))
        assert res.successor_path is not None
        _turns(res.successor_path, gen, turns, chars, rng)
        paths.append(res.successor_path)
    return paths


def _time(label: str, fn: Any) -> Any:
    t0 = time.perf_counter()
    out = fn()
    print(f"  {label:<34} {(time.perf_counter() - t0) * 1000:9.1f} ms")
    return out


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--generations", type=int, default=12)
    p.add_argument("--turns", type=int, default=300)
    p.add_argument("--chars", type=int, default=4000)
    p.add_argument("--seed", type=int, default=11)
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        paths = make_chain(folder, args.generations, args.turns, args.chars, args.seed)
        size = sum(f.stat().st_size for f in folder.iterdir())
        print(f"chain: {len(paths)} transcripts, {sum(1 for _ in folder.iterdir())} files, "
              f"{size / 1e6:.1f} MB in total, newest {paths[-1].stat().st_size / 1e6:.1f} MB")
        cache: dict[Path, Any] = {}

        def load(path: Path) -> Any:
            if path not in cache:
                cache[path] = load_transcript(path)
            return cache[path]

        print("cold (every transcript read from disk):")
        _time("build_chain", lambda: build_chain(paths[-1]))
        lineage = _time("build_lineage (loads the chain)",
                        lambda: build_lineage(paths[-1], load=load))
        print("warm (transcripts cached, as in the GUI):")
        _time("build_chain", lambda: build_chain(paths[-1]))
        _time("build_lineage", lambda: build_lineage(paths[-1], load=load))
        report = _time("analyze_drift", lambda: analyze_drift(
            [load(q) for q in lineage.transcript_paths()]))
        _time("branch_outline (newest file)", lambda: branch_outline(load(paths[-1])))
        diff = _time("compare_points (first -> newest)",
                     lambda: compare_points(load(paths[0]), load(paths[-1])))
        print(f"nodes {len(lineage.nodes)}, edges {len(lineage.edges)}, "
              f"summaries {len(report.points)}, summarized entries {len(diff.summarized)}")


if __name__ == "__main__":
    main()
