"""Cline and Roo Code task logs: both shared samples against their raw records, Roo Code's
condense markers and Cline's rewinds on built logs, and a log that breaks off."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from fixtures.agent_files import loaded_errors, write
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.tokens.counts import count_tokens

SAMPLES = ["cline/haram-333_fineye/ui_messages.json", "cline/CoreGems_Cline-Xray/ui_messages.json"]


def _kind(r: dict[str, Any]) -> str:
    return str(r.get("say") if r["type"] == "say" else r.get("ask"))


@pytest.mark.parametrize("rel", SAMPLES)
def test_samples_match_their_raw_records(samples_dir: Path, rel: str) -> None:
    path = samples_dir / "agents" / rel
    if not path.exists():
        pytest.skip(f"{rel} not in the samples")
    records = json.loads(path.read_text(encoding="utf-8"))
    kinds = Counter(_kind(r) for r in records)
    user = kinds["task"] + kinds["user_feedback"] + sum(
        1 for r in records if _kind(r) == "text" and ("images" in r or "files" in r))
    said = sum(1 for r in records if r["type"] == "say" and _kind(r) in (
        "text", "completion_result") and r.get("text") and "images" not in r and "files" not in r)
    calls = kinds["tool"] + kinds["command"] + kinds["use_mcp_server"]
    errors = kinds["api_req_failed"] + kinds["error"]
    t = load_transcript(path)
    assert t.format == "cline"
    roles = Counter(e.role for e in t.entries if e.message)
    assert roles["user"] == user
    assert roles["assistant"] == said + kinds["reasoning"] + calls + errors + sum(
        1 for r in records if r["type"] == "ask" and _kind(r) == "followup")
    assert roles["toolResult"] == kinds["command_output"] + kinds["mcp_server_response"]
    assert sum(len(e.message.tool_calls) for e in t.entries if e.message) == calls
    assert loaded_errors(t) == errors
    assert sum(1 for e in t.entries if e.extra.get("error")) == kinds["error_retry"]
    assert sum(1 for e in t.entries if e.type == "rewind") == kinds["deleted_api_reqs"]
    assert t.compactions == () and t.diagnostics == ()
    requests = [json.loads(r["text"]) for r in records if _kind(r) == "api_req_started"]
    with_usage = [e.message.usage for e in t.entries if e.message and e.message.usage]
    assert 0 < len(with_usage) <= len(requests)
    assert {u.total_tokens for u in with_usage} <= {
        q.get("tokensIn", 0) + q.get("tokensOut", 0) + q.get("cacheReads", 0)
        + q.get("cacheWrites", 0) for q in requests}


def rec(ts: int, kind: str, text: str = "", say: bool = True, **fields: Any) -> dict[str, Any]:
    r: dict[str, Any] = {"ts": ts, "type": "say" if say else "ask", "text": text, **fields}
    r["say" if say else "ask"] = kind
    return r


def test_roo_code_condense_and_truncation_markers_are_compactions(tmp_path: Path) -> None:
    log = [rec(1, "task", "build it", images=[]),
           rec(2, "api_req_started", json.dumps({"tokensIn": 10, "tokensOut": 5,
                                                 "cacheReads": 100, "cacheWrites": 0})),
           rec(3, "text", "working", modelInfo={"modelId": "m", "providerId": "p"}),
           rec(4, "condense_context", contextCondense={
               "summary": "built the base", "prevContextTokens": 9000,
               "newContextTokens": 900, "cost": 0.01}),
           rec(5, "user_feedback", "more", images=[]),
           rec(6, "sliding_window_truncation", contextTruncation={
               "truncationId": "x", "messagesRemoved": 4, "prevContextTokens": 8000,
               "newContextTokens": 2000}),
           rec(7, "text", "after"),
           rec(8, "deleted_api_reqs", json.dumps({"tokensIn": 3, "tokensOut": 1, "cost": 0.1})),
           rec(9, "api_req_failed", json.dumps({"message": "overloaded"}), say=False)]
    t = load_transcript(write(tmp_path / "tasks" / "t1" / "ui_messages.json", json.dumps(log)))
    assert t.format == "roo-code" and t.gaps.agent == "Roo Code"
    c1, c2 = t.compactions
    assert (c1.summary, c1.tokens_before, c1.extra["new_context_tokens"]) == (
        "built the base", 9000, 900)
    assert (c2.summary, c2.tokens_before, c2.extra["messages_removed"]) == ("", 8000, 4)
    assert c1.first_kept_entry_id == c1.id and t.gaps.lacks("kept_window")
    assert [i.entry_id for i in t.context] == ["6", "7", "9"]
    rewind = t.entry("8")
    assert rewind.type == "rewind" and rewind.extra["tokensIn"] == 3
    working = t.entry("3").message
    assert working is not None and working.model == "m" and working.usage is not None
    assert working.usage.total_tokens == 115
    failed = t.entry("9").message
    assert failed is not None and failed.error_message == "overloaded"
    assert count_tokens(t).agent_rule is None  # Roo counts with the provider: use exact


def test_clines_condense_ask_is_a_compaction(tmp_path: Path) -> None:
    log = [rec(1, "task", "go"), rec(2, "text", "done"),
           rec(3, "condense", "Summary: went", say=False), rec(4, "user_feedback", "next")]
    t = load_transcript(write(tmp_path / "t2" / "ui_messages.json", json.dumps(log)))
    assert t.format == "cline"
    (c,) = t.compactions
    assert c.summary == "Summary: went" and c.extra["source"] == "condense"


def test_a_log_that_breaks_off_keeps_the_records_before(tmp_path: Path) -> None:
    log = json.dumps([rec(1, "task", "go"), rec(2, "text", "one"), rec(3, "text", "two")])
    cut = log[: log.rindex("{") + 12]
    t = load_transcript(write(tmp_path / "t3" / "ui_messages.json", cut + "\n"))
    assert [e.id for e in t.entries] == ["1", "2"]
    (d,) = t.diagnostics
    assert d.line == 1 and "breaks off at record 2" in d.reason
    bad = json.dumps([rec(1, "task", "go"), 7, {"ts": 3, "type": "say"}])
    t = load_transcript(write(tmp_path / "t4" / "ui_messages.json", bad))
    assert [d.reason.split(" is")[0] for d in t.diagnostics][:1] == ["record 1"]
    assert len(t.diagnostics) == 2 and [e.id for e in t.entries] == ["1"]
