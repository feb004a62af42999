"""GitHub Copilot CLI: the shared event log and history file against counts taken from their
raw JSON, and the compaction, subagent and model rules on built logs."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from fixtures.agent_files import loaded_errors, write
from fixtures.factories import jsonl
from sessionlens.engine.load.reader import load_transcript, load_transcript_bytes
from sessionlens.engine.tokens.counts import count_tokens

EVENTS = "copilot/8baa78ec-b203-4c7f-b1d3-c1170ae84b7d/events.jsonl"
LEGACY = "copilot/session_076dfd18-c092-4221-bb1e-efdf478eff3d_1759669955294.json"


def test_the_event_log_sample_matches_its_raw_events(samples_dir: Path) -> None:
    path = samples_dir / "agents" / EVENTS
    if not path.exists():
        pytest.skip("copilot sample absent")
    events = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    kinds = Counter(e["type"] for e in events)
    done = [e["data"] for e in events if e["type"] == "tool.execution_complete"]
    want = {"user": kinds["user.message"],
            "assistant": kinds["assistant.message"] + kinds["session.error"],
            "toolResult": len(done), "custom": kinds["system.notification"]}
    t = load_transcript(path)
    assert t.format == "copilot-events"
    assert dict(Counter(e.role for e in t.entries if e.message)) == want
    assert len(t.compactions) == sum(1 for e in events if e["type"] ==
                                     "session.compaction_complete" and e["data"]["success"])
    assert sum(len(e.message.tool_calls) for e in t.entries if e.message) == sum(
        len(e["data"]["toolRequests"]) for e in events if e["type"] == "assistant.message")
    assert loaded_errors(t) == kinds["session.error"] + sum(
        1 for d in done if d["success"] is False)
    (c,) = t.compactions
    raw = next(e["data"] for e in events if e["type"] == "session.compaction_complete")
    assert (c.summary, c.tokens_before) == (raw["summaryContent"], raw["preCompactionTokens"])
    assert c.extra["checkpointNumber"] == raw["checkpointNumber"]
    side = [e for e in t.entries if e.append_mode == "side"]
    assert len(side) == sum(1 for e in events if "parentToolCallId" in e["data"])
    assert not set(e.id for e in side) & set(t.active_path)
    assert t.diagnostics == ()


def test_the_history_file_sample_matches_its_raw_chat(samples_dir: Path) -> None:
    path = samples_dir / "agents" / LEGACY
    if not path.exists():
        pytest.skip("copilot sample absent")
    doc = json.loads(path.read_text(encoding="utf-8"))
    roles = Counter(m["role"] for m in doc["chatMessages"])
    errors = sum(1 for i in doc["timeline"] if i["type"] == "error")
    t = load_transcript(path)
    assert t.format == "copilot-legacy"
    assert dict(Counter(e.role for e in t.entries if e.message)) == {
        "user": roles["user"], "assistant": roles["assistant"] + errors,
        "toolResult": roles["tool"]}
    assert sum(len(e.message.tool_calls) for e in t.entries if e.message) == sum(
        len(m.get("tool_calls", [])) for m in doc["chatMessages"])
    failed = sum(1 for i in doc["timeline"] if i["type"] == "tool_call_completed"
                 and i["result"]["type"] == "failure")
    assert loaded_errors(t) == errors + failed
    assert t.compactions == () and t.gaps.lacks("usage") and t.gaps.lacks("model")
    with_time = {e.id for e in t.entries if e.timestamp}  # each timeline item lent its time
    assert with_time == {i["id"] for i in doc["timeline"]}


def ev(kind: str, eid: str, data: dict[str, Any], parent: str | None = None) -> dict[str, Any]:
    return {"type": kind, "data": data, "id": eid, "timestamp": "2026-03-20T19:00:00.000Z",
            "parentId": parent}


def _log() -> list[dict[str, Any]]:
    return [
        ev("session.start", "e0", {"sessionId": "S1", "startTime": "2026-03-20T19:00:00Z",
                                   "copilotVersion": "1.0", "context": {"cwd": "/w"}}),
        ev("user.message", "e1", {"content": "fix it", "transformedContent": "fix it + ctx",
                                  "interactionId": "i1"}),
        ev("assistant.message", "e2", {"content": "looking", "interactionId": "i1",
                                       "toolRequests": [{"toolCallId": "t1", "name": "view",
                                                         "arguments": {"path": "a"}}]}),
        ev("tool.execution_complete", "e3", {"toolCallId": "t1", "model": "claude-x",
                                             "interactionId": "i1", "success": True,
                                             "result": {"content": "file a"}}),
        ev("session.compaction_start", "e4", {"systemTokens": 10, "conversationTokens": 80,
                                              "toolDefinitionsTokens": 10}),
        ev("assistant.message", "e5", {"content": "inner", "interactionId": "i1",
                                       "parentToolCallId": "t0", "toolRequests": []}),
        ev("user.message", "e6", {"content": "still there?", "interactionId": "i2"}),
        ev("session.compaction_complete", "e7", {"success": True, "preCompactionTokens": 100,
                                                 "summaryContent": "<overview>fixed a",
                                                 "checkpointNumber": 1}),
        ev("assistant.message", "e8", {"content": "yes", "interactionId": "i2",
                                       "toolRequests": []}),
        ev("session.shutdown", "e9", {"currentTokens": 42, "currentModel": "claude-x"}),
        ev("session.error", "e10", {"errorType": "model", "message": "rate limited"}),
    ]


def test_a_background_compaction_keeps_what_came_after_it_started() -> None:
    t = load_transcript_bytes(jsonl(*_log()), "/h/.copilot/session-state/S1/events.jsonl")
    c = t.entry("e7")
    assert c.type == "compaction" and c.first_kept_entry_id == "e6"
    assert (c.summary, c.tokens_before) == ("<overview>fixed a", 100)
    assert [i.entry_id for i in t.context] == ["e7", "e6", "e8", "e10"]
    assert t.entry("e5").append_mode == "side"
    e2 = t.entry("e2").message
    assert e2 is not None and e2.model == "claude-x"  # from the tool completion
    assert t.header is not None and (t.header.id, t.header.cwd) == ("S1", "/w")
    assert count_tokens(t).reported_context == 42
    assert t.entry("e8").extra["usage_source"] == "session.shutdown"
    assert t.entry("e1").extra["sent_chars"] == len("fix it + ctx")


def test_bad_events_are_reported_and_a_missing_start_is_a_warning() -> None:
    lines = _log()[1:4]
    data = jsonl(*lines[:1]) + b'{"type": "user.message", "data": 5, "id": "z"}\n' + \
        jsonl(*lines[1:])
    t = load_transcript_bytes(data, "/h/.copilot/session-state/S9/events.jsonl")
    by_line = {d.line: d for d in t.diagnostics}
    assert "no 'data' object" in by_line[2].reason
    assert any("no session.start" in d.reason and d.severity == "warning"
               for d in t.diagnostics)
    assert t.header is not None and t.header.id == "S9"
    assert [e.id for e in t.entries] == ["e1", "e2", "e3"]


def test_a_cut_off_history_file_keeps_what_came_before(tmp_path: Path) -> None:
    doc = json.dumps({"sessionId": "s", "startTime": "2025-10-05T13:12:35Z", "chatMessages": [
        {"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}],
        "timeline": [{"id": "t1", "type": "user", "text": "hi",
                      "timestamp": "2025-10-05T13:12:40Z"}]}, indent=2)
    t = load_transcript(write(tmp_path / "session_x.json", doc[: doc.index('"timeline"') + 30]))
    assert t.format == "copilot-legacy"
    assert [e.role for e in t.entries] == ["user", "assistant"]
    assert any("breaks off" in d.reason for d in t.diagnostics)
