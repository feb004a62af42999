"""Transcripts made in code for the GUI tests, and the tests' own independent readers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def read_rows(path: Path) -> list[dict[str, Any]]:
    """The file's JSON lines (header included), parsed by the test itself."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def active_path_ids(rows: list[dict[str, Any]]) -> list[str]:
    """Leaf = last entry in file order; walk parentId to the root (pi's rule, no leaf rows)."""
    entries = [r for r in rows if r.get("type") != "session"]
    by_id = {r["id"]: r for r in entries}
    out, cur, seen = [], entries[-1]["id"], set()
    while cur is not None and cur in by_id and cur not in seen:
        seen.add(cur)
        out.append(cur)
        cur = by_id[cur].get("parentId")
    return out[::-1]


def entry(kind: str, eid: str, parent: str | None, n: int, **fields: Any) -> dict[str, Any]:
    return {"type": kind, "id": eid, "parentId": parent,
            "timestamp": f"2026-02-01T10:{n // 60:02d}:{n % 60:02d}.000Z", **fields}


def message(eid: str, parent: str | None, n: int, **msg: Any) -> dict[str, Any]:
    return entry("message", eid, parent, n, message={"timestamp": 1769940000000 + n, **msg})


def usage(total: int) -> dict[str, Any]:
    return {"input": total - 20, "output": 20, "cacheRead": 0, "cacheWrite": 0, "totalTokens": total,
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}


def small_session_rows() -> list[dict[str, Any]]:
    """A v3 session with a tool call, an overflow error, a compaction and an off-path branch."""
    a = {"api": "openai-responses", "provider": "openai", "model": "gpt-4o"}
    rows: list[dict[str, Any]] = [{"type": "session", "version": 3, "id": "sess-1",
                                   "timestamp": "2026-02-01T10:00:00.000Z", "cwd": "/w"}]
    parent: str | None = None
    n = 0

    def add(row: dict[str, Any]) -> str:
        nonlocal parent, n
        rows.append(row)
        parent = row["id"]
        n += 1
        return row["id"]

    for turn in range(6):
        add(message(f"u{turn:07d}", parent, n, role="user",
                    content=[{"type": "text", "text": f"please look at file_{turn}.py " + "x " * 400}]))
        add(message(f"a{turn:07d}", parent, n, role="assistant", stopReason="toolUse", usage=usage(5000 + turn * 3000),
                    content=[{"type": "toolCall", "id": f"call{turn}", "name": "read",
                              "arguments": {"path": f"file_{turn}.py"}}], **a))
        add(message(f"r{turn:07d}", parent, n, role="toolResult", toolCallId=f"call{turn}", toolName="read",
                    isError=turn == 2, content=[{"type": "text", "text": "line\n" * 500}]))
    fork = parent
    add(message("offpath1", fork, n, role="assistant", stopReason="stop", usage=usage(30000),
                content=[{"type": "text", "text": "an abandoned answer"}], **a))
    parent = fork
    add(message("ovf00001", parent, n, role="assistant", stopReason="error", content=[],
                errorMessage="This model's maximum context length is 128000 tokens. However, your "
                             "messages resulted in 131000 tokens.", **a))
    add(entry("compaction", "comp0001", parent, n, summary="## Goal\nRead the files.",
              firstKeptEntryId="u0000004", tokensBefore=131000,
              details={"readFiles": ["file_1.py"], "modifiedFiles": []}))
    for turn in range(6, 9):
        add(message(f"u{turn:07d}", parent, n, role="user", content=f"continue with step {turn}"))
        add(message(f"a{turn:07d}", parent, n, role="assistant", stopReason="stop", usage=usage(20000 + turn * 1000),
                    content=[{"type": "thinking", "thinking": "think about it"},
                             {"type": "text", "text": f"Done with **step {turn}**."}], **a))
    return rows


def write_rows(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path
