"""Live numbers on a 100 MB session: how soon an appended entry shows, and the idle cost.

For each input (one re-linked from the real samples' entries, one from ``load.py``'s
generator; both ~100 MB with compactions and side branches, built by ``vs_agents.py``'s
builders) the benchmark opens a ``LiveSession`` and appends, 50 times, one real message row
(cycled from the samples, linked to the file's leaf). It reports, median and worst of 50:

  read     from the append's write to the gauge updated by ``LiveSession.poll`` (the tail
           read, the appended line parsed, the gauge moved): what the Live view shows
  notified the same through ``watchfiles`` as ``sessionlens watch`` runs it (the OS's
  + read   notification, its 10 ms quiet step, then the read)

and the watcher's CPU use while nothing changes (process CPU over ``--idle-seconds`` with the
watch loop running on the folder). After the appends, the gauge is checked against a full
reload's (the same context tokens), so speed is never bought with a wrong number.

Usage: ``python benchmarks/live.py [--size-mb 100] [--appends 50] [--idle-seconds 10]
[--dir DIR]``.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))

from machine import describe_machine  # noqa: E402
from sessionlens.engine.live.gauge import gauge_of  # noqa: E402
from sessionlens.engine.live.session import LiveSession  # noqa: E402
from sessionlens.engine.opened import open_transcript  # noqa: E402
from vs_agents import REAL_SAMPLES, _sample_rows, build_from_samples, build_generated  # noqa: E402


def _message_rows() -> list[dict[str, Any]]:
    rows = [r for p in REAL_SAMPLES for r in _sample_rows(p)
            if r.get("type") == "message" and isinstance(r.get("message"), dict)
            and r["message"].get("role") in ("user", "assistant")]
    return rows[:400]


def _append(path: Path, row: dict[str, Any], eid: str, parent: str | None) -> None:
    line = orjson.dumps({**row, "id": eid, "parentId": parent}) + b"\n"
    with open(path, "ab") as fh:
        fh.write(line)


def _ms(values: list[float]) -> str:
    return f"median {statistics.median(values) * 1e3:.1f} ms, worst {max(values) * 1e3:.1f} ms"


def measure(path: Path, appends: int, idle_seconds: float) -> None:
    t0 = time.perf_counter()
    live = LiveSession(path)
    print(f"  opened for following in {time.perf_counter() - t0:.2f} s "
          f"({path.stat().st_size / 1e6:.0f} MB, {live.gauge.entries:,} entries)")
    rows = itertools.cycle(_message_rows())
    run = f"{int(time.time()) % 100_000:05d}"  # ids unique across runs on the same file
    reads: list[float] = []
    last = live.opened.transcript.leaf_id
    for n in range(appends):
        leaf = last
        last = f"live{run}{n:06d}"
        _append(path, next(rows), last, leaf)
        start = time.perf_counter()
        events = live.poll()
        reads.append(time.perf_counter() - start)
        assert events and events[0].kind == "context", events
    print(f"  read: {_ms(reads)}")

    from watchfiles import watch

    stop = threading.Event()
    seen: list[float] = []
    written: list[float] = []
    ready = threading.Event()

    def follow() -> None:
        for _changes in watch(path.parent, stop_event=stop, step=10, debounce=200,
                              rust_timeout=200, yield_on_timeout=True):
            ready.set()
            if _changes:
                live.poll()
                seen.append(time.perf_counter())

    thread = threading.Thread(target=follow, daemon=True)
    thread.start()
    ready.wait(5)
    for n in range(appends):
        last_id = f"live{run}{appends + n:06d}"
        previous = f"live{run}{appends + n - 1:06d}"
        before = len(seen)
        written.append(time.perf_counter())
        _append(path, next(rows), last_id, previous)
        deadline = time.perf_counter() + 2
        while len(seen) == before and time.perf_counter() < deadline:
            time.sleep(0.001)
    notified = [s - w for w, s in zip(written, seen, strict=False)]
    print(f"  notified + read: {_ms(notified)} ({len(notified)} of {appends} seen)")
    cpu0, wall0 = time.process_time(), time.perf_counter()
    time.sleep(idle_seconds)
    cpu = time.process_time() - cpu0
    print(f"  idle: {cpu * 1e3:.0f} ms CPU over {time.perf_counter() - wall0:.1f} s "
          f"({100 * cpu / idle_seconds:.2f}% of a core)")
    stop.set()
    thread.join(5)
    fresh = gauge_of(open_transcript(path))
    agree = fresh.context_tokens == live.gauge.context_tokens
    print(f"  gauge after {2 * appends} appends: {live.gauge.context_tokens:,} tokens; a full "
          f"reload gives {fresh.context_tokens:,} ({'equal' if agree else 'DIFFERENT'})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size-mb", type=float, default=100)
    ap.add_argument("--appends", type=int, default=50)
    ap.add_argument("--idle-seconds", type=float, default=10)
    ap.add_argument("--dir", type=Path, default=None)
    args = ap.parse_args()
    print(describe_machine())
    folder = args.dir or Path(tempfile.mkdtemp(prefix="sessionlens-live-"))
    folder.mkdir(parents=True, exist_ok=True)
    for name, build in (("real entries", build_from_samples), ("generated", build_generated)):
        path = folder / name.replace(" ", "-") / "session.jsonl"
        path.parent.mkdir(exist_ok=True)
        if not path.exists():
            build(path, args.size_mb, 11)
        print(f"{name}:")
        measure(path, args.appends, args.idle_seconds)


if __name__ == "__main__":
    main()
