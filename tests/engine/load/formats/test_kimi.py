"""Kimi CLI: the shared context (with its wire log) against its raw lines, compaction and
checkpoint notes on built contexts, subagent contexts, and a wire log opened alone."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from fixtures.agent_files import loaded_errors, write
from fixtures.factories import jsonl
from sessionlens.engine.errors import NotATranscriptError
from sessionlens.engine.load.reader import load_transcript

SESSION = "kimi/b1ea4a04-95d9-43a8-98ce-189f553b08ca"


def test_the_sample_matches_its_raw_context_and_takes_times_from_its_wire(
        samples_dir: Path) -> None:
    folder = samples_dir / "agents" / SESSION
    if not folder.exists():
        pytest.skip("kimi sample absent")
    rows = [json.loads(line) for line in
            (folder / "context.jsonl").read_text(encoding="utf-8").splitlines()]
    roles = Counter(r["role"] for r in rows)
    wire = [json.loads(line) for line in
            (folder / "wire.jsonl").read_text(encoding="utf-8").splitlines()[1:]]
    t = load_transcript(folder / "context.jsonl")
    assert t.format == "kimi"
    assert dict(Counter(e.role for e in t.entries if e.message)) == {
        "user": roles["user"], "assistant": roles["assistant"], "toolResult": roles["tool"]}
    assert sum(1 for e in t.entries if e.type == "checkpoint") == roles["_checkpoint"]
    assert sum(len(e.message.tool_calls) for e in t.entries if e.message) == sum(
        len(r.get("tool_calls", [])) for r in rows)
    assert loaded_errors(t) == sum(1 for r in rows if r["role"] == "tool"
                                   and "<system>ERROR" in json.dumps(r["content"]))
    assert t.compactions == () and t.diagnostics == ()
    results = {w["message"]["payload"]["tool_call_id"]: w["timestamp"] for w in wire
               if w["message"]["type"] == "ToolResult"}
    for e in t.entries:
        msg = e.message
        if msg is not None and msg.role == "toolResult" and msg.tool_call_id in results:
            assert msg.timestamp_ms == int(results[msg.tool_call_id] * 1000)
    assistants = [e.message for e in t.entries if e.role == "assistant"]
    assert all(m is not None and m.usage is not None for m in assistants)
    assert t.gaps.lacks("model") and not t.gaps.lacks("timestamps")


def _ctx(*rows: dict[str, object]) -> bytes:
    return jsonl({"role": "_checkpoint", "id": 0}, *rows)


def test_a_compacted_context_starts_with_its_summary(tmp_path: Path) -> None:
    folder = tmp_path / "sessions" / "wdhash" / "sess-1"
    write(folder / "context.jsonl", _ctx(
        {"role": "user", "content": [
            {"type": "text", "text": "<system>Previous context has been compacted. Here is "
                                     "the compaction output:</system>"},
            {"type": "text", "text": "<current_focus>deploy</current_focus>"}]},
        {"role": "user", "content": "<system>CHECKPOINT 1</system>"},
        {"role": "user", "content": "go on"},
        {"role": "assistant", "content": [{"type": "text", "text": "ok"}],
         "tool_calls": [{"type": "function", "id": "t1",
                         "function": {"name": "Shell", "arguments": "{\"cmd\": \"ls\"}"}}]},
        {"role": "tool", "content": "<system>ERROR: no</system>", "tool_call_id": "t1"},
        {"role": "_usage", "token_count": 777}))
    write(folder / "wire.jsonl", jsonl(
        {"type": "metadata", "protocol_version": "1.3"},
        {"timestamp": 1.0, "message": {"type": "StatusUpdate",
                                       "payload": {"context_tokens": 90000}}},
        {"timestamp": 2.0, "message": {"type": "CompactionBegin", "payload": {}}},
        {"timestamp": 3.0, "message": {"type": "TurnBegin",
                                       "payload": {"user_input": [{"type": "text",
                                                                   "text": "go on"}]}}}))
    t = load_transcript(folder / "context.jsonl")
    (c,) = t.compactions
    assert c.summary == "<current_focus>deploy</current_focus>" and c.tokens_before == 90000
    assert [e.message.custom_type for e in t.entries if e.role == "custom"] == [  # type: ignore[union-attr]
        "kimi.checkpoint"]
    go = next(e for e in t.entries if e.role == "user")
    assert go.timestamp == "1970-01-01T00:00:03.000Z"
    a = next(e.message for e in t.entries if e.role == "assistant")
    assert a is not None and a.usage is not None and a.usage.total_tokens == 777
    assert a.tool_calls[0].arguments == {"cmd": "ls"}
    assert loaded_errors(t) == 1
    assert t.context[0].kind == "compaction_summary"
    sub = load_transcript(write(folder / "context_sub_1.jsonl", _ctx(
        {"role": "user", "content": "subtask"})))
    assert sub.header is not None and sub.header.extra["parent_session_id"] == "sess-1"
    assert sub.header.id == "sess-1/context_sub_1"
    with pytest.raises(NotATranscriptError, match="open the context.jsonl"):
        load_transcript(folder / "wire.jsonl")


def test_bad_lines_are_diagnostics_and_without_a_wire_the_gaps_say_so(tmp_path: Path) -> None:
    data = _ctx({"role": "user", "content": "hi"}) + b"{cut\n" + jsonl(
        {"role": "weird", "content": "?"}, {"role": "assistant", "content": "hey"})
    t = load_transcript(write(tmp_path / "s" / "x" / "context.jsonl", data))
    assert {d.line for d in t.diagnostics} == {3, 4}
    assert [e.role for e in t.entries if e.message] == ["user", "assistant"]
    assert t.gaps.lacks("timestamps") and t.gaps.lacks("usage")
