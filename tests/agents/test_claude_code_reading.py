"""SessionLens reads Claude Code 2.1.332's own files as Claude Code used them: the recorded
requests are the requests it sent, and the replayed context after each compaction is the
conversation it sent on the next turn (summary, kept messages, the turn), text equal."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.drivers.claude_code import BILLING_HEADER, json_sha256, without_cache_marks
from agents.drivers.claude_code_compare import DriverFolder, request_texts, texts_before
from fixtures.agents_paths import CLAUDE_CODE_FIXTURES
from sessionlens.engine.agents.claude_code.records import last_cost, recorded_requests
from sessionlens.engine.load.reader import load_transcript

FOLDERS = sorted(p for p in CLAUDE_CODE_FIXTURES.iterdir() if p.is_dir())


def _normal(message: dict) -> dict:
    content = without_cache_marks(message["content"])
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    return {"role": message["role"], "content": content}


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: p.name)
def test_recorded_requests_are_the_requests_claude_code_sent(folder: Path) -> None:
    run = DriverFolder.read(folder)
    t = load_transcript(run.session_file)
    recorded = recorded_requests(t.entries)
    sent = run.turn_requests
    assert len(recorded) == len(sent) >= 5
    for mine, theirs in zip(recorded, sent, strict=True):
        assert mine.missing == ()
        assert [_normal(dict(m)) for m in mine.messages] == \
            [_normal(m) for m in theirs["messages"]]
        assert json_sha256([dict(b) for b in mine.system]) == theirs["system_sha256"]
        assert json_sha256([dict(x) for x in mine.tools]) == theirs["tools_sha256"]
        assert mine.model == theirs["model"]
    assert not BILLING_HEADER.startswith("You")


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: p.name)
def test_replay_after_each_compaction_is_what_claude_code_sent_next(
        folder: Path, tmp_path: Path) -> None:
    run = DriverFolder.read(folder)
    t = load_transcript(run.session_file)
    recorded = recorded_requests(t.entries)
    turn_of = {id(r): k for k, r in enumerate(run.turn_requests)}
    after = [run.requests[i + 1] for i, r in enumerate(run.requests) if r["compaction"]]
    assert after
    for request in after:
        record = recorded[turn_of[id(request)]]
        mine = texts_before(run.session_file, record.id, tmp_path)
        theirs = request_texts(request["messages"])
        assert mine == theirs
        assert mine[0].startswith("This session is being continued")


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: p.name)
def test_compactions_as_the_file_records_them(folder: Path) -> None:
    run = DriverFolder.read(folder)
    boundaries = [r for r in run.rows() if r.get("subtype") == "compact_boundary"]
    t = load_transcript(run.session_file)
    comps = [e for e in t.entries if e.type == "compaction"]
    assert [c.extra["trigger"] for c in comps] == \
        [b["compactMetadata"]["trigger"] for b in boundaries]
    assert [(c.tokens_before, c.extra["post_tokens"]) for c in comps] == \
        [(b["compactMetadata"]["preTokens"], b["compactMetadata"]["postTokens"])
         for b in boundaries]
    assert [c.first_kept_entry_id for c in comps] == \
        [b["compactMetadata"]["preservedMessages"]["uuids"][0] for b in boundaries]
    assert t.diagnostics == ()
    cost = last_cost(t.entries)
    assert cost is not None and cost.total_usd == [
        r for r in run.rows() if r["type"] == "cost-state"][-1]["totalCostUSD"]


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: p.name)
def test_turns_tool_pairs_errors_and_model_as_claude_code_had_them(folder: Path) -> None:
    import json

    run = DriverFolder.read(folder)
    turns = json.loads((folder / "turns.json").read_text())
    t = load_transcript(run.session_file)
    messages = [e.message for e in t.entries if e.message is not None]
    errors = [m for m in messages if m.role == "assistant" and m.stop_reason == "error"]
    assert len(errors) == sum(turn["returncode"] == 1 for turn in turns) == 1
    assert "529" in (errors[0].error_message or "")
    calls = {c.id: c.name for m in messages if m.role == "assistant" for c in m.tool_calls}
    results = [m for m in messages if m.role == "toolResult"]
    assert results and all(calls.get(m.tool_call_id or "") == m.tool_name == "Bash"
                           for m in results)
    models = {m.model for m in messages if m.role == "assistant" and m.stop_reason != "error"}
    assert models == {r["model"] for r in run.turn_requests} == {"claude-opus-5-5"}
    prompts = [turn["prompt"] for turn in turns if not turn["prompt"].startswith("/")]
    users = [b.text for m in messages if m.role == "user" for b in m.content
             if hasattr(b, "text")]
    assert [p for p in prompts if p in users] == prompts
