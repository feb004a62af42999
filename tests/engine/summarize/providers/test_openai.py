"""The OpenAI Chat Completions provider against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import httpx
import pytest

from fixtures.llm_wire import Act, FakeSleep, WireServer, policy, request
from sessionlens.engine.errors import (
    ContextOverflowError,
    ProviderAuthError,
    ProviderError,
    ProviderTimeoutError,
    ProviderUnavailableError,
)
from sessionlens.engine.summarize.providers import (
    FallbackChain,
    ProviderProfile,
    build_provider,
    complete_with_retry,
)
from sessionlens.engine.summarize.providers.openai import chat_completions_url

KEY = "sk-test-not-a-real-key-1234567890abcdef"


def profile(wire: WireServer, **kw: object) -> ProviderProfile:
    return wire.profile("openai", **{"key_env": "SESSIONLENS_TEST_KEY", **kw})


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SESSIONLENS_TEST_KEY", KEY)


def test_url_rules() -> None:
    assert chat_completions_url("https://api.openai.com/v1") == \
        "https://api.openai.com/v1/chat/completions"
    assert chat_completions_url("http://127.0.0.1:8080") == \
        "http://127.0.0.1:8080/v1/chat/completions"
    assert chat_completions_url("https://openrouter.ai/api/v1/") == \
        "https://openrouter.ai/api/v1/chat/completions"


@pytest.mark.asyncio
async def test_streaming_answer_usage_and_wire_format(wire: WireServer) -> None:
    wire.acts.append(Act("stream", text="## Goal\n- ship the parser today", usage=(321, 17)))
    deltas: list[str] = []
    done = await build_provider(profile(wire)).complete(request(), on_delta=deltas.append)
    assert done.text == "## Goal\n- ship the parser today"
    assert len(deltas) > 1 and "".join(deltas) == done.text
    assert (done.usage.input_tokens, done.usage.output_tokens) == (321, 17)
    assert done.stop_reason == "stop" and done.model == "wire-model"
    sent = wire.seen[0]
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["authorization"] == f"Bearer {KEY}"
    assert sent.body["stream"] is True and sent.body["stream_options"] == {"include_usage": True}
    assert [m["role"] for m in sent.body["messages"]] == ["system", "user"]
    assert sent.body["model"] == "m-1" and sent.body["max_tokens"] == 200


@pytest.mark.asyncio
async def test_non_streaming_json_answer_is_read(wire: WireServer) -> None:
    wire.acts.append(Act("json", text="plain answer", usage=(10, 2)))
    done = await build_provider(profile(wire)).complete(request())
    assert done.text == "plain answer" and done.usage.output_tokens == 2


@pytest.mark.asyncio
async def test_429_waits_retry_after_then_succeeds(wire: WireServer) -> None:
    wire.acts.extend([Act("status", status=429, body='{"error":{"message":"Rate limit"}}',
                          headers={"retry-after": "7"}), Act("stream", text="fine")])
    sleep = FakeSleep()
    done, attempts = await complete_with_retry(build_provider(profile(wire)), request(),
                                               policy(sleep))
    assert done.text == "fine" and attempts == 2 and sleep.waits == [7.0]


@pytest.mark.asyncio
async def test_500_twice_backs_off_exponentially(wire: WireServer) -> None:
    wire.acts.extend([Act("status", status=500, body="boom"), Act("status", status=502),
                      Act("stream", text="third time")])
    sleep = FakeSleep()
    done, attempts = await complete_with_retry(build_provider(profile(wire)), request(),
                                               policy(sleep))
    assert (done.text, attempts, sleep.waits) == ("third time", 3, [0.5, 1.0])


@pytest.mark.asyncio
async def test_500_three_times_is_a_clear_error(wire: WireServer) -> None:
    wire.default = Act("status", status=503, body='{"error":{"message":"upstream down"}}')
    sleep = FakeSleep()
    with pytest.raises(ProviderUnavailableError) as info:
        await complete_with_retry(build_provider(profile(wire)), request(), policy(sleep))
    assert "HTTP 503" in str(info.value) and "upstream down" in str(info.value)
    assert "after 3 attempts" in str(info.value) and len(wire.seen) == 3


@pytest.mark.asyncio
async def test_timeout_is_retried_then_reported(wire: WireServer) -> None:
    wire.default = Act("stall", seconds=3.0)
    sleep = FakeSleep()
    with pytest.raises(ProviderTimeoutError) as info:
        await complete_with_retry(build_provider(profile(wire, timeout_s=0.2)), request(),
                                  policy(sleep, attempts=2))
    assert "no answer within 0.2s" in str(info.value) and len(wire.seen) == 2


@pytest.mark.asyncio
async def test_malformed_json_in_stream_is_retried(wire: WireServer) -> None:
    wire.acts.extend([Act("malformed", text="a b c"), Act("stream", text="good")])
    sleep = FakeSleep()
    done, attempts = await complete_with_retry(build_provider(profile(wire)), request(),
                                               policy(sleep))
    assert done.text == "good" and attempts == 2


@pytest.mark.asyncio
async def test_malformed_every_time_names_the_problem(wire: WireServer) -> None:
    wire.default = Act("malformed", text="x y")
    with pytest.raises(ProviderError, match="malformed JSON"):
        await complete_with_retry(build_provider(profile(wire)), request(), policy(FakeSleep()))


@pytest.mark.asyncio
async def test_empty_completion_falls_back_to_the_next_model(wire: WireServer) -> None:
    wire.chooser = lambda seen: Act("stream", text="") if seen.body["model"] == "m-1" else \
        Act("stream", text="from the backup")
    chain = FallbackChain([build_provider(profile(wire)),
                           build_provider(profile(wire, name="backup", model="m-2"))],
                          policy(FakeSleep()))
    falls: list[str] = []
    outcome = await chain.run(request(), on_fallback=lambda a, e, b: falls.append(f"{a}->{b}"))
    assert outcome.completion.text == "from the backup" and outcome.provider == "backup"
    assert outcome.attempts == 4 and falls == ["wire-openai->backup"]
    assert "empty completion" in outcome.failures[0]


@pytest.mark.asyncio
async def test_stream_cut_in_the_middle_is_retried(wire: WireServer) -> None:
    wire.acts.extend([Act("cut", text="one two three four five six"),
                      Act("stream", text="whole answer")])
    done, attempts = await complete_with_retry(build_provider(profile(wire)), request(),
                                               policy(FakeSleep()))
    assert done.text == "whole answer" and attempts == 2


@pytest.mark.asyncio
async def test_overflow_is_not_retried(wire: WireServer) -> None:
    wire.default = Act("status", status=400, body='{"error":{"message":"This model\'s maximum '
                       'context length is 8192 tokens. However, you requested 9000 tokens"}}')
    with pytest.raises(ContextOverflowError):
        await complete_with_retry(build_provider(profile(wire)), request(), policy(FakeSleep()))
    assert len(wire.seen) == 1


@pytest.mark.asyncio
async def test_rejected_key_is_not_retried_and_key_never_shows(wire: WireServer) -> None:
    wire.default = Act("status", status=401, body='{"error":{"message":"invalid api key"}}')
    provider = build_provider(profile(wire))
    with pytest.raises(ProviderAuthError) as info:
        await complete_with_retry(provider, request(), policy(FakeSleep()))
    assert len(wire.seen) == 1
    for text in (str(info.value), repr(provider), repr(provider.profile)):
        assert KEY not in text
    assert "SESSIONLENS_TEST_KEY" in str(info.value)


@pytest.mark.asyncio
async def test_missing_key_fails_before_any_request(wire: WireServer,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SESSIONLENS_TEST_KEY")
    with pytest.raises(ProviderAuthError, match="SESSIONLENS_TEST_KEY"):
        await build_provider(profile(wire)).complete(request())
    assert wire.seen == []


@pytest.mark.asyncio
async def test_shared_client_is_used_and_left_open(wire: WireServer) -> None:
    async with httpx.AsyncClient() as client:
        provider = build_provider(profile(wire), client)
        await provider.complete(request())
        await provider.complete(request())
        assert not client.is_closed
    assert len(wire.seen) == 2


@pytest.mark.asyncio
async def test_unreachable_server_is_a_provider_error() -> None:
    dead = ProviderProfile(name="dead", kind="openai", base_url="http://127.0.0.1:9/v1",
                           model="m", timeout_s=2.0)
    with pytest.raises(ProviderError, match="cannot reach"):
        await complete_with_retry(build_provider(dead), request(), policy(FakeSleep(), 1))


@pytest.mark.asyncio
async def test_a_key_echoed_by_the_server_is_scrubbed(wire: WireServer) -> None:
    wire.default = Act("status", status=401,
                       body='{"error":{"message":"Incorrect API key provided: ' + KEY + '"}}')
    with pytest.raises(ProviderAuthError) as info:
        await build_provider(profile(wire)).complete(request())
    assert KEY not in str(info.value) and "[REDACTED:" in str(info.value)
