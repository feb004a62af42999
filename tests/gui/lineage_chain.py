"""A small real chain for the lineage GUI tests, written with the engine's own writer."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sessionlens.engine import CompactionRecord, load_transcript, write_compaction

SID = "1ea9e000-0000-4000-8000-00000000c0de"
START = datetime(2026, 4, 1, 8, 0, tzinfo=UTC)


@dataclass
class Chain:
    folder: Path
    transcripts: list[Path]
    checkpoints: list[Path]


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_bytes().split(b"\n") if x.strip()]


def _msg(eid: str, parent: str | None, role: str, text: str, n: int) -> dict[str, Any]:
    body: dict[str, Any] = {"role": role, "content": text, "timestamp": n}
    if role == "assistant":
        body = {"role": "assistant", "content": [{"type": "text", "text": text}], "api": "a",
                "provider": "p", "model": "m", "stopReason": "stop", "timestamp": n,
                "usage": {"input": 10 * n, "output": 5, "cacheRead": 0, "cacheWrite": 0,
                          "totalTokens": 10 * n + 5}}
    ts = (START + timedelta(minutes=n)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    return {"type": "message", "id": eid, "parentId": parent, "timestamp": ts, "message": body}


def append_turns(path: Path, gen: int, turns: int, side: bool = False) -> None:
    objs = lines(path)
    ids = [o["id"] for o in objs[1:]]
    leaf = ids[-1] if ids else None
    out = []
    n = 0
    if side and len(ids) > 2:
        n += 1
        out.append(_msg(f"5{gen:01x}{n:06x}", ids[-2], "user", f"side idea {gen}", 100 * gen + n))
    for k in range(turns):
        for role in ("user", "assistant"):
            n += 1
            eid = f"{gen:02x}{n:06x}"
            out.append(_msg(eid, leaf, role, f"gen {gen} {role} {k} on /srv/app/m{gen}.py",
                            100 * gen + n))
            leaf = eid
    with open(path, "a", encoding="utf-8") as fh:
        fh.writelines(json.dumps(o) + "\n" for o in out)


def make_chain(folder: Path, depth: int = 3) -> Chain:
    first = folder / f"{SID}.jsonl"
    first.write_text(json.dumps({"type": "session", "version": 3, "id": SID,
                                 "timestamp": "2026-04-01T08:00:00.000Z", "cwd": "/srv"}) + "\n")
    append_turns(first, 0, 3)
    (folder / "sessions.json").write_text(json.dumps({"agent:main:main": {
        "sessionId": SID, "sessionFile": f"/home/elsewhere/.openclaw/{first.name}"}}))
    chain = Chain(folder, [first], [])
    current = first
    for gen in range(1, depth + 1):
        t = load_transcript(current)
        users = [i for i in t.active_path if t.entry(i).role == "user"]
        summary = f"## Goal\nship it\n## Progress\n- /srv/app/m{gen}.py\n" + "x" * (40 * gen)
        res = write_compaction(t, CompactionRecord(summary, users[-1], 100 * gen),
                               now=START + timedelta(hours=gen))
        assert res.successor_path is not None and res.checkpoint_path is not None
        chain.transcripts.append(res.successor_path)
        chain.checkpoints.append(res.checkpoint_path)
        append_turns(res.successor_path, gen, 2, side=gen == depth)
        current = res.successor_path
    return chain
