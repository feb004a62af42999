"""Search benchmark: first index build, incremental update, query latency, on >= 500 MB.

Two corpora, because generated text and real text tokenize and index differently:

* ``--corpus generated`` (own generator, fixed seed): OpenClaw v3 sessions in an
  ``agents/<id>/sessions/`` layout, 1-15 MB each: user asks, assistant text with thinking
  and tool calls, tool results (code, logs, JSON, the odd CJK line, some 40 KB outputs),
  compactions, plus planted facts the queries look for. Prose draws on a 20,000-word
  vocabulary with Zipf-like frequencies, so common words are everywhere and most are rare.
* ``--corpus samples``: every line of the real samples the loader reads (pi v1, OpenClaw
  v3, Claude Code, Codex in ``../shared/samples``), copied into many files with ids made
  unique per copy so each file is a valid transcript of its format.

Prints, in one run:
  * first index build throughput: corpus MB / seconds (target >= 20 MB/s on 2 cores);
  * incremental update after appending entries to one file (target < 1 s), for a
    median-sized file and for the largest;
  * query latency p50 / p95 over a fixed query mix, each run several times (target
    p95 < 100 ms).

Usage: ``python benchmarks/search.py [--corpus generated|samples|both] [--size-mb 520]
[--dir bench-data/search] [--workers 2] [--chunk-encoding estimate] [--keep]``.
Data goes under ``--dir`` (default ``bench-data/search``, gitignored) and is reused when
present with the same size and seed.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))

from machine import describe_machine  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT.parent / "shared" / "samples"

WORDS = ("the of and to in is that for it as with was on be by this are or from at an which "
         "function return value error file path config session token context summary tool "
         "result assistant user message compaction branch leaf parent entry line index "
         "import class def self async await yield none true false list dict tuple deploy "
         "server client request response timeout retry cache hash offset length buffer "
         "database migration schema postgres replica queue worker billing invoice").split()
CJK = "会话上下文压缩摘要工具结果用户助手消息文件路径配置"
CODE = ["def f{n}(x):\n    return x * {n} + len(str(x))\n",
        "const v{n} = await fetch(`/api/{n}`); if (!v{n}.ok) throw new Error(\"bad\");\n",
        "Traceback (most recent call last):\n  File \"/srv/app/mod{n}.py\", line {n}\n"
        "KeyError: 'k{n}'\n",
        "{{\"id\": {n}, \"name\": \"item-{n}\", \"tags\": [\"a\", \"b\"]}}\n",
        "2026-03-0{d}T12:00:{n:02d}Z INFO worker-{n} processed batch {n} in {n}ms\n"]
AGENTS = ("main", "ops", "research", "billing")

#: Planted facts: (query, text planted in a user message of some generated files).
FACTS = [("ECONNRESET queue-worker-9f3a1c77", "The deploy failed with ECONNRESET from "
          "queue-worker-9f3a1c77."),
         ("pgbouncer-eu7", "The billing database listens on port 6543 behind pgbouncer-eu7."),
         ("zebra_canary_rollout", "The feature flag is called zebra_canary_rollout."),
         ("\"rotate the signing key\"", "We must rotate the signing key every 30 days."),
         ("k7-omega rack", "The replica moved to rack k7-omega.")]
QUERIES = [q for q, _ in FACTS] + [
    "error", "timeout retry", "postgres migration", "deploy*", "session summary",
    "worker processed batch", "KeyError", "fetch api", "compaction branch leaf",
    "\"return value\"", "billing invoice queue", "schema", "上下文", "config path",
    "async await", "replica", "traceback", "cache hash", "client request timeout",
    "database", "message", "the",
]


def vocabulary(rnd: random.Random, size: int = 20_000) -> tuple[list[str], list[float]]:
    """Words with Zipf-like frequencies (rank r drawn in proportion to 1/r), as prose has:
    a few words are everywhere, most are rare, which is what BM25 and FTS5 costs depend on."""
    syllables = [a + b for a in "bcdfghklmnprstvz" for b in "aeiou"] + ["th", "qu", "x"]
    words = list(dict.fromkeys(WORDS))
    while len(words) < size:
        words.append("".join(rnd.choices(syllables, k=rnd.randint(2, 4))))
    cum, total = [], 0.0
    for rank in range(1, len(words) + 1):
        total += 1.0 / rank
        cum.append(total)
    return words, cum


class Gen:
    """Streams a plausible OpenClaw v3 session into a file."""

    def __init__(self, rnd: random.Random, vocab: tuple[list[str], list[float]]) -> None:
        self.rnd = rnd
        self.words, self.cum = vocab
        self.n = 0
        self.leaf: str | None = None
        self.ts = 1_767_225_600_000
        self.pool = [self._paragraph(rnd.randint(10, 600)) for _ in range(3000)]

    def _paragraph(self, words: int) -> str:
        r, lines = self.rnd, []
        while words > 0:
            k = r.randint(8, 40)
            kind = r.random()
            if kind < 0.3:
                lines.append(r.choice(CODE).format(n=r.randint(1, 999), d=r.randint(1, 9)))
            elif kind < 0.305:
                lines.append("".join(r.choices(CJK, k=k)))
            else:
                sentence = r.choices(self.words, cum_weights=self.cum, k=k)
                lines.append(" ".join(sentence).capitalize() + ".")
            words -= k
        return "\n".join(lines)

    def text(self, lo: int, hi: int) -> str:
        """Paragraphs from the pool, at least ``lo`` and at most ``hi`` characters."""
        parts = [self.rnd.choice(self.pool)]
        size = len(parts[0])
        while size < lo:
            parts.append(self.rnd.choice(self.pool))
            size += len(parts[-1]) + 1
        return "\n".join(parts)[:hi]

    def row(self, type: str, **fields: Any) -> bytes:
        self.n += 1
        eid = f"{self.n:08x}"
        self.ts += self.rnd.randint(200, 40_000)
        iso = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(self.ts / 1000)) + \
            f".{self.ts % 1000:03d}Z"
        obj = {"type": type, "id": eid, "parentId": self.leaf, "timestamp": iso, **fields}
        self.leaf = eid
        return orjson.dumps(obj) + b"\n"

    def message(self, role: str, **fields: Any) -> bytes:
        return self.row("message", message={"role": role, "timestamp": self.ts, **fields})

    def header(self, sid: str) -> bytes:
        return orjson.dumps({"type": "session", "version": 3, "id": sid,
                             "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/srv/app"}) + b"\n"

    def turn(self, fact: str | None = None) -> list[bytes]:
        r = self.rnd
        ask = self.text(20, 1200) if fact is None else f"{self.text(20, 300)}\n{fact}"
        out = [self.message("user", content=ask)]
        for _ in range(r.randint(1, 5)):
            calls = [{"type": "toolCall", "id": f"call_{self.n}_{k}",
                      "name": r.choice(["read", "bash", "edit", "grep"]),
                      "arguments": {"path": f"src/{r.choice(WORDS)}.py",
                                    "command": self.text(20, 200)}}
                     for k in range(r.randint(0, 3))]
            content: list[dict[str, Any]] = []
            if r.random() < 0.5:
                content.append({"type": "thinking", "thinking": self.text(100, 2000)})
            content.append({"type": "text", "text": self.text(20, 1200)})
            content.extend(calls)
            out.append(self.message("assistant", content=content, api="anthropic-messages",
                                    provider="anthropic", model="claude-opus-4-5",
                                    stopReason="toolUse" if calls else "stop",
                                    usage={"input": 900, "output": 300, "cacheRead": 40_000,
                                           "cacheWrite": 0, "totalTokens": 41_200}))
            for c in calls:
                size = 40_000 if r.random() < 0.03 else 3_000
                out.append(self.message("toolResult", toolCallId=c["id"], toolName=c["name"],
                                        content=[{"type": "text", "text": self.text(50, size)}],
                                        isError=r.random() < 0.05))
            if not calls:
                break
        if r.random() < 0.01:
            kept = self.leaf
            out.append(self.row("compaction", summary="## Goal\n" + self.text(200, 3000),
                                firstKeptEntryId=kept, tokensBefore=150_000))
        return out


def generate(folder: Path, size_mb: float, seed: int) -> list[Path]:
    rnd = random.Random(seed)
    vocab = vocabulary(random.Random(seed))
    target = int(size_mb * 1e6)
    written, files, k = 0, [], 0
    while written < target:
        size = int(rnd.uniform(1, 15) * 1e6)
        agent = AGENTS[k % len(AGENTS)]
        path = folder / "agents" / agent / "sessions" / f"{k:04d}-{rnd.getrandbits(32):08x}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        g = Gen(random.Random(seed * 1000 + k), vocab)
        fact = FACTS[k % len(FACTS)][1] if k % 7 == 0 else None
        with open(path, "wb") as fh:
            n = fh.write(g.header(f"{k:08x}-0000-4000-8000-{rnd.getrandbits(48):012x}"))
            turns = 0
            while n < size:
                for line in g.turn(fact if turns == 40 else None):
                    n += fh.write(line)
                turns += 1
        files.append(path)
        written += n
        k += 1
    return files


# --------------------------------------------------------------------------- from the samples

_ID_KEYS = ("id", "parentId", "firstKeptEntryId", "uuid", "parentUuid", "leafUuid",
            "logicalParentUuid", "targetId", "fromId")


def _sample_files() -> list[Path]:
    """The samples the loader reads as transcripts (a Kimi ``wire.jsonl`` has a format the
    loader knows but is no transcript: copies of it would be read and dropped by the
    index, and counting their megabytes would flatter the throughput)."""
    from sessionlens.engine.errors import LoadError
    from sessionlens.engine.load.reader import load_transcript

    out = []
    for p in sorted(SAMPLES.rglob("*.jsonl")):
        try:
            load_transcript(p)
        except LoadError:
            continue  # an agent the loader does not read, or not a transcript
        out.append(p)
    return out


def _retag(obj: Any, tag: str) -> Any:
    """Make every id of a line unique to one copy (links inside the copy stay intact)."""
    if isinstance(obj, dict):
        for key in _ID_KEYS:
            if isinstance(obj.get(key), str):
                obj[key] = f"{obj[key]}-{tag}"
    return obj


def from_samples(folder: Path, size_mb: float, seed: int) -> list[Path]:
    rnd = random.Random(seed)
    sources = _sample_files()
    if not sources:
        sys.exit(f"no readable samples in {SAMPLES}")
    bodies = {p: p.read_bytes().splitlines() for p in sources}
    target = int(size_mb * 1e6)
    written, files, k = 0, [], 0
    while written < target:
        src = sources[k % len(sources)]
        lines = bodies[src]
        head, body = lines[0], lines[1:]
        copies = rnd.randint(1, 6)
        path = folder / "copies" / f"{k:04d}-{src.stem[:40]}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "wb") as fh:
            n = fh.write(head + b"\n")
            for c in range(copies):
                for raw in body:
                    if not raw.strip():
                        continue
                    try:
                        obj = orjson.loads(raw)
                    except orjson.JSONDecodeError:
                        continue
                    n += fh.write(orjson.dumps(_retag(obj, f"c{c}")) + b"\n")
        files.append(path)
        written += n
        k += 1
    return files


# --------------------------------------------------------------------------- measuring

#: Bumped when a generator changes, so an older corpus on disk is not reused.
CORPUS_VERSIONS = {"generated": "v2", "samples": "v3"}


def _corpus(kind: str, root: Path, size_mb: float, seed: int) -> tuple[Path, list[Path]]:
    folder = root / f"{kind}-{CORPUS_VERSIONS[kind]}-{size_mb:g}mb-{seed}"
    stamp = folder / "complete.json"
    if stamp.is_file():
        return folder, [Path(p) for p in json.loads(stamp.read_text())]
    shutil.rmtree(folder, ignore_errors=True)
    t = time.perf_counter()
    files = (generate if kind == "generated" else from_samples)(folder, size_mb, seed)
    stamp.write_text(json.dumps([str(p) for p in files]))
    print(f"  generated {len(files)} files in {time.perf_counter() - t:.1f} s")
    return folder, files


def _entry_count(path: Path) -> int:
    from sessionlens.engine.load.reader import load_transcript

    return len(load_transcript(path).entries)


def _append(path: Path, entries: int, rnd: random.Random) -> tuple[int, int]:
    """Append about ``entries`` entries to ``path`` in its own format; (bytes, entries).

    The lines are the file's own, copied from a random place with every id made new, so
    any format the corpus holds (Copilot events, Gemini, Kimi, ... not only OpenClaw,
    Claude Code and Codex) gets lines its loader reads as entries. A line of another
    format would be skipped by that loader and the update would rightly add nothing. The
    entries added are counted by loading the file before and after (outside the timing).
    """
    before = _entry_count(path)
    lines = [raw for raw in path.read_bytes().splitlines()[1:] if raw.strip()]
    per_line = max(before, 1) / max(len(lines), 1)
    take = min(len(lines), max(1, round(entries / per_line)))
    at = rnd.randrange(0, len(lines) - take + 1)
    tag = f"ap{rnd.getrandbits(40):010x}"
    out = []
    for raw in lines[at:at + take]:
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        out.append(orjson.dumps(_retag(obj, tag)) + b"\n")
    with open(path, "ab") as fh:
        written = fh.write(b"".join(out))
    return written, _entry_count(path) - before


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def run(kind: str, args: argparse.Namespace) -> None:
    from sessionlens.engine.search.search_index import SearchIndex
    from sessionlens.engine.search.search_settings import SearchSettings

    print(f"\n== corpus: {kind} ==")
    folder, files = _corpus(kind, Path(args.dir), args.size_mb, args.seed)
    total = sum(p.stat().st_size for p in files)
    print(f"  {len(files)} files, {total / 1e6:,.1f} MB, largest {max(p.stat().st_size for p in files) / 1e6:.1f} MB")
    index_dir = Path(args.dir) / f"index-{kind}"
    shutil.rmtree(index_dir, ignore_errors=True)
    settings = SearchSettings(chunk_encoding=args.chunk_encoding)
    index = SearchIndex(index_dir, settings, session_dirs=lambda: [folder])
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    t, cpu = time.perf_counter(), os.times()
    stats = index.update(workers=args.workers)
    build = time.perf_counter() - t
    own = os.times().user + os.times().system - cpu.user - cpu.system
    planners = os.times().children_user + os.times().children_system - cpu.children_user \
        - cpu.children_system
    summary = index.summary()
    db_size = sum(p.stat().st_size for p in index_dir.glob("index.sqlite3*"))
    print(f"  first index: {build:.1f} s for {total / 1e6:,.0f} MB = {total / 1e6 / build:.1f} MB/s "
          f"({args.workers} workers, chunk measure {args.chunk_encoding}, load avg before "
          f"{load:.1f}); {stats.indexed} of {len(files)} files, {summary.chunks:,} chunks, "
          f"{stats.entries_added:,} entries, "
          f"index {db_size / 1e6:,.0f} MB")
    print(f"  first index CPU: {own:.1f} s in this process (writing), {planners:.1f} s in "
          f"worker processes (reading, chunking); the machine's other work is not counted")
    rnd = random.Random(time.time_ns())  # appended ids must be new on every run
    by_size = sorted(files, key=lambda p: p.stat().st_size)
    for label, target in (("median file", by_size[len(by_size) // 2]), ("largest file", by_size[-1])):
        times = []
        for _ in range(3):
            added, new_entries = _append(target, 20, rnd)
            t = time.perf_counter()
            st = index.update(workers=args.workers)
            times.append(time.perf_counter() - t)
            assert new_entries > 0, f"{target}: the appended lines hold no entry"
            assert st.indexed == 1 and st.entries_added == new_entries, (new_entries, st)
        print(f"  incremental, {new_entries} entries ({added / 1e3:.0f} KB) appended to the "
              f"{label}, {target.name} "
              f"({target.stat().st_size / 1e6:.1f} MB): median {statistics.median(times):.2f} s, "
              f"max {max(times):.2f} s")
    lat = []
    hits = 0
    for _ in range(args.repeat):
        for q in QUERIES:
            t = time.perf_counter()
            res = index.search(q)
            lat.append((time.perf_counter() - t) * 1000)
            hits += bool(res.hits)
    found = sum(bool(index.search(q).hits) for q, _ in FACTS)
    print(f"  queries: {len(QUERIES)} x {args.repeat}: p50 {_pct(lat, 0.5):.1f} ms, p95 "
          f"{_pct(lat, 0.95):.1f} ms, max {max(lat):.1f} ms; {hits / len(lat):.0%} with hits"
          + (f"; planted facts found {found}/{len(FACTS)}" if kind == "generated" else ""))
    if not args.keep:
        shutil.rmtree(index_dir, ignore_errors=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--corpus", choices=("generated", "samples", "both"), default="both")
    p.add_argument("--size-mb", type=float, default=520)
    p.add_argument("--dir", default=str(ROOT / "bench-data" / "search"))
    p.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    p.add_argument("--chunk-encoding", default="estimate")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--keep", action="store_true", help="keep the index after the run")
    args = p.parse_args()
    print(f"search benchmark: {describe_machine()}")
    for kind in (("generated", "samples") if args.corpus == "both" else (args.corpus,)):
        run(kind, args)


if __name__ == "__main__":
    main()
