"""Retry policy arithmetic and the fallback chain, with scripted providers (no HTTP)."""

from __future__ import annotations

import asyncio

import pytest

from fixtures.llm_wire import FakeSleep, policy, request
from sessionlens.engine.errors import (
    ConfigError,
    ContextOverflowError,
    ProviderError,
    ProviderUnavailableError,
    SummarizationCancelled,
)
from sessionlens.engine.summarize.providers import (
    Completion,
    CompletionRequest,
    DeltaCallback,
    FallbackChain,
    ProviderProfile,
    RetryPolicy,
    complete_with_retry,
)


class Scripted:
    """A provider that raises or answers from a list, one item per call."""

    def __init__(self, name: str, script: list[Exception | str]) -> None:
        self._profile = ProviderProfile(name=name, kind="openai", model=name)
        self.script = script
        self.calls = 0

    @property
    def profile(self) -> ProviderProfile:
        return self._profile

    async def complete(self, request: CompletionRequest, *,
                       on_delta: DeltaCallback | None = None) -> Completion:
        item = self.script[min(self.calls, len(self.script) - 1)]
        self.calls += 1
        if isinstance(item, Exception):
            raise item
        return Completion(item, provider=self._profile.name)


def busy(retry_after: float | None = None) -> ProviderUnavailableError:
    return ProviderUnavailableError("busy", status=429, retry_after=retry_after)


def test_delays_double_cap_at_5s_and_jitter_stays_within_20_percent() -> None:
    exact = RetryPolicy(random=lambda: 0.5)
    assert [exact.delay(n) for n in range(1, 6)] == [0.5, 1.0, 2.0, 4.0, 5.0]
    low, high = RetryPolicy(random=lambda: 0.0), RetryPolicy(random=lambda: 1.0)
    assert low.delay(2) == pytest.approx(0.8) and high.delay(2) == pytest.approx(1.2)
    assert exact.delay(1, retry_after=3.0) == 3.0 and exact.delay(3, retry_after=0.1) == 2.0


def test_long_retry_after_fails_over_instead_of_waiting() -> None:
    sleep = FakeSleep()
    p = Scripted("a", [busy(retry_after=600.0), "late"])
    with pytest.raises(ProviderUnavailableError):
        asyncio.run(complete_with_retry(p, request(), policy(sleep)))
    assert p.calls == 1 and sleep.waits == []


def test_non_retryable_errors_are_not_retried() -> None:
    for exc in (ProviderError("bad request", status=400),
                ContextOverflowError("too long", status=400)):
        p = Scripted("a", [exc, "never"])
        with pytest.raises(type(exc)):
            asyncio.run(complete_with_retry(p, request(), policy(FakeSleep())))
        assert p.calls == 1


def test_cancel_inside_a_provider_is_never_retried() -> None:
    p = Scripted("a", [SummarizationCancelled("stop"), "never"])
    with pytest.raises(SummarizationCancelled):
        asyncio.run(FallbackChain([p, Scripted("b", ["no"])], policy(FakeSleep())).complete(
            request()))
    assert p.calls == 1


def test_chain_counts_attempts_and_reports_each_failure() -> None:
    a = Scripted("a", [busy(), busy(), busy()])
    b = Scripted("b", [ProviderError("gone", status=404)])
    c = Scripted("c", ["answer"])
    outcome = asyncio.run(FallbackChain([a, b, c], policy(FakeSleep())).run(request()))
    assert outcome.completion.text == "answer" and outcome.provider == "c"
    assert outcome.attempts == 5 and len(outcome.failures) == 2
    assert outcome.failures[0].startswith("a: busy (after 3 attempts)")


def test_chain_reports_overflow_only_when_every_model_overflowed() -> None:
    both = [Scripted("a", [ContextOverflowError("long")]),
            Scripted("b", [ContextOverflowError("long")])]
    with pytest.raises(ContextOverflowError):
        asyncio.run(FallbackChain(both, policy(FakeSleep())).complete(request()))
    mixed = [Scripted("a", [ContextOverflowError("long")]),
             Scripted("b", [ProviderError("denied", status=403)])]
    with pytest.raises(ProviderError, match="every provider failed") as info:
        asyncio.run(FallbackChain(mixed, policy(FakeSleep())).complete(request()))
    assert not isinstance(info.value, ContextOverflowError)


def test_empty_chain_is_a_config_error() -> None:
    with pytest.raises(ConfigError):
        FallbackChain([])
