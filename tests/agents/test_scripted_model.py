"""The scripted model speaks each wire as the agents read it, and records what they send."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from fixtures.scripted_model import Reply, Script, ScriptedModel, ToolCall, mentions


@pytest.fixture
def model() -> Iterator[ScriptedModel]:
    script = Script.of([Reply("first"), Reply("", (ToolCall("Bash", {"command": "ls"}),)),
                        Reply(error="overloaded")], fallback=Reply("later"))
    script.when(mentions("summarize the conversation"), Reply("## Goal\n- the summary"))
    with ScriptedModel(script) as server:
        yield server


def _events(text: str) -> list[dict[str, Any]]:
    return [json.loads(line[6:]) for line in text.splitlines()
            if line.startswith("data: ") and line != "data: [DONE]"]


def test_anthropic_stream_text_then_tool_call_then_error(model: ScriptedModel) -> None:
    body = {"model": "claude-x", "stream": True, "max_tokens": 10,
            "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]}
    first = _events(httpx.post(model.url + "/v1/messages", json=body).text)
    assert [e["type"] for e in first][0] == "message_start"
    assert "".join(e["delta"]["text"] for e in first if e["type"] == "content_block_delta") \
        == "first"
    second = _events(httpx.post(model.url + "/v1/messages", json=body).text)
    tool = [e for e in second if e["type"] == "content_block_start"][0]["content_block"]
    assert tool["type"] == "tool_use" and tool["name"] == "Bash"
    assert [e for e in second if e["type"] == "message_delta"][0]["delta"]["stop_reason"] \
        == "tool_use"
    third = httpx.post(model.url + "/v1/messages", json=body)
    assert third.status_code == 529 and third.json()["error"]["type"] == "overloaded_error"
    assert httpx.post(model.url + "/v1/messages", json=body | {"stream": False}).json()[
        "content"][0]["text"] == "later"
    assert len(model.of_wire("anthropic")) == 4 and model.requests[0].last_user_text() == "hi"


def test_rules_answer_first_and_count_tokens_is_not_recorded(model: ScriptedModel) -> None:
    body = {"model": "m", "messages": [
        {"role": "system", "content": "Please summarize the conversation so far."},
        {"role": "user", "content": "go"}]}
    answer = httpx.post(model.url + "/v1/chat/completions", json=body).json()
    assert answer["choices"][0]["message"]["content"] == "## Goal\n- the summary"
    counted = httpx.post(model.url + "/v1/messages/count_tokens", json=body).json()
    assert counted["input_tokens"] > 0
    assert len(model.requests) == 1 and "summarize" in model.requests[0].system_text()


def test_chat_stream_carries_tool_calls_and_usage(model: ScriptedModel) -> None:
    body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "a"}]}
    httpx.post(model.url + "/v1/chat/completions", json=body)
    chunks = _events(httpx.post(model.url + "/v1/chat/completions", json=body).text)
    calls = [c["choices"][0]["delta"]["tool_calls"][0] for c in chunks
             if c["choices"] and "tool_calls" in c["choices"][0]["delta"]]
    assert calls[0]["function"]["name"] == "Bash"
    assert json.loads(calls[0]["function"]["arguments"]) == {"command": "ls"}
    assert chunks[-1]["usage"]["prompt_tokens"] > 0


def test_responses_stream_and_gemini(model: ScriptedModel) -> None:
    body = {"model": "gpt-x", "stream": True, "input": [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "q"}]}]}
    events = _events(httpx.post(model.url + "/v1/responses", json=body).text)
    assert events[0]["type"] == "response.created"
    done = events[-1]["response"]
    assert done["output"][0]["content"][0]["text"] == "first"
    assert done["usage"]["input_tokens"] > 0
    assert model.requests[0].last_user_text() == "q"
    gem = httpx.post(model.url + "/v1beta/models/gemini-x:streamGenerateContent?alt=sse",
                     json={"contents": [{"role": "user", "parts": [{"text": "g"}]}]})
    part = _events(gem.text)[0]["candidates"][0]["content"]["parts"][0]
    assert part["functionCall"]["name"] == "Bash"
    assert model.requests[1].model == "gemini-x" and model.requests[1].wire == "gemini"


def test_overflow_reads_as_each_wire_says_it() -> None:
    with ScriptedModel(lambda r: Reply(error="overflow")) as server:
        a = httpx.post(server.url + "/v1/messages", json={"messages": []}).json()
        o = httpx.post(server.url + "/v1/chat/completions", json={"messages": []}).json()
    assert "prompt is too long" in a["error"]["message"]
    assert o["error"]["code"] == "context_length_exceeded"
