"""Amp threads: both shared samples against their raw JSON, and bad input."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from fixtures.agent_files import loaded_errors, write
from sessionlens.engine.load.reader import load_transcript

SAMPLES = ["amp/T-16c2227a-e98f-4969-998b-aaa50a930b05.json",
           "amp/T-1d0ef56c-0ecd-4bf7-af7b-5bc196dc8a6a.json"]


@pytest.mark.parametrize("rel", SAMPLES)
def test_samples_match_their_raw_messages(samples_dir: Path, rel: str) -> None:
    path = samples_dir / "agents" / rel
    if not path.exists():
        pytest.skip(f"{rel} not in the samples")
    doc = json.loads(path.read_text(encoding="utf-8"))
    blocks = [(m["role"], b) for m in doc["messages"] for b in m["content"]]
    results = [b for _r, b in blocks if b["type"] == "tool_result"]
    user_text = sum(1 for m in doc["messages"] if m["role"] == "user"
                    and any(b["type"] != "tool_result" for b in m["content"]))
    t = load_transcript(path)
    assert t.format == "amp" and t.session_name == doc["title"]
    assert dict(Counter(e.role for e in t.entries if e.message)) == {
        k: v for k, v in {"user": user_text, "toolResult": len(results),
                          "assistant": sum(1 for m in doc["messages"]
                                           if m["role"] == "assistant")}.items() if v}
    assert sum(len(e.message.tool_calls) for e in t.entries if e.message) == sum(
        1 for _r, b in blocks if b["type"] == "tool_use")
    assert loaded_errors(t) == sum(1 for b in results if b["run"]["status"] in (
        "error", "cancelled", "rejected-by-user", "failed"))
    for m in doc["messages"]:
        if m["role"] == "assistant":
            got = t.entry(f"m{m['messageId']}").message
            assert got is not None and got.usage is not None
            assert got.usage.total_tokens == m["usage"]["totalInputTokens"] + \
                m["usage"]["outputTokens"]
    assert t.compactions == () and t.diagnostics == ()


def test_a_thread_that_breaks_off_keeps_its_earlier_messages(tmp_path: Path) -> None:
    doc = json.dumps({"v": 1, "id": "T-00000000-0000-4000-8000-000000000000", "created": 1,
                      "messages": [{"role": "user", "messageId": 0, "content": [
                          {"type": "text", "text": "hi"}], "meta": {"sentAt": 5}},
                          {"role": "assistant", "messageId": 1, "content": [
                              {"type": "text", "text": "hello"}]}, "junk"]})
    t = load_transcript(write(tmp_path / "T-x.json", doc))
    assert [e.id for e in t.entries] == ["m0", "m1"]
    (d,) = t.diagnostics
    assert "messages[2]" in d.reason
    cut = load_transcript(write(tmp_path / "T-y.json", doc[: doc.index('"hello"')]))
    assert [e.id for e in cut.entries] == ["m0"] and "breaks off" in cut.diagnostics[0].reason
