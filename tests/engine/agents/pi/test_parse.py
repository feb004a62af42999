"""pi / OpenClaw parsing: every entry type, role and block, migration, and typed fields."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fixtures.factories import jsonl
from sessionlens.engine.agents.pi.parse import parse
from sessionlens.engine.load.formats import ParsedFile
from sessionlens.engine.load.reader import load_transcript_bytes
from sessionlens.engine.model import ImageBlock, TextBlock, ThinkingBlock, ToolCallBlock

P = Path("/virtual/s.jsonl")
HEADER3 = {"type": "session", "version": 3, "id": "sess-1", "timestamp": "2026-01-01T00:00:00Z",
           "cwd": "/w"}


def e(type: str, id: str, parent: str | None, **fields: Any) -> dict[str, Any]:
    return {"type": type, "id": id, "parentId": parent, "timestamp": "2026-01-01T00:00:01Z",
            **fields}


def msg(id: str, parent: str | None, role: str, **fields: Any) -> dict[str, Any]:
    return e("message", id, parent, message={"role": role, **fields})


def test_parsed_file_is_what_the_parser_returns() -> None:
    parsed = parse(jsonl(HEADER3, msg("a1", None, "user", content="hi")), P)
    assert isinstance(parsed, ParsedFile)
    assert parsed.format == "openclaw-v3"
    assert parsed.header is not None and parsed.header.id == "sess-1"
    assert parsed.header.cwd == "/w" and parsed.header.version == 3


def test_every_entry_type_is_read_with_its_fields() -> None:
    data = jsonl(
        HEADER3,
        e("model_change", "m1", None, provider="anthropic", modelId="claude"),
        e("thinking_level_change", "t1", "m1", thinkingLevel="high"),
        msg("u1", "t1", "user", content="hello", timestamp=1700000000000),
        e("compaction", "c1", "u1", summary="S", firstKeptEntryId="u1", tokensBefore=1234,
          details={"readFiles": ["a.py"], "modifiedFiles": ["b.py"]}, fromHook=True),
        e("branch_summary", "b1", "c1", fromId="u1", summary="branch", details={}),
        e("custom", "x1", "b1", customType="model-snapshot", data={"k": 1}),
        e("custom_message", "cm1", "x1", customType="note", content="injected", display=False),
        e("label", "l1", "cm1", targetId="u1", label="start"),
        e("session_info", "si1", "l1", name="My session"),
        e("reset", "r1", "si1", reason="daily", firstKeptEntryId="cm1"),
        e("leaf", "lf1", "r1", targetId="r1", appendParentId="r1"),
        e("plugin_row", "p1", "r1", anything=[1, 2]),
    )
    parsed = parse(data, P)
    assert parsed.diagnostics == ()
    by = {x.id: x for x in parsed.entries}
    assert [x.type for x in parsed.entries] == [
        "model_change", "thinking_level_change", "message", "compaction", "branch_summary",
        "custom", "custom_message", "label", "session_info", "reset", "leaf", "plugin_row"]
    assert (by["m1"].provider, by["m1"].model_id) == ("anthropic", "claude")
    assert by["t1"].thinking_level == "high"
    c = by["c1"]
    assert (c.summary, c.first_kept_entry_id, c.tokens_before, c.from_hook) == ("S", "u1", 1234,
                                                                                True)
    assert c.file_ops is not None and c.file_ops.read_files == ("a.py",)
    assert c.file_ops.modified_files == ("b.py",)
    assert (by["b1"].from_id, by["b1"].summary) == ("u1", "branch")
    assert (by["x1"].custom_type, by["x1"].data) == ("model-snapshot", {"k": 1})
    cm = by["cm1"]
    assert cm.content == (TextBlock("injected"),) and cm.display is False
    assert (by["l1"].target_id, by["l1"].label) == ("u1", "start")
    assert by["si1"].name == "My session"
    assert (by["r1"].reason, by["r1"].first_kept_entry_id) == ("daily", "cm1")
    assert (by["lf1"].target_id, by["lf1"].append_parent_id) == ("r1", "r1")
    assert not by["p1"].is_known_type and by["p1"].parent_id == "r1"
    user = by["u1"].message
    assert user is not None and user.content_is_string and user.text == "hello"
    assert user.timestamp_ms == 1700000000000


def test_every_role_and_block_with_real_data_extras() -> None:
    assistant = {
        "content": [
            {"type": "thinking", "thinking": "hmm", "thinkingSignature": "sig-t"},
            {"type": "thinking", "thinking": "", "redacted": True},
            {"type": "text", "text": "answer", "textSignature": "sig-x"},
            {"type": "toolCall", "id": "call_1|fc_2", "name": "read", "arguments": {"p": 1},
             "partialJson": "{\"p\":1}", "thoughtSignature": "ts"},
        ],
        "api": "openai-responses", "provider": "openclaw", "model": "gateway-injected",
        "usage": {"input": 10, "output": 5, "cacheRead": 2, "cacheWrite": 1, "totalTokens": 18,
                  "cost": {"total": 0.5}, "contextUsage": {"state": "available",
                                                           "totalTokens": 99}},
        "stopReason": "toolUse", "timestamp": 1,
    }
    data = jsonl(
        HEADER3,
        msg("u1", None, "user", content=[{"type": "text", "text": "see"},
                                         {"type": "image", "data": "QUJD",
                                          "mimeType": "image/png"}]),
        msg("a1", "u1", "assistant", **assistant),
        msg("t1", "a1", "toolResult", toolCallId="call_1|fc_2", toolName="read",
            content=[{"type": "text", "text": "file"}], details={"diff": "x"}, isError=True),
        msg("a2", "t1", "assistant", content=[], stopReason="error", errorMessage="fetch failed"),
        msg("bx", "a2", "bashExecution", command="ls", output="a\n", exitCode=0, cancelled=False,
            truncated=True, fullOutputPath="/tmp/o", excludeFromContext=True),
        msg("cu", "bx", "custom", customType="hook", content="plain", display=False),
    )
    parsed = parse(data, P)
    assert parsed.diagnostics == ()
    m = {x.id: x.message for x in parsed.entries}
    assert m["u1"] is not None and m["u1"].content == (TextBlock("see"),
                                                       ImageBlock("image/png", "QUJD"))
    a = m["a1"]
    assert a is not None
    assert a.content == (ThinkingBlock("hmm", False, "sig-t"), ThinkingBlock("", True, None),
                         TextBlock("answer", "sig-x"),
                         ToolCallBlock("call_1|fc_2", "read", {"p": 1}, "{\"p\":1}"))
    assert (a.api, a.provider, a.model, a.stop_reason) == ("openai-responses", "openclaw",
                                                           "gateway-injected", "toolUse")
    assert a.usage is not None and a.usage.cost_total == 0.5
    assert (a.usage.input, a.usage.output, a.usage.cache_read, a.usage.cache_write,
            a.usage.total_tokens) == (10, 5, 2, 1, 18)
    assert a.usage.context_tokens == 99  # contextUsage wins when "available"
    t = m["t1"]
    assert t is not None and (t.tool_call_id, t.tool_name, t.is_error) == ("call_1|fc_2",
                                                                           "read", True)
    a2 = m["a2"]
    assert a2 is not None and a2.content == () and a2.error_message == "fetch failed"
    b = m["bx"]
    assert b is not None and (b.command, b.output, b.exit_code) == ("ls", "a\n", 0)
    assert b.truncated and b.exclude_from_context and b.full_output_path == "/tmp/o"
    c = m["cu"]
    assert c is not None and (c.role, c.custom_type, c.display) == ("custom", "hook", False)


def test_v1_gets_line_ids_a_linear_chain_and_first_kept_from_the_line_index() -> None:
    header = {"type": "session", "id": "old", "timestamp": "t", "cwd": "/w",
              "provider": "anthropic", "modelId": "m", "thinkingLevel": "off",
              "branchedFrom": "/prev.jsonl"}
    body = [{"type": "message", "timestamp": "t", "message": {"role": "user", "content": "q"}},
            {"type": "message", "timestamp": "t",
             "message": {"role": "assistant", "content": [{"type": "text", "text": "a"}]}},
            {"type": "message", "timestamp": "t", "message": {"role": "user", "content": "q2"}},
            {"type": "compaction", "timestamp": "t", "summary": "S", "firstKeptEntryIndex": 3,
             "tokensBefore": 5}]
    parsed = parse(jsonl(header, *body), P)
    assert parsed.format == "pi-v1" and parsed.diagnostics == ()
    assert parsed.header is not None and parsed.header.branched_from == "/prev.jsonl"
    assert parsed.header.model_id == "m" and parsed.header.version == 1
    ids = [x.id for x in parsed.entries]
    assert ids == [f"{n:08x}" for n in range(2, 6)]
    assert [x.parent_id for x in parsed.entries] == [None] + ids[:-1]
    # index 3 with the header at 0 is the second user message (file line 4)
    assert parsed.entries[-1].first_kept_entry_id == "00000004"
    again = parse(jsonl(header, *body), P)
    assert [x.id for x in again.entries] == ids  # deterministic


def test_v2_hook_message_becomes_custom() -> None:
    header = {"type": "session", "version": 2, "id": "s2", "timestamp": "t", "cwd": "/"}
    data = jsonl(header, msg("h1", None, "hookMessage", customType="ext", content="x",
                          display=True))
    parsed = parse(data, P)
    assert parsed.format == "pi-v2"
    m = parsed.entries[0].message
    assert m is not None and m.role == "custom" and m.custom_type == "ext"


def test_offsets_and_lengths_point_at_each_line() -> None:
    objs = [HEADER3, msg("a", None, "user", content="x" * 50), msg("b", "a", "user", content="é")]
    data = jsonl(*objs, newline="\r\n")
    parsed = parse(data, P)
    for entry, obj in zip(parsed.entries, objs[1:], strict=True):
        assert json.loads(data[entry.offset:entry.offset + entry.length]) == obj


def test_wrong_typed_fields_are_diagnosed_and_defaulted() -> None:
    data = jsonl(HEADER3,
              e("compaction", "c1", None, summary=5, firstKeptEntryId=3, tokensBefore="many"),
              e("label", "l1", "c1", targetId=7, label="x"),
              e("message", "m1", "l1", message={"role": "user", "content": 42}),
              e("message", "m2", "m1", message={"role": "user",
                                                 "content": ["str", {"type": "video"}]}))
    t = load_transcript_bytes(data, P)
    assert [x.id for x in t.entries] == ["c1", "l1", "m1", "m2"]
    c = t.entry("c1")
    assert (c.summary, c.first_kept_entry_id, c.tokens_before) == ("", None, None)
    assert t.entry("l1").target_id is None
    lines = sorted({d.line or 0 for d in t.diagnostics})
    assert lines == [2, 3, 4, 5]
    reasons = " ".join(d.reason for d in t.diagnostics)
    for word in ("'summary'", "'firstKeptEntryId'", "'tokensBefore'", "targetId", "'content'",
                 "not an object", "'video'"):
        assert word in reasons


def test_odd_headers_are_diagnosed() -> None:
    data = jsonl({**HEADER3, "version": 9}, msg("a", None, "user", content="x"), HEADER3)
    parsed = parse(data, P)
    assert parsed.format == "openclaw-v3" and [x.id for x in parsed.entries] == ["a"]
    found = {d.line: d for d in parsed.diagnostics}
    assert "unknown header version 9" in found[1].reason
    assert "second 'session' header" in found[3].reason and found[3].severity == "warning"
    no_id = parse(jsonl({"type": "session", "version": 3}, msg("a", None, "user")), P)
    assert no_id.header is not None and no_id.header.id == ""
    assert "header has no string 'id'" in no_id.diagnostics[0].reason


def test_v1_first_kept_index_out_of_range_is_a_hard_boundary() -> None:
    header = {"type": "session", "id": "old", "timestamp": "t", "cwd": "/w"}
    body = [{"type": "message", "timestamp": "t", "message": {"role": "user", "content": "q"}},
            {"type": "compaction", "timestamp": "t", "summary": "S", "firstKeptEntryIndex": 40}]
    t = load_transcript_bytes(jsonl(header, *body), P)
    assert t.compactions[0].first_kept_entry_id is None
    assert "firstKeptEntryIndex 40 names no entry" in t.diagnostics[0].reason
    assert [c.kind for c in t.context] == ["compaction_summary"]


def test_headerless_v1_lines_still_chain() -> None:
    body = [{"type": "message", "timestamp": "t", "message": {"role": "user", "content": "q"}},
            {"type": "message", "timestamp": "t", "message": {"role": "user", "content": "r"}}]
    t = load_transcript_bytes(jsonl(*body), P)
    assert t.format == "pi-v1" and t.header is None
    assert t.active_path == ("00000001", "00000002")
    assert "missing header" in t.diagnostics[0].reason


def _assistant(id: str, parent: str | None, usage: dict[str, Any],
               content: list[Any] | None = None) -> dict[str, Any]:
    return msg(id, parent, "assistant", content=content or [{"type": "text", "text": "ok"}],
               api="a", provider="p", model="m", stopReason="stop", usage=usage)


def test_absurd_usage_numbers_are_diagnosed_and_never_the_context() -> None:
    from sessionlens.engine.tokens.counts import reported_usage_entry

    good = {"input": 900, "output": 100, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 1000}
    data = jsonl(HEADER3, msg("u1", None, "user", content="hi"), _assistant("a1", "u1", good),
              msg("u2", "a1", "user", content="more"),
              _assistant("a2", "u2", {**good, "totalTokens": 1e308, "input": -5,
                                      "output": 10**12, "cacheRead": "lots"}))
    t = load_transcript_bytes(data, P)
    usage = t.entry("a2").message.usage  # type: ignore[union-attr]
    assert usage is not None and (usage.total_tokens, usage.input, usage.output) == (0, 0, 0)
    said = [d for d in t.diagnostics if d.line == 5]
    text = " ".join(d.reason for d in said)
    for word in ("usage.totalTokens", "beyond any real context window", "usage.input",
                 "negative", "usage.output", "usage.cacheRead", "should be a number"):
        assert word in text, word
    used = reported_usage_entry(t)  # the context comes from the last sane report
    assert used is not None and used.id == "a1"


def test_wrongly_typed_blocks_are_diagnosed_with_their_line() -> None:
    data = jsonl(HEADER3, msg("u1", None, "user", content=[{"type": "text", "text": 5}]),
              _assistant("a1", "u1", {}, content=[
                  {"type": "toolCall", "id": "c1", "name": "bash", "arguments": "ls -la"},
                  {"type": "thinking", "thinking": ["x"]}]))
    t = load_transcript_bytes(data, P)
    by_line = {d.line: d.reason for d in t.diagnostics}
    assert "text block: 'text' should be a string, got int" in by_line[2]
    reasons = " ".join(d.reason for d in t.diagnostics if d.line == 3)
    assert "'arguments' should be an object, got str" in reasons
    assert "thinking block" in reasons
    assert all(d.path == str(P) for d in t.diagnostics)
    call = t.entry("a1").message.content[0]  # type: ignore[union-attr]
    assert isinstance(call, ToolCallBlock) and call.arguments == "ls -la"  # kept, not lost


def test_references_that_point_nowhere_are_diagnosed() -> None:
    data = jsonl(HEADER3, msg("u1", None, "user", content="a"), msg("u2", "u1", "user", content="b"),
              e("compaction", "c1", "u2", summary="s", firstKeptEntryId="gone", tokensBefore=9),
              e("label", "l1", "c1", targetId="nowhere", label="x"),
              e("leaf", "f1", "l1", targetId="missing"))
    t = load_transcript_bytes(data, P)
    by_line = {d.line: d.reason for d in t.diagnostics}
    assert "firstKeptEntryId 'gone' names no entry" in by_line[4]
    assert "'nowhere'" in by_line[5] and "missing entry 'missing'" in by_line[6]


def test_a_compaction_whose_summary_is_null_loads_with_a_diagnostic() -> None:
    """Issue 39 item 16: ``"summary": null`` (or no summary) is read as an empty summary
    and said, naming the file and the line."""
    from sessionlens.engine.load.reader import load_transcript_bytes

    lines = [
        {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-01-01T00:00:00Z",
         "cwd": "/w"},
        {"type": "message", "id": "a1", "parentId": None, "timestamp": "2026-01-01T00:00:01Z",
         "message": {"role": "user", "content": "hi"}},
        {"type": "compaction", "id": "c1", "parentId": "a1", "timestamp": "2026-01-01T00:00:02Z",
         "summary": None, "firstKeptEntryId": "a1", "tokensBefore": 10},
        {"type": "compaction", "id": "c2", "parentId": "c1", "timestamp": "2026-01-01T00:00:03Z",
         "firstKeptEntryId": "a1", "tokensBefore": 10},
    ]
    data = b"".join(json.dumps(x).encode() + b"\n" for x in lines)
    t = load_transcript_bytes(data, "/virtual/null-summary.jsonl")
    assert t.entry("c1").summary == "" and t.entry("c2").summary == ""
    said = {(d.path, d.line): d.reason for d in t.diagnostics}
    assert "'summary' is null" in said[("/virtual/null-summary.jsonl", 3)]
    assert "'summary' is missing" in said[("/virtual/null-summary.jsonl", 4)]
