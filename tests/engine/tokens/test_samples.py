"""Token accounting on the real samples: reported usage, estimates and exact counts against
numbers derived here straight from the JSON lines."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from fixtures.samples import sample_path
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.tokens.counts import count_tokens, get_encoding


def _raw_rows(path: Path) -> list[dict[str, Any]]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict):
            rows.append(obj)
    return rows


def _raw_active_path(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Active path straight from the JSON: v3 walks parentId from the last entry; a v1 file
    (no ids) is one linear chain."""
    entries = [r for r in rows if r.get("type") != "session"]
    if not any("id" in r for r in entries):
        return entries
    by_id = {r["id"]: r for r in entries}
    path: list[dict[str, Any]] = []
    seen: set[str] = set()
    cur: dict[str, Any] | None = entries[-1]
    while cur is not None and cur["id"] not in seen:
        seen.add(cur["id"])
        path.append(cur)
        cur = by_id.get(cur.get("parentId"))
    return path[::-1]


def _raw_reported_context(path_rows: list[dict[str, Any]]) -> int | None:
    start = max((i for i, r in enumerate(path_rows) if r.get("type") == "compaction"), default=-1)
    for r in reversed(path_rows[start + 1:]):
        m = r.get("message") or {}
        u = m.get("usage")
        if m.get("role") != "assistant" or not u or m.get("stopReason") in ("error", "aborted"):
            continue
        ctx = (u.get("contextUsage") or {})
        if ctx.get("state") == "available" and ctx.get("totalTokens"):
            return int(ctx["totalTokens"])
        total = u.get("totalTokens") or sum(u.get(k, 0) for k in (
            "input", "output", "cacheRead", "cacheWrite"))
        if total:
            return int(total)
    return None


@pytest.mark.samples
@pytest.mark.parametrize("prefix", ["01_", "03_", "04_"])
def test_reported_context_matches_the_file(samples_dir: Path, prefix: str) -> None:
    path = sample_path(samples_dir, prefix)
    t = load_transcript(path)
    report = count_tokens(t, "o200k_base")
    expected = _raw_reported_context(_raw_active_path(_raw_rows(path)))
    assert expected is not None
    assert report.reported_context == expected
    assert len(report.entries) == len(t.entries)
    assert report.exact_total >= report.exact_context > 0


@pytest.mark.samples
def test_exact_and_estimate_of_real_messages(samples_dir: Path) -> None:
    path = sample_path(samples_dir, "04_")
    t = load_transcript(path)
    report = count_tokens(t, "cl100k_base")
    enc = get_encoding("cl100k_base")
    checked = 0
    for row in _raw_rows(path):
        m = row.get("message") or {}
        if row.get("type") != "message" or m.get("role") != "assistant":
            continue
        parts = []
        for b in m.get("content") or []:
            if b.get("type") == "text":
                parts.append(b["text"])
            elif b.get("type") == "thinking":
                parts.append(b["thinking"])
            elif b.get("type") == "toolCall":
                parts += [b["name"], json.dumps(b.get("arguments"), ensure_ascii=False,
                                                separators=(",", ":"))]
        chars = sum(len(p.encode("utf-16-le")) // 2 for p in parts)
        counts = report.entries[row["id"]]
        assert counts.estimate_pi == math.ceil(chars / 4), row["id"]
        assert counts.exact == len(enc.encode_ordinary("\n".join(parts))), row["id"]
        checked += 1
    assert checked > 20
