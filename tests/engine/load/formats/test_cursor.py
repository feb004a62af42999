"""Cursor transcripts: both shared samples against their raw text, and bad input."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from fixtures.agent_files import write
from fixtures.factories import jsonl
from sessionlens.engine.load.reader import load_transcript, load_transcript_bytes

JSONL = "cursor/35a82dfe-d4ab-4238-8135-22c978781bca/35a82dfe-d4ab-4238-8135-22c978781bca.jsonl"
TXT = "cursor/937ab067-7f13-4dd2-a5d0-f04f64ef6218.txt"


def test_the_jsonl_sample_matches_its_raw_lines(samples_dir: Path) -> None:
    path = samples_dir / "agents" / JSONL
    if not path.exists():
        pytest.skip("cursor sample absent")
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    t = load_transcript(path)
    assert t.format == "cursor-jsonl"
    assert dict(Counter(e.role for e in t.entries if e.message)) == dict(
        Counter(r["role"] for r in rows))
    assert sum(len(e.message.tool_calls) for e in t.entries if e.message) == sum(
        1 for r in rows for b in r["message"]["content"] if b["type"] == "tool_use")
    assert t.compactions == () and t.diagnostics == ()
    assert {"ids", "timestamps", "usage", "model", "tool_results"} <= set(t.gaps.missing)
    assert all(e.timestamp is None for e in t.entries)  # nothing invented
    ids = [c.id for e in t.entries if e.message for c in e.message.tool_calls]
    assert len(set(ids)) == len(ids)


def test_the_txt_sample_matches_its_raw_blocks(samples_dir: Path) -> None:
    path = samples_dir / "agents" / TXT
    if not path.exists():
        pytest.skip("cursor sample absent")
    text = path.read_text(encoding="utf-8")
    t = load_transcript(path)
    assert t.format == "cursor-txt"
    assert dict(Counter(e.role for e in t.entries if e.message)) == {
        "user": len(re.findall(r"^user:$", text, re.M)),
        "assistant": len(re.findall(r"^assistant:$", text, re.M)),
        "toolResult": len(re.findall(r"^\[Tool result\] ", text, re.M))}
    assert sum(len(e.message.tool_calls) for e in t.entries if e.message) == len(
        re.findall(r"^\[Tool call\] ", text, re.M))
    assert sum(1 for e in t.entries if e.message and any(
        b.kind == "thinking" for b in e.message.content)) == len(re.findall(r"<think>", text))
    assert t.diagnostics == ()


def test_txt_tool_calls_arguments_and_unpaired_results() -> None:
    data = (b"user:\nhi\n\nassistant:\n<think>plan</think>Let me look.\n[Tool call] Read\n"
            b"  path: /a\n  limit: 5\n[Tool call] Grep\n  pattern: x\n    more\n\n"
            b"[Tool result] Read\n[Tool result] Shell\n\nassistant:\ndone\n")
    t = load_transcript_bytes(data, "/p/agent-transcripts/0000.txt")
    a = t.entries[1].message
    assert a is not None and [b.kind for b in a.content] == ["thinking", "text", "toolCall",
                                                             "toolCall"]
    read, grep = a.tool_calls
    assert read.arguments == {"path": "/a", "limit": "5"}
    assert grep.arguments == {"pattern": "x\n  more"}
    results = [e.message for e in t.entries if e.message and e.role == "toolResult"]
    assert [r.tool_call_id for r in results if r] == [read.id, f"{4:08x}:r1"]
    (warn,) = t.diagnostics
    assert "Shell answers no [Tool call]" in warn.reason and warn.line == 4


def test_bad_jsonl_lines_are_diagnostics(tmp_path: Path) -> None:
    good = {"role": "user", "message": {"content": [{"type": "text", "text": "hi"}]}}
    data = jsonl(good) + b"{nope\n" + jsonl({"role": "tool", "message": {}}, good)
    t = load_transcript(write(tmp_path / "a" / "agent-transcripts" / "x.jsonl", data))
    assert {d.line for d in t.diagnostics} == {2, 3}
    assert [e.line for e in t.entries] == [1, 4]
