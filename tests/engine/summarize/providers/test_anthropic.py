"""The Anthropic Messages provider against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import pytest

from fixtures.llm_wire import Act, FakeSleep, WireServer, policy, request
from sessionlens.engine.errors import (
    ContextOverflowError,
    ProviderError,
    ProviderTimeoutError,
    ProviderUnavailableError,
)
from sessionlens.engine.summarize.providers import (
    ProviderProfile,
    build_provider,
    complete_with_retry,
)
from sessionlens.engine.summarize.providers.anthropic import ANTHROPIC_VERSION, messages_url

KEY = "sk-ant-api03-notreal-0123456789abcdefghij"


def profile(wire: WireServer, **kw: object) -> ProviderProfile:
    return wire.profile("anthropic", **{"name": "wire-claude", "model": "claude-x",
                                        "key_env": "SESSIONLENS_TEST_ANTHROPIC", **kw})


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SESSIONLENS_TEST_ANTHROPIC", KEY)


def test_url_rules() -> None:
    assert messages_url("https://api.anthropic.com") == "https://api.anthropic.com/v1/messages"
    assert messages_url("https://proxy.example/v1") == "https://proxy.example/v1/messages"


@pytest.mark.asyncio
async def test_streaming_events_text_usage_headers(wire: WireServer) -> None:
    wire.acts.append(Act("stream", text="## Decisions\n- keep it", usage=(400, 22)))
    deltas: list[str] = []
    done = await build_provider(profile(wire)).complete(request(), on_delta=deltas.append)
    assert done.text.strip() == "## Decisions\n- keep it" and len(deltas) >= 2
    assert (done.usage.input_tokens, done.usage.output_tokens) == (400, 22)
    assert done.usage.cache_read_tokens == 7
    assert done.stop_reason == "end_turn" and done.model == "wire-claude"
    sent = wire.seen[0]
    assert sent.path == "/v1/messages"
    assert sent.headers["x-api-key"] == KEY
    assert sent.headers["anthropic-version"] == ANTHROPIC_VERSION
    assert "authorization" not in sent.headers
    assert sent.body["system"] == "system words" and sent.body["stream"] is True
    assert sent.body["messages"] == [{"role": "user", "content": "summarize this"}]


@pytest.mark.asyncio
async def test_529_overloaded_status_is_retried(wire: WireServer) -> None:
    wire.acts.extend([Act("status", status=529, body='{"type":"error","error":{"type":'
                          '"overloaded_error","message":"Overloaded"}}'), Act("stream", text="ok")])
    sleep = FakeSleep()
    done, attempts = await complete_with_retry(build_provider(profile(wire)), request(),
                                               policy(sleep))
    assert done.text.strip() == "ok" and attempts == 2 and sleep.waits == [0.5]


@pytest.mark.asyncio
async def test_overloaded_error_event_mid_stream_is_retried(wire: WireServer) -> None:
    wire.acts.extend([Act("stream", error_event="overloaded_error"), Act("stream", text="ok")])
    done, attempts = await complete_with_retry(build_provider(profile(wire)), request(),
                                               policy(FakeSleep()))
    assert done.text.strip() == "ok" and attempts == 2


@pytest.mark.asyncio
async def test_overloaded_three_times_is_unavailable(wire: WireServer) -> None:
    wire.default = Act("stream", error_event="overloaded_error")
    with pytest.raises(ProviderUnavailableError, match="HTTP 529"):
        await complete_with_retry(build_provider(profile(wire)), request(), policy(FakeSleep()))
    assert len(wire.seen) == 3


@pytest.mark.asyncio
async def test_429_retry_after_ms_is_honoured(wire: WireServer) -> None:
    wire.acts.extend([Act("status", status=429, headers={"retry-after-ms": "2500"},
                          body='{"type":"error","error":{"type":"rate_limit_error"}}'),
                      Act("stream", text="ok")])
    sleep = FakeSleep()
    await complete_with_retry(build_provider(profile(wire)), request(), policy(sleep))
    assert sleep.waits == [2.5]


@pytest.mark.asyncio
async def test_cut_stream_without_message_stop_is_retried(wire: WireServer) -> None:
    wire.acts.extend([Act("cut", text="a b c d e f g h"), Act("stream", text="full")])
    done, attempts = await complete_with_retry(build_provider(profile(wire)), request(),
                                               policy(FakeSleep()))
    assert done.text.strip() == "full" and attempts == 2


@pytest.mark.asyncio
async def test_cut_every_time_is_a_clear_error(wire: WireServer) -> None:
    wire.default = Act("cut", text="a b c d e f g h")
    with pytest.raises(ProviderError, match="cut"):
        await complete_with_retry(build_provider(profile(wire)), request(), policy(FakeSleep()))


@pytest.mark.asyncio
async def test_malformed_and_empty_answers(wire: WireServer) -> None:
    wire.acts.extend([Act("malformed", text="x"), Act("stream", text=" ")] * 2)
    with pytest.raises(ProviderError, match="malformed|empty"):
        await complete_with_retry(build_provider(profile(wire)), request(),
                                  policy(FakeSleep(), attempts=2))
    assert len(wire.seen) == 2


@pytest.mark.asyncio
async def test_prompt_too_long_is_overflow_not_retried(wire: WireServer) -> None:
    wire.default = Act("status", status=400, body='{"type":"error","error":{"type":'
                       '"invalid_request_error","message":"prompt is too long: 210000 tokens '
                       '> 200000 maximum"}}')
    with pytest.raises(ContextOverflowError):
        await complete_with_retry(build_provider(profile(wire)), request(), policy(FakeSleep()))
    assert len(wire.seen) == 1


@pytest.mark.asyncio
async def test_timeout(wire: WireServer) -> None:
    wire.default = Act("stall", seconds=3.0)
    with pytest.raises(ProviderTimeoutError):
        await complete_with_retry(build_provider(profile(wire, timeout_s=0.2)), request(),
                                  policy(FakeSleep(), attempts=1))
