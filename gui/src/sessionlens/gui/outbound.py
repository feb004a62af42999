"""What leaves the machine when a remote provider summarizes, and the redaction on the way out.

The engine builds every prompt (``build_history_prompt`` over ``serialize_entries``) and
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
    SYSTEM_PROMPT,
    ChatMessage,
    build_history_prompt,
    build_turn_prefix_prompt,
    find_secrets,
    redact,
    serialize_entries,
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

#: Stands in for the summary of earlier chunks, which only the model can write.
EARLIER_SUMMARY_PLACEHOLDER = "(the summary of the earlier chunks, as the model writes it)"


@dataclass(frozen=True, slots=True)
class OutboundPart:
    """One request of the run: its label, the system prompt and the user message."""

    label: str
    system: str
    prompt: str

    @property
    def text(self) -> str:
        return f"[system]\n{self.system}\n\n[user]\n{self.prompt}"


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
    """The first request of every stage, built by the engine's own prompt functions."""
    chunks = [tuple(c) for c in plan.chunks if c] or (
        [tuple(plan.summarize_entry_ids)] if plan.summarize_entry_ids else [])
    parts: list[OutboundPart] = []
    for i, chunk in enumerate(chunks, 1):
        entries = [transcript.entry(eid) for eid in chunk]
        previous = plan.previous_summary if i == 1 else EARLIER_SUMMARY_PLACEHOLDER
        prompt = build_history_prompt(
            serialize_entries(entries), template=template, previous_summary=previous or None,
            instructions=instructions, identifier_policy=identifier_policy,
            custom_identifiers=custom_identifiers)
        parts.append(OutboundPart(f"chunk {i}/{len(chunks)}", SYSTEM_PROMPT, prompt))
    if plan.is_split_turn and plan.turn_prefix_entry_ids:
        entries = [transcript.entry(eid) for eid in plan.turn_prefix_entry_ids]
        prompt = build_turn_prefix_prompt(
            serialize_entries(entries), instructions=instructions,
            identifier_policy=identifier_policy, custom_identifiers=custom_identifiers)
        parts.append(OutboundPart("turn prefix", SYSTEM_PROMPT, prompt))
    return OutboundPreview(profile.name, profile.model, profile.base_url, tuple(parts),
                           _secret_groups([p.text for p in parts]),
                           later_stages=1 if len(chunks) > 1 else 0)


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
