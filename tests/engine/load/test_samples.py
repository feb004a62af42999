"""Every real sample loads, with counts checked against an independent reading in the test.

The expected numbers come from plain ``json`` over the sample's lines and a small walk of
the parent links written here, never from the loader's own output.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from fixtures.samples import sample_path
from sessionlens.engine.load.reader import detect_format, load_transcript

pytestmark = pytest.mark.samples


def _objects(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def _expected(path: Path) -> dict[str, Any]:
    """Counts worked out from the raw lines, with v1 ids assigned the pi way (line order)."""
    objs = _objects(path)
    header, body = objs[0], objs[1:]
    assert header["type"] == "session"
    v1 = "version" not in header
    ids = [str(i) for i in range(len(body))] if v1 else [o["id"] for o in body]
    parents = ([None] + ids[:-1]) if v1 else [o.get("parentId") for o in body]
    by_id = dict(zip(ids, range(len(body)), strict=True))
    # leaf = last entry; walk to the root
    path_idx: list[int] = []
    cur: str | None = ids[-1]
    while cur is not None:
        i = by_id[cur]
        path_idx.append(i)
        cur = parents[i]
    path_idx.reverse()

    def in_context(o: dict[str, Any]) -> bool:
        if o["type"] == "message":
            return bool(o["message"].get("excludeFromContext") is not True)
        if o["type"] == "branch_summary":
            return bool(o.get("summary"))
        return bool(o["type"] == "custom_message")

    comp_pos = [k for k, i in enumerate(path_idx) if body[i]["type"] in ("compaction", "reset")]
    if not comp_pos:
        context = sum(in_context(body[i]) for i in path_idx)
    else:
        b = comp_pos[-1]
        comp = body[path_idx[b]]
        if v1:  # index into [header] + body
            kept_id = ids[comp["firstKeptEntryIndex"] - 1]
        else:
            kept_id = comp.get("firstKeptEntryId")
        start = next((k for k in range(b) if ids[path_idx[k]] == kept_id), b)
        context = 1 + sum(in_context(body[i]) for i in path_idx[start:b]) \
            + sum(in_context(body[i]) for i in path_idx[b + 1:])
    return {
        "entries": len(body),
        "by_type": Counter(o["type"] for o in body),
        "by_role": Counter(o["message"]["role"] for o in body if o["type"] == "message"),
        "compactions": sum(o["type"] == "compaction" for o in body),
        "path": len(path_idx),
        "context": context,
        "session_id": header["id"],
        "v1": v1,
    }


@pytest.mark.parametrize("prefix, fmt", [("01_", "pi-v1"), ("03_", "openclaw-v3"),
                                         ("04_", "openclaw-v3")])
def test_sample_counts_match_an_independent_reading(samples_dir: Path, prefix: str,
                                                    fmt: str) -> None:
    path = sample_path(samples_dir, prefix)
    want = _expected(path)
    t = load_transcript(path)
    assert t.format == fmt
    assert detect_format(path) == fmt
    assert t.session_id == want["session_id"]
    assert len(t.entries) == want["entries"]
    assert Counter(e.type for e in t.entries) == want["by_type"]
    assert Counter(e.role for e in t.entries if e.message is not None) == want["by_role"]
    assert len(t.compactions) == want["compactions"]
    assert len(t.active_path) == want["path"]
    assert len(t.context) == want["context"]
    assert [d for d in t.diagnostics if d.severity == "error"] == []
    assert t.active_path[-1] == t.leaf_id == t.entries[-1].id


def test_sample_03_replays_13_messages_after_its_last_compaction(samples_dir: Path) -> None:
    t = load_transcript(sample_path(samples_dir, "03_"))
    assert len(t.context) == 13  # transcript-format.md §1.9
    assert t.context[0].kind == "compaction_summary"
    assert t.context[0].entry_id == t.compactions[-1].id


def test_v1_sample_compactions_point_at_the_line_pi_would_pick(samples_dir: Path) -> None:
    path = sample_path(samples_dir, "01_")
    objs = _objects(path)
    t = load_transcript(path)
    for comp in t.compactions:
        raw = json.loads(t.raw_line(comp))
        kept = t.entry(comp.first_kept_entry_id or "")
        # firstKeptEntryIndex counts the header as 0, so it is the kept entry's line - 1
        assert kept.line - 1 == raw["firstKeptEntryIndex"]
        assert json.loads(t.raw_line(kept)) == objs[raw["firstKeptEntryIndex"]]


def test_raw_lines_round_trip_to_the_same_objects(samples_dir: Path) -> None:
    path = sample_path(samples_dir, "04_")
    objs = _objects(path)[1:]
    t = load_transcript(path)
    assert [json.loads(t.raw_line(e)) for e in t.entries] == objs


@pytest.mark.parametrize("prefix, fmt", [("07_", "claude-code"), ("09_", "codex")])
def test_other_agents_samples_are_recognised(samples_dir: Path, prefix: str, fmt: str) -> None:
    assert detect_format(sample_path(samples_dir, prefix)) == fmt
