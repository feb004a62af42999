"""Current OpenCode, from databases built on its published schema (no real sample exists)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from fixtures.agent_files import OPENCODE_SCHEMA, opencode_db
from sessionlens.engine.errors import NotATranscriptError
from sessionlens.engine.load.context_text import context_texts
from sessionlens.engine.load.reader import detect_format, load_transcript
from sessionlens.engine.tokens.counts import count_tokens

T0 = 1_760_000_000_000


def user(text: str, **extra: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    return ({"role": "user", "time": {"created": T0}, "agent": "build",
             "model": {"providerID": "anthropic", "modelID": "claude-x"}},
            [{"type": "text", "text": text}, *extra.get("parts", [])])


def assistant(parts: list[dict[str, Any]], **info: Any) -> tuple[dict[str, Any],
                                                                 list[dict[str, Any]]]:
    base = {"role": "assistant", "time": {"created": T0 + 1}, "parentID": info.pop("parent", ""),
            "modelID": "claude-x", "providerID": "anthropic", "mode": "build",
            "path": {"cwd": "/w", "root": "/w"}, "cost": 0.25,
            "tokens": {"input": 100, "output": 20, "reasoning": 5,
                       "cache": {"read": 1000, "write": 10}}}
    base.update(info)
    return base, parts


def tool(call: str, status: str, **state: Any) -> dict[str, Any]:
    return {"type": "tool", "callID": call, "tool": "bash",
            "state": {"status": status, "input": {"command": "ls"}, **state}}


def _session(tmp_path: Path, **session: Any) -> Path:
    msgs = [
        ("msg_01", *user("list files")),
        ("msg_02", *assistant([{"type": "reasoning", "text": "think", "time": {"start": 1}},
                               {"type": "text", "text": "running ls"},
                               tool("c1", "completed", output="a\nb", title="ls"),
                               tool("c2", "error", error="denied"),
                               {"type": "step-finish", "reason": "tool-calls", "cost": 0,
                                "tokens": {"input": 1, "output": 1, "reasoning": 0,
                                           "cache": {"read": 0, "write": 0}}}],
                              parent="msg_01")),
        ("msg_03", *user("keep going")),
        ("msg_04", *assistant([{"type": "text", "text": "more"}], parent="msg_03")),
        ("msg_05", *user("", parts=[{"type": "compaction", "auto": True,
                                     "tail_start_id": "msg_03"}])),
        ("msg_06", *assistant([{"type": "text", "text": "We listed files."}], parent="msg_05",
                              summary=True, finish="stop")),
        ("msg_07", *user("after")),
        ("msg_08", *assistant([], parent="msg_07",
                              error={"name": "APIError", "data": {"message": "overloaded"}})),
    ]
    rows = [(mid, "ses_1", T0 + n, info, parts) for n, (mid, info, parts) in enumerate(msgs)]
    sessions = [{"id": "ses_1", "title": "Files", **session},
                {"id": "ses_2", "parent_id": "ses_1", "title": "sub", "time": T0 - 5}]
    return opencode_db(tmp_path / "opencode" / "opencode.db", sessions, rows)


def test_the_published_schema_is_detected_and_read(tmp_path: Path) -> None:
    db = _session(tmp_path)
    assert detect_format(db) == "opencode-sqlite"
    t = load_transcript(db / "ses_1")
    assert t.format == "opencode-sqlite" and t.session_name == "Files"
    types = [(e.id, e.type, e.role) for e in t.entries]
    assert types == [("title", "session_info", None), ("msg_01", "message", "user"),
                     ("msg_02", "message", "assistant"), ("prt_0001_02", "message", "toolResult"),
                     ("prt_0001_03", "message", "toolResult"), ("msg_03", "message", "user"),
                     ("msg_04", "message", "assistant"),
                     ("msg_05", "compaction_request", None), ("msg_06", "compaction", None),
                     ("msg_07", "message", "user"), ("msg_08", "message", "assistant")]
    ok, failed = t.entry("prt_0001_02").message, t.entry("prt_0001_03").message
    assert ok is not None and failed is not None
    assert (ok.text, ok.is_error, failed.text, failed.is_error) == ("a\nb", False, "denied", True)
    a = t.entry("msg_02").message
    assert a is not None and a.usage is not None
    assert (a.usage.input, a.usage.output, a.usage.cache_read, a.usage.cache_write,
            a.usage.cost_total) == (100, 25, 1000, 10, 0.25)
    c = t.entry("msg_06")
    assert c.summary == "We listed files." and c.first_kept_entry_id == "msg_03"
    assert c.tokens_before == a.usage.context_tokens
    # the failed turn msg_08 is not sent again (OpenCode's toModelMessages skips it)
    assert [i.entry_id for i in t.context] == ["msg_06", "msg_03", "msg_04", "msg_07"]
    err = t.entry("msg_08").message
    assert err is not None and (err.stop_reason, err.error_message) == ("error", "overloaded")
    report = count_tokens(t)
    assert report.agent_rule == "chars4" and report.estimate_context_agent is not None
    sub = load_transcript(db / "ses_2")
    assert sub.header is not None and sub.header.extra["parent_session_id"] == "ses_1"


def test_replayed_context_is_what_opencode_sends(tmp_path: Path) -> None:
    """OpenCode 1.18.33 sends the compaction request as a user turn "What did we do so far?"
    and the summary as the assistant's answer, then the kept tail (checked against the
    binary's requests in tests/agents/test_opencode_replay.py)."""
    t = load_transcript(_session(tmp_path) / "ses_1")
    assert context_texts(t)[:5] == [
        {"role": "user", "text": "What did we do so far?"},
        {"role": "assistant", "text": "We listed files."},
        {"role": "user", "text": "keep going"}, {"role": "assistant", "text": "more"},
        {"role": "user", "text": "after"}]


def test_a_failed_turn_is_not_sent_an_aborted_one_with_text_is(tmp_path: Path) -> None:
    abort = {"name": "MessageAbortedError", "data": {"message": "aborted"}}
    failed = {"name": "APIError", "data": {"message": "stream broke"}}
    msgs = [("msg_01", *user("go")),
            ("msg_02", *assistant([{"type": "text", "text": "half"},
                                   tool("c1", "completed", output="x")], parent="msg_01",
                                  error=failed)),
            ("msg_03", *user("again")),
            ("msg_04", *assistant([{"type": "step-start"}, {"type": "text", "text": "partial"}],
                                  parent="msg_03", error=abort)),
            ("msg_05", *user("and")),
            ("msg_06", *assistant([{"type": "step-start"}], parent="msg_05", error=abort))]
    rows = [(mid, "ses_1", T0 + n, info, parts) for n, (mid, info, parts) in enumerate(msgs)]
    db = opencode_db(tmp_path / "opencode" / "opencode.db", [{"id": "ses_1", "title": "x"}], rows)
    t = load_transcript(db)
    assert [i.entry_id for i in t.context] == ["msg_01", "msg_03", "msg_04", "msg_05"]
    assert [c["text"] for c in context_texts(t)] == ["go", "again", "partial", "and"]


def test_reverted_messages_stay_beside_the_path(tmp_path: Path) -> None:
    db = _session(tmp_path, revert={"messageID": "msg_07"})
    t = load_transcript(db / "ses_1")
    assert t.entry("msg_07").append_mode == "side" and t.entry("msg_07").extra["reverted"]
    assert t.leaf_id == "msg_06"
    assert "msg_07" not in [i.entry_id for i in t.context]


def test_missing_tables_and_bad_rows_are_reported(tmp_path: Path) -> None:
    partial = tmp_path / "partial.db"
    db = sqlite3.connect(partial)
    db.executescript(OPENCODE_SCHEMA.replace("CREATE TABLE `message`", "CREATE TABLE `m2`"))
    db.close()
    with pytest.raises(NotATranscriptError, match="'message'"):
        load_transcript(partial)
    path = _session(tmp_path)
    con = sqlite3.connect(path)
    con.execute("UPDATE message SET data = '{cut' WHERE id = 'msg_03'")
    con.commit()
    con.close()
    t = load_transcript(path / "ses_1")
    (bad,) = [d for d in t.diagnostics if d.severity == "error"]
    assert bad.line == 3 and "'msg_03'" in bad.reason
    assert "msg_04" in t.index
