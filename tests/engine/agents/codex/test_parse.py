"""Codex adapter: rollouts built in code, plus the real sample 09.

Sample counts are derived here from the raw JSON lines, never copied from the adapter.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from fixtures.agent_lines import CX_P as P
from fixtures.agent_lines import CX_SID as SID
from fixtures.agent_lines import META, TURN, event, item, rec, text_msg, usage
from fixtures.agent_lines import cx_load as load
from fixtures.samples import sample_path
from sessionlens.engine.agents.codex.compacted import SUMMARY_PREFIX
from sessionlens.engine.agents.codex.items import CONTEXT_PREFIXES
from sessionlens.engine.agents.codex.parse import rollout_session_id
from sessionlens.engine.audit.report import audit_compaction
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.model import ImageBlock, TextBlock, ThinkingBlock, ToolCallBlock
from sessionlens.engine.tokens.counts import count_tokens

# ----------------------------------------------------------------------------- synthetic


def test_session_meta_is_the_header_and_ids_follow_line_numbers() -> None:
    t = load(META, TURN, text_msg("user", "hello"), text_msg("assistant", "hi"))
    assert t.format == "codex"
    h = t.header
    assert h is not None and h.id == SID and h.cwd == "/w" and h.line == 1
    assert h.provider == "openai" and h.model_id == "gpt-5.4"
    assert h.extra["cli_version"] == "0.117.0" and h.extra["git"] == {"branch": "main"}
    assert [e.id for e in t.entries] == ["00000002", "00000003", "00000004"]
    assert [e.parent_id for e in t.entries] == [None, "00000002", "00000003"]
    assert t.leaf_id == "00000004" and len(t.active_path) == 3
    change = t.entries[0]
    assert change.type == "model_change" and change.model_id == "gpt-5.4"
    assert change.extra["effort"] == "high"
    a = t.entries[2].message
    assert a is not None and (a.model, a.provider, a.api) == ("gpt-5.4", "openai",
                                                              "openai-responses")


def test_roles_reasoning_and_injected_context() -> None:
    t = load(
        META,
        item("message", role="developer", content=[{"type": "input_text", "text": "rules"}]),
        text_msg("user", "<environment_context>\n  <cwd>/w</cwd>\n</environment_context>"),
        item("message", role="user", content=[
            {"type": "input_text", "text": "see"},
            {"type": "input_image", "image_url": "data:image/png;base64,AAAA"}]),
        item("reasoning", summary=[{"type": "summary_text", "text": "plan it"}],
             content=None, encrypted_content="gAAA"),
        item("reasoning", summary=[], content=None, encrypted_content="gAAAAB"),
    )
    roles = [(e.role, e.message.custom_type) for e in t.entries if e.message is not None]
    assert roles == [("custom", "codex.developer"), ("custom", "codex.context"),
                     ("user", None), ("assistant", None), ("assistant", None)]
    assert t.entries[2].message.content == (  # type: ignore[union-attr]
        TextBlock("see"), ImageBlock("image/png", "AAAA"))
    assert t.entries[3].message.content == (ThinkingBlock("plan it"),)  # type: ignore[union-attr]
    assert t.entries[4].message.content == (  # type: ignore[union-attr]
        ThinkingBlock("", redacted=True),)
    assert t.entries[4].extra["encrypted_chars"] == 6


def test_tool_calls_pair_with_their_outputs() -> None:
    t = load(
        META,
        item("function_call", name="shell_command", arguments='{"command": "ls"}',
             call_id="c1"),
        item("function_call_output", call_id="c1", output="a.md\nb.md"),
        item("custom_tool_call", name="apply_patch", input="*** Begin Patch", call_id="c2",
             status="completed"),
        item("custom_tool_call_output", call_id="c2", output='{"output": "Success"}'),
        item("function_call", name="broken", arguments="{not json", call_id="c3"),
        item("function_call_output", call_id="c3",
             output={"content": "failed", "success": False}),
        item("web_search_call", status="completed", action={"type": "search", "query": "q"}),
    )
    msgs = [e.message for e in t.entries if e.message is not None]
    assert msgs[0] is not None and msgs[0].content == (
        ToolCallBlock("c1", "shell_command", {"command": "ls"}),)
    assert (msgs[1].role, msgs[1].tool_call_id, msgs[1].tool_name) == (  # type: ignore[union-attr]
        "toolResult", "c1", "shell_command")
    assert msgs[2].tool_calls[0].arguments == {"input": "*** Begin Patch"}  # type: ignore[union-attr]
    assert msgs[3].tool_name == "apply_patch"  # type: ignore[union-attr]
    broken = msgs[4].tool_calls[0]  # type: ignore[union-attr]
    assert broken.arguments == "{not json" and broken.partial_json == "{not json"
    assert msgs[5].is_error and msgs[5].text == "failed"  # type: ignore[union-attr]
    assert msgs[6].role == "assistant" and msgs[6].text == "[web_search] q"  # type: ignore[union-attr]
    assert not msgs[6].tool_calls  # type: ignore[union-attr]


def test_events_are_kept_out_of_context_and_token_counts_reach_usage() -> None:
    t = load(
        META,
        event("token_count", info=None, rate_limits={}),
        event("user_message", message="hello", images=[]),
        text_msg("user", "hello"),
        event("agent_message", message="hi there"),
        text_msg("assistant", "hi there"),
        item("function_call", name="f", arguments="{}", call_id="c1"),
        event("token_count", info=usage(5000, cached=4000)),
        item("function_call_output", call_id="c1", output="x"),
        event("token_count", info=usage(6000)),
        event("turn_aborted", turn_id="t1", reason="interrupted"),
        event("error", message="stream disconnected: 429 Too Many Requests"),
    )
    types = Counter(e.type for e in t.entries)
    assert types == Counter({"token_count": 3, "user_message": 1, "agent_message": 1,
                             "message": 5, "turn_aborted": 1})
    assert [c.role for c in t.context] == ["user", "assistant", "assistant", "toolResult",
                                           "assistant"]
    hi, call = t.entry("00000006"), t.entry("00000007")
    assert hi.message is not None and hi.message.usage is None
    assert call.message is not None and call.message.usage is not None
    u = call.message.usage
    assert (u.input, u.cache_read, u.output, u.total_tokens) == (990, 4000, 10, 5000)
    assert t.entry("00000008").extra["usage"]["total_tokens"] == 5000
    # the third count follows only a tool output: nothing to attach it to
    assert sum(1 for e in t.entries if e.message is not None and e.message.usage) == 1
    assert t.entry("0000000b").reason == "interrupted"
    err = t.entry("0000000c").message
    assert err is not None and err.stop_reason == "error"
    assert err.error_message == "stream disconnected: 429 Too Many Requests"


def test_compacted_is_a_compaction_with_its_replacement_history() -> None:
    history = [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "ask"}]},
        {"type": "message", "role": "assistant",
         "content": [{"type": "output_text", "text": "did it"}]},
        {"type": "compaction", "encrypted_content": "gAAAA"},
    ]
    t = load(
        META, text_msg("user", "ask"), text_msg("assistant", "did it"),
        event("token_count", info=usage(200000)),
        rec("compacted", message="", replacement_history=history),
        event("context_compacted"),
        text_msg("user", "next"),
        rec("compacted", message="Short summary of the work."),
    )
    first, second = t.compactions
    assert first.id == "00000005" and first.first_kept_entry_id == first.id
    assert first.tokens_before == 200000
    # a remote compaction: the summary is encrypted, the kept messages are no summary text
    assert first.summary == "[compaction: encrypted summary, 5 chars]"
    assert first.extra["summary_source"] == "encrypted" and first.extra["kept_items"] == 2
    kept = [e for e in t.entries if e.extra.get("codex_type") == "compacted.replacement_history"]
    assert [(e.id, e.message.role, e.message.text) for e in kept if e.message] == [
        ("00000005.k000", "user", "ask"), ("00000005.k001", "assistant", "did it")]
    assert first.extra["summary_after"] == "00000005.k001"
    assert second.summary == "Short summary of the work."
    assert second.extra["summary_source"] == "message" and second.extra["kept_items"] == 0
    assert [(c.kind, c.entry_id) for c in t.context] == [("compaction_summary", "00000008")]


def test_codex_local_compaction_summary_follows_the_kept_messages() -> None:
    """Codex 0.17x: ``message`` is the summary; it closes ``replacement_history``."""
    summary = SUMMARY_PREFIX + "\n## Goal\n- g"
    history = [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "ask"}]},
        {"type": "message", "role": "developer",
         "content": [{"type": "input_text", "text": "<permissions instructions>"}]},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "more"}]},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": summary}]},
    ]
    t = load(META, event("task_started", turn_id="t1", model_context_window=258400),
             text_msg("user", "ask"), text_msg("assistant", "ok"),
             event("token_count", info=usage(11141)),
             rec("compacted", message=summary, replacement_history=history),
             text_msg("user", "next"))
    (c,) = t.compactions
    assert c.summary == summary and c.extra["summary_body_chars"] == len("## Goal\n- g")
    assert c.extra["trigger"] == "auto" and c.tokens_before == 11141
    assert [(i.kind, i.role) for i in t.context] == [
        ("message", "user"), ("message", "custom"), ("message", "user"),
        ("compaction_summary", "compactionSummary"), ("message", "user")]


def test_a_rollout_without_session_meta_takes_its_id_from_the_file_name() -> None:
    assert rollout_session_id(P) == SID
    t = load(text_msg("user", "hi"))
    assert t.header is not None and t.header.id == SID and t.header.line == 0
    assert any("no session_meta" in d.reason for d in t.diagnostics)


def test_unknown_types_are_kept_as_entries() -> None:
    t = load(META, rec("future_line", x=1), item("ghost_snapshot", ghost_commit={}),
             event("mcp_tool_call_end", call_id="m1"))
    assert [e.type for e in t.entries] == ["future_line", "ghost_snapshot", "mcp_tool_call_end"]
    assert t.context == ()
    # a record kind the reader does not know is named once, with its first line
    assert [(d.line, d.severity, d.reason.split(":")[0]) for d in t.diagnostics] == [
        (2, "warning", "future_line")]


# ----------------------------------------------------------------------------- sample 09


def _role_of(payload: dict[str, Any]) -> str | None:
    """The role a response item maps to, worked out from the raw payload."""
    ptype = payload.get("type")
    if ptype == "message":
        role = payload["role"]
        if role == "developer":
            return "custom"
        if role == "user":
            first = next((p.get("text", "") for p in payload["content"]
                          if p.get("type") == "input_text"), "")
            return "custom" if first.lstrip().startswith(CONTEXT_PREFIXES) else "user"
        return "assistant"
    if ptype in ("reasoning", "function_call", "custom_tool_call", "web_search_call"):
        return "assistant"
    if ptype in ("function_call_output", "custom_tool_call_output"):
        return "toolResult"
    return None


@pytest.fixture(scope="module")
def sample09(samples_dir: Path) -> tuple[Path, list[dict[str, Any]]]:
    path = sample_path(samples_dir, "09_")
    return path, [json.loads(x) for x in path.read_bytes().splitlines() if x.strip()]


@pytest.mark.samples
def test_sample09_entry_and_role_counts(sample09: tuple[Path, list[dict[str, Any]]]) -> None:
    path, raw = sample09
    t = load_transcript(path)
    assert t.format == "codex" and t.diagnostics == ()
    assert raw[0]["type"] == "session_meta" and t.header is not None
    assert t.header.id == raw[0]["payload"]["id"] and t.header.cwd == raw[0]["payload"]["cwd"]
    kept = [h for o in raw if o["type"] == "compacted"
            for h in o["payload"].get("replacement_history") or [] if h["type"] != "compaction"]
    assert len(t.entries) == len(raw) - 1 + len(kept)
    roles: Counter[str] = Counter(_role_of(h) for h in kept)
    events: Counter[str] = Counter()
    for o in raw:
        if o["type"] == "response_item":
            role = _role_of(o["payload"])
            assert role is not None
            roles[role] += 1
        elif o["type"] == "event_msg" and o["payload"]["type"] == "error":
            roles["assistant"] += 1
        elif o["type"] == "event_msg":
            events[o["payload"]["type"]] += 1
    assert Counter(e.role for e in t.entries if e.message is not None) == roles
    got_events = Counter(e.type for e in t.entries
                         if str(e.extra.get("codex_type", "")).startswith("event_msg."))
    assert got_events == events
    turns = sum(1 for o in raw if o["type"] == "turn_context")
    assert Counter(e.type for e in t.entries)["model_change"] == turns


@pytest.mark.samples
def test_sample09_compaction_and_tokens(sample09: tuple[Path, list[dict[str, Any]]]) -> None:
    path, raw = sample09
    t = load_transcript(path)
    where = [i for i, o in enumerate(raw) if o["type"] == "compacted"]
    assert len(t.compactions) == len(where) == 1
    c, at = t.compactions[0], where[0]
    counts = [o["payload"]["info"]["last_token_usage"]["total_tokens"] for o in raw[:at]
              if o["type"] == "event_msg" and o["payload"]["type"] == "token_count"
              and o["payload"]["info"]]
    assert c.tokens_before == counts[-1]
    assert c.line == at + 1 and c.first_kept_entry_id == c.id
    history = raw[at]["payload"]["replacement_history"]
    # the kept messages follow the compaction as entries; the summary (encrypted) is none of them
    assert c.extra["kept_items"] == len(history) - 1 and c.extra["summary_source"] == "encrypted"
    enc = next(h for h in history if h["type"] == "compaction")["encrypted_content"]
    assert c.summary == f"[compaction: encrypted summary, {len(enc)} chars]"
    kinds = [i.kind for i in t.context]
    assert kinds[len(history) - 1] == "compaction_summary" and kinds.count("compaction_summary") == 1
    # Reported tokens: the file ends on a token count whose usage sits on the last reply.
    last_count = [o for o in raw if o["type"] == "event_msg"
                  and o["payload"]["type"] == "token_count" and o["payload"]["info"]][-1]
    want = last_count["payload"]["info"]["last_token_usage"]["total_tokens"]
    assert count_tokens(t).reported_context == want


@pytest.mark.samples
def test_sample09_tool_calls_pair_with_outputs(
        sample09: tuple[Path, list[dict[str, Any]]]) -> None:
    path, raw = sample09
    t = load_transcript(path)
    calls = {o["payload"]["call_id"]: o["payload"]["name"] for o in raw
             if o["type"] == "response_item"
             and o["payload"]["type"] in ("function_call", "custom_tool_call")}
    outputs = [o["payload"]["call_id"] for o in raw if o["type"] == "response_item"
               and o["payload"]["type"] in ("function_call_output", "custom_tool_call_output")]
    assert sorted(outputs) == sorted(calls)
    got_calls = {b.id: b.name for e in t.entries if e.message is not None
                 for b in e.message.tool_calls}
    got_results = [(e.message.tool_call_id, e.message.tool_name) for e in t.entries
                   if e.message is not None and e.message.role == "toolResult"]
    assert got_calls == calls
    assert [r[0] for r in got_results] == outputs
    assert all(name == calls[cid] for cid, name in got_results)


@pytest.mark.samples
def test_sample09_every_recorded_compaction_audits(
        sample09: tuple[Path, list[dict[str, Any]]]) -> None:
    path, raw = sample09
    t = load_transcript(path)
    at = next(i for i, o in enumerate(raw) if o["type"] == "compacted")
    for c in t.compactions:
        report = audit_compaction(t, c.id)
        assert report.compaction_id == c.id
        assert report.checks and report.passed == all(k.passed for k in report.checks)
        # the span is every entry before the compaction (the header line is no entry)
        assert {t.entry(i).line for i in report.summarized_entry_ids} == set(range(2, at + 1))
        assert report.summary_chars == len(c.summary or "")
