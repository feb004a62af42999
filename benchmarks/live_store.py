"""Live numbers on a 100 MB session of OpenClaw's SQLite store: how soon an appended row shows.

The store OpenClaw 2026.9.6 wrote (``tests/fixtures/agents/openclaw-2026.9.6``) gets one more
window, ``big``, whose rows are the entries of a ~100 MB session re-linked from the real
samples (``vs_agents.build_from_samples``), one row per entry as OpenClaw stores them. A
writer holds the store open (its rows land in the ``-wal``, as with a running gateway) and
appends, 50 times, one real message row linked to the leaf. Reported, median and worst of
50: from the row's commit to the gauge moved by ``LiveSession.poll`` (the new rows read by
``seq``, parsed, the gauge advanced), and the cost of a poll when nothing changed. After the
appends the gauge is checked against a full reload's.

Usage: ``python benchmarks/live_store.py [--size-mb 100] [--appends 50] [--dir DIR]``.
"""

from __future__ import annotations

import argparse
import itertools
import lzma
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))

from live import _message_rows, _ms  # noqa: E402
from machine import describe_machine  # noqa: E402
from sessionlens.engine.live.gauge import gauge_of  # noqa: E402
from sessionlens.engine.live.session import LiveSession  # noqa: E402
from sessionlens.engine.opened import open_transcript  # noqa: E402
from vs_agents import build_from_samples  # noqa: E402

STORE_XZ = (Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "agents"
            / "openclaw-2026.9.6" / "openclaw-agent.sqlite.xz")


def _writer(db_path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(db_path)
    # the table's CHECK calls octet_length (SQLite 3.43+); older Pythons lack it
    db.create_function("octet_length", 1, lambda v: None if v is None else len(
        v.encode() if isinstance(v, str) else v), deterministic=True)
    return db


def _insert(db: sqlite3.Connection, seq: int, data: bytes) -> None:
    db.execute("INSERT INTO transcript_events (session_id, seq, event_json, created_at, "
               "event_zstd, event_utf8_bytes, navigation_json) VALUES "
               "('big', ?, ?, ?, NULL, ?, NULL)",
               (seq, data.decode(), int(time.time() * 1000), len(data)))


def build_store(folder: Path, size_mb: float) -> tuple[Path, int, str]:
    """The store with window ``big`` (the JSONL's lines as rows): (db, last seq, leaf id)."""
    jsonl = folder / "big.jsonl"
    if not jsonl.exists():
        build_from_samples(jsonl, size_mb, 11)
    db_path = folder / "openclaw-agent.sqlite"
    db_path.write_bytes(lzma.decompress(STORE_XZ.read_bytes()))
    db = _writer(db_path)
    with db:
        db.execute("INSERT INTO session_windows (session_id, session_key, created_at, "
                   "updated_at, reason) SELECT 'big', 'agent:main:explicit:big', created_at, "
                   "updated_at, reason FROM session_windows WHERE session_id = 'alpha'")
        seq = -1
        leaf = ""
        with open(jsonl, "rb") as fh:
            for seq, line in enumerate(fh):
                row = orjson.loads(line)
                if seq == 0:
                    row = {**row, "id": "big", "version": 4}
                else:
                    leaf = str(row.get("id"))
                _insert(db, seq, orjson.dumps(row))
    db.close()
    return db_path, seq, leaf


def measure(db_path: Path, last_seq: int, appends: int) -> None:
    key = db_path / "big"
    t0 = time.perf_counter()
    live = LiveSession(key)
    print(f"  opened for following in {time.perf_counter() - t0:.2f} s "
          f"({db_path.stat().st_size / 1e6:.0f} MB store, {live.gauge.entries:,} entries)")
    writer = _writer(db_path)  # held open: the appended rows stay in the -wal
    idle: list[float] = []
    for _ in range(appends):
        start = time.perf_counter()
        assert live.poll() == []
        idle.append(time.perf_counter() - start)
    print(f"  poll, nothing new: {_ms(idle)}")
    rows = itertools.cycle(_message_rows())
    parent = live.opened.transcript.leaf_id
    reads: list[float] = []
    for n in range(appends):
        row: dict[str, Any] = {**next(rows), "id": f"live{n:06d}", "parentId": parent}
        parent = row["id"]
        with writer:
            _insert(writer, last_seq + 1 + n, orjson.dumps(row))
        start = time.perf_counter()
        events = live.poll()
        reads.append(time.perf_counter() - start)
        assert events and events[0].kind == "context", events
    print(f"  read: {_ms(reads)} (stale entries {live.stale_entries}: no reload)")
    fresh = gauge_of(open_transcript(key))
    agree = fresh.context_tokens == live.gauge.context_tokens
    print(f"  gauge after {appends} appends: {live.gauge.context_tokens:,} tokens; a full "
          f"reload gives {fresh.context_tokens:,} ({'equal' if agree else 'DIFFERENT'})")
    writer.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size-mb", type=float, default=100)
    ap.add_argument("--appends", type=int, default=50)
    ap.add_argument("--dir", type=Path, default=None)
    args = ap.parse_args()
    print(describe_machine())
    folder = args.dir or Path(tempfile.mkdtemp(prefix="sessionlens-live-store-"))
    folder.mkdir(parents=True, exist_ok=True)
    db_path, last_seq, _leaf = build_store(folder, args.size_mb)
    print("real entries in OpenClaw's store:")
    measure(db_path, last_seq, args.appends)


if __name__ == "__main__":
    main()
