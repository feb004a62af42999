"""Claude Code adapter: synthetic files built in code, plus the real sample 07.

Sample counts are derived here from the raw JSON lines, never copied from the adapter.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from fixtures.agent_lines import CC_P as P
from fixtures.agent_lines import CC_SID as SID
from fixtures.agent_lines import asst, line, result, tool_use, user
from fixtures.agent_lines import cc_load as load
from fixtures.samples import sample_path
from sessionlens.engine.agents.claude_code.parse import subagent_parent_id
from sessionlens.engine.audit.report import audit_compaction
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.model import ImageBlock, TextBlock, ThinkingBlock, ToolCallBlock
from sessionlens.engine.tokens.counts import count_tokens

# ----------------------------------------------------------------------------- synthetic


def test_header_is_synthesized_from_the_first_lines() -> None:
    t = load({"type": "queue-operation", "operation": "enqueue", "sessionId": SID,
              "timestamp": "2026-04-07T21:00:00.000Z"},
             user("u1", None, "hi"))
    assert t.format == "claude-code"
    assert t.header is not None and t.header.id == SID
    assert t.header.timestamp == "2026-04-07T21:00:00.000Z"
    assert t.header.cwd == "/work/proj" and t.header.extra["cc_version"] == "2.1.92"


def test_blocks_usage_and_stop_reasons_map_onto_the_model() -> None:
    t = load(
        user("u1", None, [{"type": "text", "text": "look"},
                          {"type": "image", "source": {"type": "base64",
                                                       "media_type": "image/png",
                                                       "data": "AAAA"}}]),
        asst("a1", "u1", [{"type": "thinking", "thinking": "hmm", "signature": "sig"},
                          {"type": "redacted_thinking", "data": "xx"},
                          {"type": "text", "text": "answer"},
                          {"type": "server_tool_use", "id": "s1", "name": "web_search"}],
             stop_reason="end_turn"),
    )
    u = t.entry("u1").message
    assert u is not None and u.role == "user"
    assert u.content == (TextBlock("look"), ImageBlock("image/png", "AAAA"))
    a = t.entry("a1").message
    assert a is not None and a.role == "assistant" and a.stop_reason == "stop"
    assert a.content[0] == ThinkingBlock("hmm", signature="sig")
    assert a.content[1] == ThinkingBlock("", redacted=True)
    assert a.content[2] == TextBlock("answer")
    assert isinstance(a.content[3], TextBlock) and a.content[3].text.startswith("[server_tool_use]")
    assert a.usage is not None
    assert (a.usage.input, a.usage.output, a.usage.cache_read, a.usage.cache_write) == (
        10, 5, 100, 20)
    assert a.usage.total_tokens == 135 and a.usage.context_tokens == 135
    assert a.provider == "anthropic" and a.model == "claude-opus-4-6"


def test_string_content_is_kept_as_a_string_user_message() -> None:
    t = load(user("u1", None, "plain"))
    msg = t.entry("u1").message
    assert msg is not None and msg.content_is_string and msg.text == "plain"


def test_meta_user_text_is_a_custom_message_in_context() -> None:
    t = load(user("u1", None, "real ask"),
             user("m1", "u1", [{"type": "text", "text": "Continue from where you left off."}],
                  isMeta=True))
    meta = t.entry("m1")
    assert meta.message is not None and meta.message.role == "custom"
    assert meta.message.custom_type == "claude-code.meta" and meta.extra["is_meta"] is True
    assert [c.role for c in t.context] == ["user", "custom"]


def test_tool_results_become_tool_result_messages_paired_by_id() -> None:
    t = load(
        user("u1", None, "read two files"),
        asst("a1", "u1", [tool_use("t1", "Read")], stop_reason="tool_use"),
        user("r1", "a1", [result("t1", "contents", is_error=True)]),
    )
    r = t.entry("r1").message
    assert r is not None and r.role == "toolResult"
    assert (r.tool_call_id, r.tool_name, r.is_error) == ("t1", "Read", True)
    assert r.content == (TextBlock("contents"),)
    assert t.entry("a1").message.stop_reason == "toolUse"  # type: ignore[union-attr]


def test_a_line_with_several_results_is_split_and_children_hang_off_its_last_piece() -> None:
    t = load(
        user("u1", None, "go"),
        asst("a1", "u1", [tool_use("t1"), tool_use("t2", "Bash")]),
        user("r", "a1", [result("t1"), result("t2", "out"), {"type": "text", "text": "note"}]),
        asst("a2", "r", [{"type": "text", "text": "done"}], mid="m2"),
    )
    pieces = [e for e in t.entries if e.line == 3]
    assert [e.id for e in pieces] == ["r", "r:1", "r:2"]
    assert [e.role for e in pieces] == ["toolResult", "toolResult", "user"]
    assert pieces[1].message is not None and pieces[1].message.tool_name == "Bash"
    assert [e.parent_id for e in pieces] == ["a1", "r", "r:1"]
    assert len({(e.offset, e.length) for e in pieces}) == 1
    assert t.entry("a2").parent_id == "r:2"
    assert t.active_path == ("u1", "a1", "r", "r:1", "r:2", "a2")


def test_parallel_tool_calls_are_chained_so_no_result_falls_off_the_path() -> None:
    # Claude Code's shape: each tool_use block is its own line (same message.id); each
    # result hangs off its own tool_use line, so the raw tree forks at every call.
    t = load(
        user("u1", None, "go"),
        asst("c1", "u1", [tool_use("t1")]),
        asst("c2", "c1", [tool_use("t2")]),
        user("r2", "c2", [result("t2")]),
        user("r1", "c1", [result("t1")]),
        asst("a2", "r1", [{"type": "text", "text": "both read"}], mid="m2"),
    )
    assert t.active_path == ("u1", "c1", "c2", "r2", "r1", "a2")
    assert t.entry("r1").parent_id == "r2"
    assert t.entry("r1").extra["parent_uuid"] == "c1"
    assert "parent_uuid" not in t.entry("r2").extra
    assert [c.entry_id for c in t.context] == list(t.active_path)


def test_a_rewound_tree_keeps_both_children_and_the_last_line_is_the_leaf() -> None:
    t = load(
        user("u1", None, "first"),
        asst("a1", "u1", [{"type": "text", "text": "reply"}]),
        user("u2", "a1", "question"),
        asst("a2", "u2", [{"type": "text", "text": "old answer"}], mid="m2"),
        user("u2b", "a1", "question, edited"),
        asst("a2b", "u2b", [{"type": "text", "text": "new answer"}], mid="m3"),
    )
    assert t.entry("u2").parent_id == "a1" and t.entry("u2b").parent_id == "a1"
    assert t.leaf_id == "a2b"
    assert t.active_path == ("u1", "a1", "u2b", "a2b")
    assert not {"u2", "a2"} & set(t.active_path)


def test_lines_without_uuid_and_sidechains_never_move_the_leaf() -> None:
    t = load(
        user("u1", None, "hi"),
        asst("a1", "u1", [{"type": "text", "text": "yo"}]),
        user("s1", None, "subtask", isSidechain=True),
        {"type": "last-prompt", "lastPrompt": "hi", "sessionId": SID},
    )
    assert t.leaf_id == "a1"
    assert t.entry("s1").extra["is_sidechain"] is True
    assert t.entry("s1").append_mode == "side"
    loose = t.entries[-1]
    assert loose.type == "last-prompt" and loose.id == f"{4:08x}" and loose.parent_id is None
    assert [c.entry_id for c in t.context] == ["u1", "a1"]


def test_compact_boundary_and_summary_are_one_compaction_linked_across_the_boundary() -> None:
    t = load(
        user("u1", None, "old work"),
        asst("a1", "u1", [{"type": "text", "text": "old reply"}]),
        line("system", "b1", None, subtype="compact_boundary", logicalParentUuid="a1",
             compactMetadata={"trigger": "manual", "preTokens": 150000}),
        user("s1", "b1", "This session is being continued... Summary: X", isCompactSummary=True,
             isVisibleInTranscriptOnly=True),
        user("u2", "s1", "next"),
    )
    (c,) = t.compactions
    assert c.id == "b1" and c.parent_id == "a1"
    assert c.summary == "This session is being continued... Summary: X"
    assert c.tokens_before == 150000 and c.first_kept_entry_id == "b1"
    assert c.extra["trigger"] == "manual" and c.extra["summary_line"] == 4
    assert "s1" not in t.index and t.entry("u2").parent_id == "b1"
    assert t.active_path == ("u1", "a1", "b1", "u2")
    assert [(i.kind, i.entry_id) for i in t.context] == [
        ("compaction_summary", "b1"), ("message", "u2")]


def test_a_boundary_whose_logical_parent_is_absent_links_to_the_previous_main_entry() -> None:
    t = load(
        user("u1", None, "old"),
        line("system", "b1", None, subtype="compact_boundary", logicalParentUuid="gone",
             compactMetadata={"trigger": "auto", "preTokens": 9}),
    )
    (c,) = t.compactions
    assert c.parent_id == "u1" and c.extra["logical_parent_missing"] is True
    assert c.summary == ""
    assert any("no isCompactSummary" in d.reason for d in t.diagnostics)


def test_an_older_compaction_is_a_summary_message_alone() -> None:
    t = load(user("s1", None, "Summary of before", isCompactSummary=True),
             user("u1", "s1", "go on"))
    (c,) = t.compactions
    assert c.id == "s1" and c.summary == "Summary of before" and c.tokens_before is None
    assert [i.kind for i in t.context] == ["compaction_summary", "message"]


def test_api_errors_are_assistant_errors_with_their_message() -> None:
    t = load(
        user("u1", None, "hi"),
        asst("a1", "u1", [{"type": "text", "text": "Prompt is too long"}],
             error="invalid_request", isApiErrorMessage=True,
             errorDetails='400 {"message":"prompt is too long: 205010 tokens > 200000"}'),
        asst("a2", "a1", [{"type": "text", "text": "You're out of usage"}], mid="m2",
             error="rate_limit", isApiErrorMessage=True),
    )
    m1, m2 = t.entry("a1").message, t.entry("a2").message
    assert m1 is not None and m1.stop_reason == "error"
    assert m1.error_message is not None and "prompt is too long" in m1.error_message
    assert m2 is not None and m2.stop_reason == "error"
    assert m2.error_message == "You're out of usage"


def test_unknown_line_types_are_kept_and_never_in_context() -> None:
    t = load(
        user("u1", None, "hi"),
        line("attachment", "x1", "u1", attachment={"type": "companion_intro"}),
        line("progress", "p1", "x1", data={"k": 1}),
        {"type": "file-history-snapshot", "messageId": "u1", "snapshot": {}},
        {"type": "pr-link", "sessionId": SID, "url": "https://example.org/pr/1"},
    )
    types = Counter(e.type for e in t.entries)
    assert types == Counter({"message": 1, "attachment": 1, "progress": 1,
                             "file-history-snapshot": 1, "pr-link": 1})
    assert t.entry("x1").extra["attachment_type"] == "companion_intro"
    assert [c.entry_id for c in t.context] == ["u1"]
    assert t.diagnostics == ()


def test_a_subagent_file_is_tied_to_its_parent_session(tmp_path: Path) -> None:
    parent = "aaaaaaaa-0000-0000-0000-000000000001"
    path = tmp_path / "proj" / parent / "subagents" / "agent-a897fe51.jsonl"
    assert subagent_parent_id(path) == parent
    t = load(user("u1", None, "sub task", isSidechain=True, agentId="a897fe51"),
             asst("a1", "u1", [{"type": "text", "text": "done"}], isSidechain=True),
             path=path)
    assert t.header is not None and t.header.id == "agent-a897fe51"
    assert t.header.extra["parent_session_id"] == SID  # the lines name the parent
    assert t.header.extra["agent_id"] == "a897fe51"
    assert all(e.extra["is_sidechain"] for e in t.entries)
    assert t.leaf_id == "a1" and len(t.context) == 2  # sidechains are the main chain here
    assert subagent_parent_id(P) is None


# ----------------------------------------------------------------------------- sample 07


def _raw(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_bytes().splitlines() if x.strip()]


def _expected_pieces(obj: dict[str, Any]) -> list[str]:
    """Roles a user line splits into: one per tool_result, one per run of other blocks."""
    content = obj["message"]["content"]
    if isinstance(content, str):
        return ["user"]
    roles: list[str] = []
    run = False
    for b in content:
        if b.get("type") == "tool_result":
            if run:
                roles.append("user")
            roles.append("toolResult")
            run = False
        else:
            run = True
    if run or not roles:
        roles.append("user")
    return roles


@pytest.fixture(scope="module")
def sample07(samples_dir: Path) -> tuple[Path, list[dict[str, Any]]]:
    path = sample_path(samples_dir, "07_")
    return path, _raw(path)


@pytest.mark.samples
def test_sample07_entry_and_role_counts(sample07: tuple[Path, list[dict[str, Any]]]) -> None:
    path, raw = sample07
    t = load_transcript(path)
    assert t.format == "claude-code" and t.diagnostics == ()
    want_types: Counter[str] = Counter()
    want_roles: Counter[str] = Counter()
    for o in raw:
        if o["type"] == "system" and o.get("subtype") == "compact_boundary":
            want_types["compaction"] += 1
        elif o["type"] == "user" and o.get("isCompactSummary"):
            continue
        elif o["type"] == "user":
            pieces = _expected_pieces(o)
            if o.get("isMeta"):
                pieces = ["custom" if r == "user" else r for r in pieces]
            want_types["message"] += len(pieces)
            want_roles.update(pieces)
        elif o["type"] == "assistant":
            want_types["message"] += 1
            want_roles["assistant"] += 1
        else:
            want_types[o["type"]] += 1
    assert Counter(e.type for e in t.entries) == want_types
    assert Counter(e.role for e in t.entries if e.message is not None) == want_roles
    assert t.header is not None and t.header.id == raw[0]["sessionId"]
    assert t.header.timestamp == raw[0]["timestamp"]


@pytest.mark.samples
def test_sample07_compactions(sample07: tuple[Path, list[dict[str, Any]]]) -> None:
    path, raw = sample07
    t = load_transcript(path)
    bounds = [o for o in raw if o.get("subtype") == "compact_boundary"]
    summaries = {o["parentUuid"]: o for o in raw if o.get("isCompactSummary")}
    assert [c.id for c in t.compactions] == [b["uuid"] for b in bounds]
    for c, b in zip(t.compactions, bounds, strict=True):
        assert c.tokens_before == b["compactMetadata"]["preTokens"]
        assert c.extra["trigger"] == b["compactMetadata"]["trigger"]
        assert c.summary == summaries[b["uuid"]]["message"]["content"]
        assert c.first_kept_entry_id == c.id
        assert c.id in t.active_path  # linked across the null parentUuid
    # Replay: the last summary, then every message from the lines after its summary line.
    last_summary_at = max(i for i, o in enumerate(raw) if o.get("isCompactSummary"))
    after = [o for o in raw[last_summary_at + 1:] if o["type"] in ("user", "assistant")]
    want = 1 + sum(len(_expected_pieces(o)) if o["type"] == "user" else 1 for o in after)
    assert len(t.context) == want
    assert t.context[0].kind == "compaction_summary" and t.context[0].entry_id == bounds[-1]["uuid"]


@pytest.mark.samples
def test_sample07_tree_paths_and_tool_pairing(
        sample07: tuple[Path, list[dict[str, Any]]]) -> None:
    path, raw = sample07
    t = load_transcript(path)
    kids = Counter(o["parentUuid"] for o in raw if o.get("uuid") and o.get("parentUuid"))
    assert max(kids.values()) > 1  # the raw tree forks at parallel tool calls ...
    tree_lines = {i + 1 for i, o in enumerate(raw) if o.get("uuid")}
    on_path = {t.entry(i).line for i in t.active_path}
    assert on_path == tree_lines - {i + 1 for i, o in enumerate(raw) if o.get("isCompactSummary")}
    last_uuid = [o["uuid"] for o in raw if o.get("uuid")][-1]
    assert t.leaf_id == last_uuid  # ... yet every tree line is on the one active path
    uses = {b["id"]: b["name"] for o in raw if o["type"] == "assistant"
            for b in o["message"]["content"] if b.get("type") == "tool_use"}
    results = [b["tool_use_id"] for o in raw if o["type"] == "user"
               and isinstance(o["message"]["content"], list)
               for b in o["message"]["content"] if b.get("type") == "tool_result"]
    calls = {c.id: c.name for e in t.entries if e.message is not None
             for c in e.message.content if isinstance(c, ToolCallBlock)}
    got = [(e.message.tool_call_id, e.message.tool_name) for e in t.entries
           if e.message is not None and e.message.role == "toolResult"]
    assert calls == uses
    assert [g[0] for g in got] == results
    assert all(name == uses[cid] for cid, name in got)


@pytest.mark.samples
def test_sample07_errors_and_reported_tokens(sample07: tuple[Path, list[dict[str, Any]]]) -> None:
    path, raw = sample07
    t = load_transcript(path)
    errors = {o["uuid"] for o in raw if o.get("isApiErrorMessage")}
    got = {e.id for e in t.entries if e.message is not None and e.message.stop_reason == "error"}
    assert got == errors
    last = [o for o in raw if o["type"] == "assistant" and not o.get("isApiErrorMessage")][-1]
    u = last["message"]["usage"]
    want = (u["input_tokens"] + u["output_tokens"] + u["cache_read_input_tokens"]
            + u["cache_creation_input_tokens"])
    assert t.path_entries()[-1].id == last["uuid"]  # nothing after it to estimate
    assert count_tokens(t).reported_context == want


@pytest.mark.samples
def test_sample07_every_recorded_compaction_audits(
        sample07: tuple[Path, list[dict[str, Any]]]) -> None:
    path, raw = sample07
    t = load_transcript(path)
    bound_lines = [i + 1 for i, o in enumerate(raw) if o.get("subtype") == "compact_boundary"]
    starts = [0] + [n + 1 for n in bound_lines]  # a span begins after the previous summary
    for c, lo, hi in zip(t.compactions, starts[:-1], bound_lines, strict=True):
        report = audit_compaction(t, c.id)
        assert report.compaction_id == c.id
        assert report.checks and report.passed == all(k.passed for k in report.checks)
        span_lines = {t.entry(i).line for i in report.summarized_entry_ids}
        want = {i + 1 for i, o in enumerate(raw)
                if lo < i + 1 < hi and o.get("uuid") and not o.get("isCompactSummary")}
        assert span_lines == want
        assert report.summary_chars == len(c.summary or "")
