"""Retrying one provider call: exponential backoff with jitter, ``retry-after`` honoured.

Policy (transcript-format.md §3.8, OpenClaw's summarization calls): at most 3 attempts,
delays from 500 ms doubling up to 5 s with ±20 % jitter. Only errors the provider marked
``retryable`` are tried again (429, 5xx, 529, timeouts, cut streams). A context overflow is
never retried blindly (the same input would overflow again) and a cancel is never retried.
``sleep`` and ``random`` are injectable so tests never wait.
"""

from __future__ import annotations

import random as _random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from sessionlens.engine.errors import ContextOverflowError, ProviderError, ProviderUnavailableError

from .base import Completion, CompletionRequest, DeltaCallback, Provider

__all__ = ["RetryCallback", "RetryPolicy", "complete_with_retry"]

#: Called before each wait: (attempt that failed, seconds to wait, the error).
RetryCallback = Callable[[int, float, ProviderError], None]


async def _sleep(seconds: float) -> None:
    """``asyncio.sleep``, imported on first use: importing asyncio costs every CLI call ~40 ms."""
    import asyncio

    await asyncio.sleep(seconds)


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    attempts: int = 3
    base_delay_s: float = 0.5
    max_delay_s: float = 5.0
    jitter: float = 0.2
    #: A ``retry-after`` longer than this is not waited out; the call fails over instead.
    max_retry_after_s: float = 60.0
    sleep: Callable[[float], Awaitable[None]] = field(default=_sleep, compare=False)
    random: Callable[[], float] = field(default=_random.random, compare=False)

    def delay(self, failed_attempt: int, retry_after: float | None = None) -> float:
        """Seconds to wait after attempt ``failed_attempt`` (1-based) failed."""
        base = min(self.max_delay_s, self.base_delay_s * 2.0 ** (failed_attempt - 1))
        spread = float(self.random()) * 2.0 - 1.0
        wait = max(0.0, base * (1.0 + self.jitter * spread))
        if retry_after is not None:
            wait = max(wait, retry_after)
        return wait


async def complete_with_retry(
    provider: Provider, request: CompletionRequest, policy: RetryPolicy, *,
    on_delta: DeltaCallback | None = None, on_retry: RetryCallback | None = None,
) -> tuple[Completion, int]:
    """Call ``provider`` until it answers or fails for good; returns (completion, attempts)."""
    attempt = 0
    while True:
        attempt += 1
        try:
            return await provider.complete(request, on_delta=on_delta), attempt
        except ContextOverflowError:
            raise
        except ProviderError as exc:
            retry_after = exc.retry_after if isinstance(exc, ProviderUnavailableError) else None
            if (not exc.retryable or attempt >= policy.attempts
                    or (retry_after is not None and retry_after > policy.max_retry_after_s)):
                if attempt > 1:
                    exc.args = (f"{exc.args[0] if exc.args else exc} (after {attempt} attempts)",)
                raise
            wait = policy.delay(attempt, retry_after)
            if on_retry is not None:
                on_retry(attempt, wait, exc)
            await policy.sleep(wait)
