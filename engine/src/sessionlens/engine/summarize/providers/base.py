"""The provider interface: one request shape in, one completion out, whoever answers.

Every provider (offline, OpenAI-compatible, Anthropic, local GGUF) takes the same
``CompletionRequest`` so the summarizer never branches on the kind of model. A request also
carries a ``SummarySource`` (the entries behind the prose) so the offline provider can work
extractively from structured data instead of re-parsing the prompt text.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, Protocol, runtime_checkable

from sessionlens.engine.model import Entry

__all__ = [
    "PROVIDER_KINDS", "ChatMessage", "Completion", "CompletionRequest", "CompletionUsage", "DeltaCallback",
    "Provider", "ProviderKind", "ProviderProfile", "SummaryPurpose", "SummarySource",
]

ProviderKind = Literal["offline", "openai", "anthropic", "local"]
PROVIDER_KINDS: tuple[ProviderKind, ...] = ("offline", "openai", "anthropic", "local")
SummaryPurpose = Literal["history", "turn_prefix", "merge"]
#: Called with each piece of streamed text as it arrives.
DeltaCallback = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class ProviderProfile:
    """Settings for one model endpoint. Holds the *name* of the key's env var, never the key."""

    name: str
    kind: ProviderKind
    base_url: str = ""
    model: str = ""
    context_window: int = 128_000
    max_output_tokens: int = 16_384
    temperature: float | None = 0.2
    timeout_s: float = 120.0
    key_env: str | None = None

    def read_key(self) -> str | None:
        """The API key, read at call time so it is never kept around: the environment
        variable ``key_env``, else the OS keyring entry stored under this profile's name."""
        from .keys import read_key

        return read_key(self.name, self.key_env)


@dataclass(frozen=True, slots=True)
class ChatMessage:
    role: Literal["user", "assistant"]
    content: str


@dataclass(frozen=True, slots=True)
class SummarySource:
    """What a request summarizes, in structured form (the offline provider reads this)."""

    purpose: SummaryPurpose
    template: str
    entries: tuple[Entry, ...] = ()
    previous_summary: str | None = None
    #: Partial summaries to combine (purpose "merge").
    parts: tuple[str, ...] = ()
    instructions: str = ""
    identifier_policy: str = "strict"
    #: Notes that must survive into the summary (e.g. oversized messages left out).
    notes: tuple[str, ...] = ()
    #: Characters of the final summary already spoken for (file-operation tags, the other
    #: half of a split turn), so a length-aware provider can leave room for them.
    reserved_chars: int = 0


@dataclass(frozen=True, slots=True)
class CompletionRequest:
    system: str
    messages: tuple[ChatMessage, ...]
    max_tokens: int
    temperature: float | None = None
    source: SummarySource | None = None
    #: Short stage label for progress and error messages ("chunk 2/3", "merge").
    label: str = ""

    @property
    def prompt_chars(self) -> int:
        return len(self.system) + sum(len(m.content) for m in self.messages)


@dataclass(frozen=True, slots=True)
class CompletionUsage:
    """Tokens a provider reported (or, for offline, counted) for one or more calls."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost: float | None = None

    def __add__(self, other: CompletionUsage) -> CompletionUsage:
        cost = None if self.cost is None and other.cost is None else (
            (self.cost or 0.0) + (other.cost or 0.0))
        return CompletionUsage(
            self.input_tokens + other.input_tokens, self.output_tokens + other.output_tokens,
            self.cache_read_tokens + other.cache_read_tokens,
            self.cache_write_tokens + other.cache_write_tokens, cost)


@dataclass(frozen=True, slots=True)
class Completion:
    text: str
    usage: CompletionUsage = field(default_factory=CompletionUsage)
    provider: str = ""
    model: str = ""
    stop_reason: str | None = None
    #: Whether the focus instructions matched anything the summarizer could put first:
    #: an extractive provider knows (False: nothing matched, so the focus did nothing);
    #: a model does not say (None).
    focus_matched: bool | None = None


@runtime_checkable
class Provider(Protocol):
    """Anything that turns a ``CompletionRequest`` into a ``Completion``.

    Implementations raise ``ProviderError`` subclasses (never raw httpx errors) and let
    ``asyncio.CancelledError`` pass through untouched.
    """

    @property
    def profile(self) -> ProviderProfile: ...

    async def complete(self, request: CompletionRequest, *,
                       on_delta: DeltaCallback | None = None) -> Completion: ...
