"""Synthetic session chains for the lineage, drift and comparison tests.

``make_chain`` writes a real chain with the engine's own writer: a v3 session, then
``depth`` compactions, each written by ``persist.write_compaction`` as a successor plus a
checkpoint copy plus a ``sessions.json`` record, with fresh turns appended to every
successor (and a side branch in some), so every file is what OpenClaw/SessionLens would
have left on disk. Summaries carry headings and identifiers that change from one
generation to the next, so drift has something to find.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from persist_fixtures import Builder

from sessionlens.engine.load import load_transcript
from sessionlens.engine.persist import write_compaction
from sessionlens.engine.successor import CompactionRecord

ROOT_SID = "5e55f00d-0000-4000-8000-000000000000"
FOREIGN_HOME = "/home/someone-else/.openclaw/agents/main/sessions"
START = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


@dataclass
class ChainFiles:
    """What ``make_chain`` wrote: transcripts oldest first, checkpoint copies, summaries."""

    folder: Path
    transcripts: list[Path]
    checkpoints: list[Path]
    summaries: list[str]
    side_branches: dict[Path, str] = field(default_factory=dict)


def summary_for(gen: int) -> str:
    """Generation ``gen``'s summary: fixed sections, a module per generation, a constant."""
    lines = ["## Goal", "Keep the build green.", "## Progress",
             f"- edited /src/app/mod{gen}.py", "- shared config in /src/app/settings.py"]
    if gen % 3 == 2:  # every third summary nests an older one: its headings come twice
        lines += ["## Progress", f"- earlier: /src/app/mod{gen - 1}.py"]
    if gen < 4:
        lines.append("- ticket ABC-1234 tracked at https://example.test/t/1234")
    lines += ["## Next Steps", f"- run pytest -k mod{gen}"]
    return "\n".join(lines) + "\n" + "detail " * (20 * (gen + 1))


def read_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_bytes().split(b"\n") if x.strip()]


def append_turns(path: Path, gen: int, turns: int, *, side: bool = False) -> str | None:
    """Append ``turns`` user/assistant pairs to the file's leaf; optionally a side branch
    first (off the second-to-last entry). Returns the side branch's first id, if any."""
    objs = read_lines(path)
    ids = [o["id"] for o in objs[1:]]
    leaf = ids[-1]
    out: list[dict[str, Any]] = []
    side_id = None
    n = 0

    def add(kind: str, parent: str | None, text: str) -> str:
        nonlocal n
        n += 1
        eid = f"{gen:02x}{n:06x}"
        msg: dict[str, Any] = {"role": kind, "content": text, "timestamp": 1}
        if kind == "assistant":
            msg = {"role": "assistant", "content": [{"type": "text", "text": text}],
                   "api": "a", "provider": "p", "model": "m", "stopReason": "stop",
                   "usage": {"input": 100 * gen + 10 * n, "output": 5, "cacheRead": 0,
                             "cacheWrite": 0, "totalTokens": 100 * gen + 10 * n + 5},
                   "timestamp": 2}
        ts = (START + timedelta(hours=gen, minutes=n)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
        out.append({"type": "message", "id": eid, "parentId": parent, "timestamp": ts,
                    "message": msg})
        return eid

    if side and len(ids) >= 2:
        side_id = add("user", ids[-2], f"side question in generation {gen}")
        add("assistant", side_id, "side answer")
    for k in range(turns):
        leaf = add("user", leaf, f"gen {gen} turn {k}: change /src/app/mod{gen}.py")
        leaf = add("assistant", leaf, f"done with turn {k}")
    with open(path, "a", encoding="utf-8") as fh:
        for o in out:
            fh.write(json.dumps(o) + "\n")
    return side_id


def make_chain(folder: Path, depth: int = 10, *, store: bool = True,
               side_every: int = 3) -> ChainFiles:
    """A chain of ``depth`` successors below a first session, all in ``folder``."""
    b = Builder(session_id=ROOT_SID)
    b.user("start the project")
    b.assistant("started")
    first = b.write(folder / f"{ROOT_SID}.jsonl")
    if store:
        (folder / "sessions.json").write_text(json.dumps({"agent:main:main": {
            "sessionId": ROOT_SID, "updatedAt": 1,
            "sessionFile": f"{FOREIGN_HOME}/{first.name}"}}, indent=2), encoding="utf-8")
    files = ChainFiles(folder, [first], [], [])
    append_turns(first, 0, 3)
    current = first
    for gen in range(1, depth + 1):
        t = load_transcript(current)
        users = [i for i in t.active_path if t.entry(i).role == "user"]
        summary = summary_for(gen)
        rec = CompactionRecord(summary, users[-1], 1000 * gen, tokens_after=50)
        res = write_compaction(t, rec, now=START + timedelta(hours=gen))
        assert res.successor_path is not None and res.checkpoint_path is not None
        files.transcripts.append(res.successor_path)
        files.checkpoints.append(res.checkpoint_path)
        files.summaries.append(summary)
        side = append_turns(res.successor_path, gen, 2, side=gen % side_every == 0)
        if side is not None:
            files.side_branches[res.successor_path] = side
        current = res.successor_path
    return files


def make_foreign(files: ChainFiles, *, windows_every: int = 2) -> None:
    """Rewrite every ``parentSession`` as a path on another machine (some Windows-style)."""
    for n, path in enumerate(files.transcripts):
        objs = read_lines(path)
        parent = objs[0].get("parentSession")
        if not parent:
            continue
        name = Path(parent).name
        objs[0]["parentSession"] = (f"C:\\Users\\else\\.openclaw\\sessions\\{name}"
                                    if n % windows_every == 0 else f"{FOREIGN_HOME}/{name}")
        path.write_text("".join(json.dumps(o) + "\n" for o in objs), encoding="utf-8")
