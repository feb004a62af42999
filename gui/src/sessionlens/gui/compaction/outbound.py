"""What leaves the machine when a remote provider summarizes, and the redaction on the way out.

The engine builds every prompt (``preview_prompts`` uses the prompt functions a run uses) and
finds secrets (``find_secrets`` / ``redact``); this module only lines those calls up so the
preview dialog can show the prompts before anything is sent, and wraps the provider so the
very same redaction is applied to every request that does go out, including the later
stages whose text the preview cannot know in advance (they carry the model's own output).

A secret the user chose to keep is matched by its exact text, so it stays in every stage.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sessionlens.engine import (
    ChatMessage,
    OutboundPrompt,
    find_secrets,
    preview_prompts,
    redact,
)

if TYPE_CHECKING:
    from sessionlens.engine import (
        CompactionPlan,
        Completion,
        CompletionRequest,
        DeltaCallback,
        Provider,
        ProviderProfile,
        Transcript,
    )

#: One request of the run (label, system prompt, user text): the engine's own record.
OutboundPart = OutboundPrompt


@dataclass(frozen=True, slots=True)
class SecretGroup:
    """One distinct secret found in the outbound text (the value stays in memory only)."""

    kind: str
    value: str
    #: The engine's safe preview (first characters and length), what the UI shows.
    preview: str
    count: int


@dataclass(frozen=True, slots=True)
class OutboundPreview:
    """Everything a run would send, known before it starts."""

    provider: str
    model: str
    base_url: str
    parts: tuple[OutboundPart, ...]
    secrets: tuple[SecretGroup, ...]
    #: Stages whose text depends on model output (merges, later chunks); redacted the same way.
    later_stages: int = 0

    def rendered(self, keep: Collection[str] = ()) -> str:
        """The parts as they would be sent with every secret not in ``keep`` redacted."""
        blocks = [f"===== {p.label} =====\n{redact_outbound(p.text, keep)}" for p in self.parts]
        return "\n\n".join(blocks)

    @property
    def chars(self) -> int:
        return sum(len(p.text) for p in self.parts)


def redact_outbound(text: str, keep: Collection[str] = ()) -> str:
    """``text`` with every engine-found secret redacted except those whose text is in ``keep``."""
    findings = find_secrets(text)
    if not findings:
        return text
    return str(redact(text, [f for f in findings if text[f.start:f.end] not in keep]))


def _secret_groups(texts: Sequence[str]) -> tuple[SecretGroup, ...]:
    counts: Counter[tuple[str, str]] = Counter()
    previews: dict[tuple[str, str], str] = {}
    for text in texts:
        for f in find_secrets(text):
            key = (f.kind, text[f.start:f.end])
            counts[key] += 1
            previews.setdefault(key, f.preview)
    return tuple(SecretGroup(kind, value, previews[(kind, value)], n)
                 for (kind, value), n in counts.items())


def build_outbound_preview(transcript: Transcript, plan: CompactionPlan, profile: ProviderProfile,
                           *, template: str, instructions: str, identifier_policy: str,
                           custom_identifiers: str = "") -> OutboundPreview:
    """The first request of every stage, exactly as the engine will build it."""
    parts = preview_prompts(transcript, plan, instructions=instructions, template=template,
                            identifier_policy=identifier_policy,
                            custom_identifier_instructions=custom_identifiers)
    chunks = sum(1 for p in parts if p.label.startswith("chunk "))
    return OutboundPreview(profile.name, profile.model, profile.base_url, parts,
                           _secret_groups([p.text for p in parts]),
                           later_stages=1 if chunks > 1 else 0)


class RedactingProvider:
    """A provider that redacts every outgoing request before the wrapped one sends it."""

    def __init__(self, inner: Provider, keep: Collection[str] = ()) -> None:
        self._inner = inner
        self._keep = frozenset(keep)
        #: How many secrets were blanked out over the run (shown after it).
        self.redactions = 0

    @property
    def profile(self) -> ProviderProfile:
        return self._inner.profile

    def _clean(self, text: str) -> str:
        out = redact_outbound(text, self._keep)
        if out != text:
            self.redactions += sum(1 for f in find_secrets(text)
                                   if text[f.start:f.end] not in self._keep)
        return out

    async def complete(self, request: CompletionRequest, *,
                       on_delta: DeltaCallback | None = None) -> Completion:
        clean = dataclasses.replace(
            request, system=self._clean(request.system),
            messages=tuple(ChatMessage(m.role, self._clean(m.content)) for m in request.messages))
        return await self._inner.complete(clean, on_delta=on_delta)
