"""A fallback chain of providers: when one model fails for good, the next one is asked.

"For good" means after its own retries (``retry.py``). A context overflow also moves on,
since the next model may have a larger window; a cancel stops the whole chain at once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sessionlens.engine.errors import ConfigError, ContextOverflowError, ProviderError

from .base import Completion, CompletionRequest, DeltaCallback, Provider, ProviderProfile
from .retry import GiveUpCallback, RetryCallback, RetryPolicy, complete_with_retry

__all__ = ["ChainOutcome", "FallbackCallback", "FallbackChain"]

#: Called when the chain gives up on one provider: (provider name, its error, next name).
FallbackCallback = Callable[[str, ProviderError, str], None]


@dataclass(frozen=True, slots=True)
class ChainOutcome:
    completion: Completion
    attempts: int
    #: Name of the profile that answered.
    provider: str
    #: One line per provider that failed before it ("name: error").
    failures: tuple[str, ...]


class FallbackChain:
    """Providers tried in order, each with retries; itself usable as a ``Provider``."""

    def __init__(self, providers: Sequence[Provider], policy: RetryPolicy | None = None) -> None:
        if not providers:
            raise ConfigError("a fallback chain needs at least one provider")
        self.providers: tuple[Provider, ...] = tuple(providers)
        self.policy = policy or RetryPolicy()

    @property
    def profile(self) -> ProviderProfile:
        return self.providers[0].profile

    @property
    def context_window(self) -> int:
        """The largest window in the chain (oversize checks use the best model we can reach)."""
        return max(p.profile.context_window for p in self.providers)

    async def complete(self, request: CompletionRequest, *,
                       on_delta: DeltaCallback | None = None) -> Completion:
        return (await self.run(request, on_delta=on_delta)).completion

    async def run(self, request: CompletionRequest, *, on_delta: DeltaCallback | None = None,
                  on_retry: RetryCallback | None = None,
                  on_fallback: FallbackCallback | None = None,
                  on_give_up: GiveUpCallback | None = None) -> ChainOutcome:
        failures: list[str] = []
        errors: list[ProviderError] = []
        attempts = 0
        for i, provider in enumerate(self.providers):
            name = provider.profile.name
            retries = [0]

            def counted(attempt: int, wait: float, exc: ProviderError,
                        retries: list[int] = retries) -> None:
                retries[0] += 1
                if on_retry is not None:
                    on_retry(attempt, wait, exc)

            try:
                completion, used = await complete_with_retry(
                    provider, request, self.policy, on_delta=on_delta, on_retry=counted,
                    on_give_up=on_give_up)
            except ProviderError as exc:
                attempts += retries[0] + 1
                failures.append(f"{name}: {exc}")
                errors.append(exc)
                if on_fallback is not None and i + 1 < len(self.providers):
                    on_fallback(name, exc, self.providers[i + 1].profile.name)
                continue
            return ChainOutcome(completion, attempts + used, name, tuple(failures))
        raise _combined(errors, failures)


def _combined(errors: list[ProviderError], failures: list[str]) -> ProviderError:
    """The error to report when every provider failed: overflow only if all overflowed."""
    overflow = [e for e in errors if isinstance(e, ContextOverflowError)]
    pick = overflow[-1] if len(overflow) == len(errors) else next(
        e for e in reversed(errors) if not isinstance(e, ContextOverflowError))
    if len(errors) > 1:
        pick.args = ("every provider failed: " + "; ".join(failures),)
    return pick
