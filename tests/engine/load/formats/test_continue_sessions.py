"""Continue sessions: both shared samples against their raw history, and bad input."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from fixtures.agent_files import loaded_errors, write
from sessionlens.engine.load.reader import load_transcript

SAMPLES = ["continue/02044b99-f94b-4df0-a981-3b26d054b6b0.json",
           "continue/7070a621-3c20-4c24-9b53-6dc14adff918.json"]


@pytest.mark.parametrize("rel", SAMPLES)
def test_samples_match_their_raw_history(samples_dir: Path, rel: str) -> None:
    path = samples_dir / "agents" / rel
    if not path.exists():
        pytest.skip(f"{rel} not in the samples")
    doc = json.loads(path.read_text(encoding="utf-8"))
    roles = Counter(h["message"]["role"] for h in doc["history"])
    states = {s["toolCallId"]: s["status"] for h in doc["history"]
              for s in h.get("toolCallStates") or []}
    t = load_transcript(path)
    assert t.format == "continue" and t.session_name == doc["title"]
    assert dict(Counter(e.role for e in t.entries if e.message)) == {
        k: v for k, v in {"user": roles["user"],
                          "assistant": roles["assistant"] + roles["thinking"],
                          "toolResult": roles["tool"]}.items() if v}
    assert sum(len(e.message.tool_calls) for e in t.entries if e.message) == sum(
        len(h["message"].get("toolCalls") or []) for h in doc["history"])
    assert loaded_errors(t) == sum(
        1 for h in doc["history"] if h["message"]["role"] == "tool"
        and states.get(h["message"]["toolCallId"]) in ("errored", "canceled"))
    context_chars = sum(len(c["content"]) for h in doc["history"]
                        for c in h.get("contextItems") or [])
    user_chars = sum(len(e.message.text) for e in t.entries if e.role == "user" and e.message)
    assert user_chars >= context_chars  # attached context counts with its message
    assert t.compactions == () and t.diagnostics == ()
    assert t.gaps.lacks("usage") and t.gaps.lacks("timestamps")


def test_items_without_a_message_are_diagnostics(tmp_path: Path) -> None:
    doc = {"sessionId": "s", "title": "t", "workspaceDirectory": "file:///c%3A/w", "history": [
        {"message": {"role": "user", "content": "hi", "id": "u1"}, "contextItems": []},
        {"contextItems": []},
        {"message": {"role": "assistant", "content": "hello", "id": "a1"}}]}
    t = load_transcript(write(tmp_path / "sessions" / "s.json", json.dumps(doc)))
    assert [e.id for e in t.entries] == ["title", "u1", "a1"]
    (d,) = t.diagnostics
    assert "history[1]" in d.reason
    assert t.header is not None and t.header.cwd == "c:/w"
