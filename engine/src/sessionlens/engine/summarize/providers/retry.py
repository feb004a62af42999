"""Retrying one provider call: exponential backoff with jitter, ``retry-after`` honoured.

Policy (transcript-format.md §3.8, OpenClaw's summarization calls): at most 3 attempts,
delays from 500 ms doubling up to 5 s with ±20 % jitter. Only errors the provider marked
``retryable`` are tried again (429, 5xx, 529, timeouts, cut streams). A context overflow is
never retried blindly (the same input would overflow again) and a cancel is never retried.
``sleep`` and ``random`` are injectable so tests never wait.
"""

from __future__ import annotations

import asyncio
import random as _random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from sessionlens.engine.errors import ContextOverflowError, ProviderError, ProviderUnavailableError

from .base import Completion, CompletionRequest, DeltaCallback, Provider

__all__ = ["GiveUpCallback", "RetryCallback", "RetryPolicy", "complete_with_retry",
           "no_retry_reason"]

#: Called before each wait: (attempt that failed, seconds to wait, the error).
RetryCallback = Callable[[int, float, ProviderError], None]
#: Called when a failed attempt is not tried again: (attempt, the error, why not).
GiveUpCallback = Callable[[int, ProviderError, str], None]


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    attempts: int = 3
    base_delay_s: float = 0.5
    max_delay_s: float = 5.0
    jitter: float = 0.2
    #: A ``retry-after`` longer than this is not waited out; the call fails over instead.
    max_retry_after_s: float = 60.0
    sleep: Callable[[float], Awaitable[None]] = field(default=asyncio.sleep, compare=False)
    random: Callable[[], float] = field(default=_random.random, compare=False)

    def delay(self, failed_attempt: int, retry_after: float | None = None) -> float:
        """Seconds to wait after attempt ``failed_attempt`` (1-based) failed."""
        base = min(self.max_delay_s, self.base_delay_s * 2.0 ** (failed_attempt - 1))
        spread = float(self.random()) * 2.0 - 1.0
        wait = max(0.0, base * (1.0 + self.jitter * spread))
        if retry_after is not None:
            wait = max(wait, retry_after)
        return wait


def no_retry_reason(exc: ProviderError, attempt: int, policy: RetryPolicy) -> str | None:
    """Why the failed ``attempt`` is not tried again, or None when it will be."""
    retry_after = exc.retry_after if isinstance(exc, ProviderUnavailableError) else None
    if not exc.retryable:
        what = f"HTTP {exc.status}" if exc.status else "this failure"
        return f"{what} is not temporary, another attempt would fail the same way"
    if retry_after is not None and retry_after > policy.max_retry_after_s:
        return (f"the server asked to wait {retry_after:g}s (retry-after), longer than the "
                f"{policy.max_retry_after_s:g}s this run waits at most")
    if attempt >= policy.attempts:
        return f"gave up after {attempt} attempts"
    return None


async def complete_with_retry(
    provider: Provider, request: CompletionRequest, policy: RetryPolicy, *,
    on_delta: DeltaCallback | None = None, on_retry: RetryCallback | None = None,
    on_give_up: GiveUpCallback | None = None,
) -> tuple[Completion, int]:
    """Call ``provider`` until it answers or fails for good; returns (completion, attempts).

    A failure that is not tried again says why, in the error text and to ``on_give_up``.
    """
    attempt = 0
    while True:
        attempt += 1
        try:
            return await provider.complete(request, on_delta=on_delta), attempt
        except ContextOverflowError:
            raise  # the staging halves the input instead (the same input would overflow)
        except ProviderError as exc:
            reason = no_retry_reason(exc, attempt, policy)
            if reason is not None:
                text = str(exc.args[0]) if exc.args else str(exc)
                if attempt >= policy.attempts and exc.retryable and reason.startswith("gave up"):
                    text += f" (after {attempt} attempts)"
                else:
                    text += f" (not retried: {reason})"
                exc.args = (text,)
                if on_give_up is not None:
                    on_give_up(attempt, exc, reason)
                raise
            retry_after = exc.retry_after if isinstance(exc, ProviderUnavailableError) else None
            wait = policy.delay(attempt, retry_after)
            if on_retry is not None:
                on_retry(attempt, wait, exc)
            await policy.sleep(wait)
