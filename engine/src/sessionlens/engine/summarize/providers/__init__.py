"""Model providers behind one small interface (``base.Provider``), plus retries and fallback.

``build_provider(profile)`` picks the implementation by ``profile.kind``. HTTP providers
share the ``httpx.AsyncClient`` passed in (tests pass one with a local server or a mock
transport); keys are read from the environment at call time and never stored.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sessionlens.engine.errors import ConfigError

from .base import (
    ChatMessage,
    Completion,
    CompletionRequest,
    CompletionUsage,
    DeltaCallback,
    Provider,
    ProviderKind,
    ProviderProfile,
    SummaryPurpose,
    SummarySource,
)
from .fallback import ChainOutcome, FallbackCallback, FallbackChain
from .offline import OfflineProvider
from .retry import RetryCallback, RetryPolicy, complete_with_retry

if TYPE_CHECKING:
    import httpx

__all__ = [
    "OFFLINE_PROFILE", "ChainOutcome", "ChatMessage", "Completion", "CompletionRequest",
    "CompletionUsage", "DeltaCallback", "FallbackCallback", "FallbackChain",
    "OfflineProvider", "Provider", "ProviderKind", "ProviderProfile", "RetryCallback",
    "RetryPolicy", "SummaryPurpose", "SummarySource", "build_fallback_chain", "build_provider",
    "complete_with_retry",
]

#: The embedded default: no key, no network, works on a fresh machine.
OFFLINE_PROFILE = ProviderProfile(name="offline", kind="offline", model="extractive",
                                  context_window=1_000_000, max_output_tokens=16_384,
                                  temperature=None, timeout_s=60.0)


def build_provider(profile: ProviderProfile, client: httpx.AsyncClient | None = None) -> Provider:
    """The provider for ``profile.kind``; raises ConfigError for an unknown kind."""
    if profile.kind == "offline":
        return OfflineProvider(profile)
    if profile.kind == "openai":
        from .openai import OpenAIProvider
        return OpenAIProvider(profile, client)
    if profile.kind == "anthropic":
        from .anthropic import AnthropicProvider
        return AnthropicProvider(profile, client)
    if profile.kind == "local":
        from .local import LocalProvider
        return LocalProvider(profile, client)
    raise ConfigError(f"unknown provider kind {profile.kind!r} in profile {profile.name!r}")


def build_fallback_chain(profiles: list[ProviderProfile], client: httpx.AsyncClient | None = None,
                policy: RetryPolicy | None = None) -> FallbackChain:
    """A fallback chain over ``profiles`` in order."""
    return FallbackChain([build_provider(p, client) for p in profiles], policy)
