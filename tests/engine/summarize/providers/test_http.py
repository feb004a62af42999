"""What every HTTP provider shares: a deadline per call, scrubbed error texts, and retries
that say why they were skipped (against the local wire server, both protocols)."""

from __future__ import annotations

import time

import pytest

from fixtures.llm_wire import Act, FakeSleep, WireServer, plan_for, policy, request
from fixtures.scenarios import small_transcript
from sessionlens.engine.errors import (
    ProviderAuthError,
    ProviderTimeoutError,
    ProviderUnavailableError,
)
from sessionlens.engine.summarize.providers import build_provider, complete_with_retry
from sessionlens.engine.summarize.runner import ProgressEvent, summarize_plan


@pytest.mark.asyncio
@pytest.mark.parametrize("kind", ["openai", "anthropic"])
async def test_a_slow_drip_cannot_outlive_the_deadline(wire: WireServer, kind: str) -> None:
    # a byte every 50 ms: no single read ever waits 0.5 s, the whole answer takes many seconds
    wire.default = Act("drip", text="## Goal\n- " + "word " * 200, seconds=0.05)
    t0 = time.monotonic()
    with pytest.raises(ProviderTimeoutError, match="deadline for the whole call"):
        await complete_with_retry(build_provider(wire.profile(kind, timeout_s=0.5)), request(),
                                  policy(FakeSleep(), attempts=2))
    took = time.monotonic() - t0
    assert len(wire.seen) == 2 and took < 2 * 0.5 + 1.0, took


@pytest.mark.asyncio
@pytest.mark.parametrize("kind", ["openai", "anthropic"])
async def test_a_short_key_echoed_in_an_error_body_is_scrubbed(
        wire: WireServer, kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    key = "k3y!"  # no pattern knows it: only its exact value can find it
    monkeypatch.setenv("SESSIONLENS_SHORT_KEY", key)
    wire.default = Act("status", status=401, body='{"error":{"message":"bad key ' + key
                       + ', and the db password=Hunter22 too"}}')
    with pytest.raises(ProviderAuthError) as info:
        await build_provider(wire.profile(kind, key_env="SESSIONLENS_SHORT_KEY")).complete(
            request())
    text = str(info.value)
    assert key not in text and "Hunter22" not in text
    assert "[REDACTED:configured_key]" in text and "bad key" in text


@pytest.mark.asyncio
async def test_retry_after_beyond_the_cap_says_why(wire: WireServer) -> None:
    wire.default = Act("status", status=429, body='{"error":{"message":"slow down"}}',
                       headers={"retry-after": "120"})
    events: list[ProgressEvent] = []
    t = small_transcript()
    with pytest.raises(ProviderUnavailableError) as info:
        await summarize_plan(t, plan_for(t), build_provider(wire.profile("openai")),
                             retry=policy(FakeSleep()), on_progress=events.append)
    assert len(wire.seen) == 1
    assert "not retried" in str(info.value) and "120s" in str(info.value)
    (skip,) = [e for e in events if e.stage == "no_retry"]
    assert "retry-after" in skip.message and "60s" in skip.message


@pytest.mark.asyncio
async def test_an_error_that_is_not_temporary_says_so(wire: WireServer) -> None:
    wire.default = Act("status", status=404, body='{"error":{"message":"no such model"}}')
    events: list[ProgressEvent] = []
    t = small_transcript()
    with pytest.raises(Exception, match="not retried: HTTP 404 is not temporary"):
        await summarize_plan(t, plan_for(t), build_provider(wire.profile("anthropic")),
                             retry=policy(FakeSleep()), on_progress=events.append)
    assert [e.stage for e in events].count("no_retry") == 1 and len(wire.seen) == 1
