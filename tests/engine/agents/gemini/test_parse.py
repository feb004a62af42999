"""Gemini CLI chats: both shared samples against a replay of their raw records, and the
update-log rules (last write wins, rewinds, list replacements, compression) on built logs."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from fixtures.agent_files import loaded_errors, write
from fixtures.factories import jsonl
from sessionlens.engine.errors import PersistError
from sessionlens.engine.load.reader import load_transcript, load_transcript_bytes
from sessionlens.engine.persist.successor import require_writable
from sessionlens.engine.tokens.counts import count_tokens

SAMPLES = ["gemini/session-2026-04-25T12-47-cdc6c5f9.jsonl",
           "gemini/session-2026-04-13T18-00-f328310d.json"]
META = {"sessionId": "s-1", "projectHash": "h", "startTime": "2026-01-01T00:00:00Z",
        "lastUpdated": "2026-01-01T00:00:00Z", "kind": "main"}
TS = "2026-01-01T00:00:01.000Z"


def _final_messages(path: Path) -> list[dict[str, Any]]:
    """Gemini's own reading of the file: last write per id, in first-write order."""
    if path.suffix == ".json":
        records = json.loads(path.read_text(encoding="utf-8"))["messages"]
    else:
        records = []
        for line in path.read_text(encoding="utf-8").splitlines():
            obj = json.loads(line)
            assert "$rewindTo" not in obj and "messages" not in obj.get("$set", {})
            if "id" in obj:
                records.append(obj)
    final: dict[str, dict[str, Any]] = {}
    for r in records:
        final[r["id"]] = r
    return list(final.values())


@pytest.mark.parametrize("rel", SAMPLES)
def test_samples_match_a_replay_of_their_raw_records(samples_dir: Path, rel: str) -> None:
    path = samples_dir / "agents" / rel
    if not path.exists():
        pytest.skip(f"{rel} not in the samples")
    msgs = _final_messages(path)
    kinds = Counter(m["type"] for m in msgs)
    calls = [c for m in msgs for c in m.get("toolCalls", [])]
    want_roles = {"user": kinds["user"], "assistant": kinds["gemini"] + kinds["error"],
                  "toolResult": sum(1 for c in calls if c.get("result"))}
    compressed = sum(1 for m in msgs if m["type"] == "info"
                     and "Context compressed from" in m["content"])
    errors = kinds["error"] + sum(1 for c in calls if c["status"] in ("error", "cancelled"))
    t = load_transcript(path)
    assert t.format == ("gemini-json" if rel.endswith(".json") else "gemini-jsonl")
    assert dict(Counter(e.role for e in t.entries if e.message)) == \
        {k: v for k, v in want_roles.items() if v}
    assert len(t.compactions) == compressed
    assert sum(len(e.message.tool_calls) for e in t.entries if e.message) == len(calls)
    assert loaded_errors(t) == errors
    assert t.diagnostics == ()
    for c in t.compactions:  # the token drop: Gemini's percentages and the context before
        assert c.extra["percent_before"] > c.extra["percent_after"]
        assert c.tokens_before and c.summary == ""
    if compressed:
        assert t.gaps.lacks("compaction_summary") and t.gaps.lacks("kept_window")


def _gemini(mid: str, text: str, **fields: Any) -> dict[str, Any]:
    return {"id": mid, "timestamp": TS, "type": "gemini", "content": text, "model": "g-pro",
            **fields}


def _user(mid: str, text: str) -> dict[str, Any]:
    return {"id": mid, "timestamp": TS, "type": "user", "content": [{"text": text}]}


def _load(*lines: Any, name: str = "session-x.jsonl") -> Any:
    return load_transcript_bytes(jsonl(*lines), f"/h/.gemini/tmp/p/chats/{name}")


CALL = {"id": "c1", "name": "grep", "args": {"q": "x"}, "status": "success",
        "result": [{"functionResponse": {"id": "c1", "name": "grep",
                                         "response": {"output": "found"}}}]}
TOKENS = {"input": 900, "output": 50, "cached": 400, "thoughts": 10, "tool": 0, "total": 960}


def test_the_last_write_of_a_message_wins_and_keeps_its_first_place() -> None:
    t = _load(META, _user("u1", "find x"), _gemini("g1", "looking"), {"$set": {"lastUpdated": TS}},
              _user("u2", "thanks"),
              _gemini("g1", "looking", toolCalls=[CALL], tokens=TOKENS, thoughts=[
                  {"subject": "Plan", "description": "grep it", "timestamp": TS}]))
    assert [e.id for e in t.entries] == ["u1", "g1", "g1:c1", "u2"]
    g1 = t.entry("g1").message
    assert g1 is not None and g1.tool_calls[0].name == "grep"
    assert g1.content[0].kind == "thinking"
    assert g1.usage is not None and (g1.usage.input, g1.usage.cache_read, g1.usage.output,
                                     g1.usage.total_tokens) == (500, 400, 60, 960)
    result = t.entry("g1:c1").message
    assert result is not None and result.text == "found" and result.tool_call_id == "c1"
    assert t.entry("g1").line == 6  # the line its content was read from


def test_a_rewind_starts_a_branch_and_an_unknown_one_drops_everything() -> None:
    t = _load(META, _user("u1", "a"), _gemini("g1", "b"), _user("u2", "c"), _gemini("g2", "d"),
              {"$rewindTo": "u2"}, _user("u3", "e"), {"$rewindTo": "nope"}, _user("u4", "f"))
    assert t.entry("u3").parent_id == "g1"
    assert t.entry("u4").parent_id is None
    assert t.active_path == ("u4",)
    assert "u2" in t.index and "g2" in t.index  # rewound messages stay readable
    (warn,) = t.diagnostics
    assert warn.line == 8 and "'nope'" in warn.reason and warn.severity == "warning"


def test_a_set_with_a_new_snapshot_is_a_compaction_whose_summary_is_the_snapshot() -> None:
    """Gemini CLI 0.61: the compressed list is the snapshot (a user message), an ack, and
    the recent messages it keeps; only the snapshot is summary, the rest replays in order."""
    summary = _user("sum", "<state_snapshot>did a, b</state_snapshot>")
    t = _load(META, _user("u1", "a"), _gemini("g1", "b"), _user("u2", "c"),
              _gemini("g2", "d", tokens=TOKENS),
              {"$set": {"messages": [summary, _gemini("ack", "Got it."), _user("u2", "c"),
                                     _gemini("g2", "d", tokens=TOKENS)]}},
              _user("u3", "next"))
    (c,) = t.compactions
    assert c.summary == "<state_snapshot>did a, b</state_snapshot>"
    assert c.first_kept_entry_id == c.id and c.tokens_before == 960
    assert [i.entry_id for i in t.context] == [c.id, "ack", "u2~2", "g2~2", "u3"]
    assert "sum" not in t.index


def test_a_list_rewrite_without_a_snapshot_is_no_compaction() -> None:
    """A resume rewrites the list (first to its opening message, then whole again)."""
    t = _load(META, _user("u1", "a"), _gemini("g1", "b"),
              {"$set": {"messages": [_user("u1", "a")]}},
              {"$set": {"messages": [_user("u1", "a"), _gemini("g1", "b")]}},
              _user("u2", "c"))
    assert t.compactions == ()
    assert [i.entry_id for i in t.context] == ["u1", "g1", "u2"]


def test_a_compression_notice_is_a_compaction_with_the_token_drop() -> None:
    t = _load(META, _user("u1", "a"), _gemini("g1", "b", tokens=TOKENS),
              {"id": "i1", "timestamp": TS, "type": "info",
               "content": "Context compressed from 68% to 3%."},
              _user("u2", "c"),
              {"id": "w1", "timestamp": TS, "type": "warning", "content": "careful"},
              {"id": "e1", "timestamp": TS, "type": "error", "content": "[API Error: quota]"})
    c = t.entry("i1")
    assert c.type == "compaction" and c.tokens_before == 960
    assert (c.extra["percent_before"], c.extra["percent_after"]) == (68, 3)
    assert [i.entry_id for i in t.context] == ["i1", "u2", "e1"]
    assert t.entry("w1").type == "notice" and t.entry("w1").extra["text"] == "careful"
    e1 = t.entry("e1").message
    assert e1 is not None and e1.stop_reason == "error" and "quota" in str(e1.error_message)
    assert count_tokens(t).agent_rule == "gemini"


def test_subagent_chats_link_to_their_parent_and_are_never_written(tmp_path: Path) -> None:
    p = write(tmp_path / ".gemini" / "tmp" / "p" / "chats" / "parent-sid" / "child.jsonl",
              jsonl({**META, "kind": "subagent"}, _user("u1", "task")))
    t = load_transcript(p)
    assert t.header is not None and t.header.extra["parent_session_id"] == "parent-sid"
    with pytest.raises(PersistError, match="Gemini CLI transcript"):
        require_writable(t)


def test_bad_lines_and_records_are_diagnostics_and_the_rest_loads() -> None:
    data = jsonl(META, _user("u1", "a")) + b"{broken\n" + jsonl(
        {"timestamp": TS, "type": "user", "content": "no id"},
        {"id": "x1", "timestamp": TS, "type": "mystery", "content": "?"},
        _gemini("g1", "b")) + b'{"id":"g2","type":"gemini","con'
    t = load_transcript_bytes(data, "/h/.gemini/tmp/p/chats/session-y.jsonl")
    by_line = {d.line: d for d in t.diagnostics}
    assert set(by_line) == {3, 4, 5, 7}
    assert "invalid JSON" in by_line[3].reason and "no string 'id'" in by_line[4].reason
    assert "unknown type 'mystery'" in by_line[5].reason
    assert "truncated last line" in by_line[7].reason
    assert [e.id for e in t.entries] == ["u1", "x1", "g1"]


def test_a_cut_off_older_chat_keeps_the_messages_before_the_cut(tmp_path: Path) -> None:
    doc = json.dumps({**META, "messages": [_user("u1", "a"), _gemini("g1", "b"),
                                           _user("u2", "c")]}, indent=2)
    cut = doc[: doc.index('"u2"') + 10]
    t = load_transcript(write(tmp_path / "chats" / "session-z.json", cut))
    assert t.format == "gemini-json"
    assert [e.id for e in t.entries] == ["u1", "g1"]
    (d,) = t.diagnostics
    assert "breaks off at record 2" in d.reason and d.line == cut.count("\n") + 1


def _snapshot_chat(home: Path, share: float | None) -> Path:
    """A chat in ``home/.gemini/tmp/p/chats/`` with one compression after 960 reported
    tokens, and ``model.compressionThreshold`` = ``share`` in ``home/.gemini/settings.json``."""
    if share is not None:
        write(home / ".gemini" / "settings.json", json.dumps({"model": {
            "compressionThreshold": share}}))
    summary = _user("sum", "<state_snapshot>did a</state_snapshot>")
    chat = home / ".gemini" / "tmp" / "p" / "chats" / "session-x.jsonl"
    write(chat, jsonl(META, _user("u1", "a"), _gemini("g1", "b", tokens=TOKENS),
                      {"$set": {"messages": [summary, _gemini("ack", "Got it.")]}},
                      _user("u2", "c")).decode())
    return chat


@pytest.mark.parametrize(("share", "trigger"), [(0.0001, "auto"), (None, "manual")])
def test_the_trigger_is_gemini_clis_own_test(tmp_path: Path, share: float | None,
                                             trigger: str) -> None:
    """Gemini CLI compresses on its own only at compressionThreshold x tokenLimit(model)
    (settings.json, default 0.5 of 1,048,576): 960 tokens pass 0.0001 of it, not 0.5."""
    (c,) = load_transcript(_snapshot_chat(tmp_path, share)).compactions
    assert c.extra["trigger"] == trigger
    source = c.extra["trigger_source"]
    assert "960 tokens reported" in source and "1,048,576" in source
    assert ("settings.json" in source) == (share is not None)


def test_a_notice_decides_by_its_percentage_and_a_copied_chat_gets_none() -> None:
    notice = {"id": "i1", "timestamp": TS, "type": "info",
              "content": "Context compressed from 68% to 3%."}
    (c,) = _load(META, _user("u1", "a"), _gemini("g1", "b", tokens=TOKENS), notice).compactions
    assert c.extra["trigger"] == "auto"  # 68% of the limit is past the default 50%
    copied = load_transcript_bytes(jsonl(META, _user("u1", "a"), notice), "/x/session-x.jsonl")
    assert "trigger" not in copied.compactions[0].extra
