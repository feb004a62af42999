"""What leaves the machine when a remote provider summarizes, shown before it is sent.

The engine builds every prompt and redacts it (``preview_prompts`` / ``redact_prompts`` use
the very redaction ``summarize_plan`` applies to each request, with the same numbered
placeholders); this module only lines those calls up so the preview dialog can show the
prompts before anything is sent and re-render them while the user ticks secrets to keep.
The run itself gets the ticked values as ``keep_secrets``.

A secret the user chose to keep is matched by its exact text, so it stays in every stage.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sessionlens.engine import (
    OutboundPrompt,
    find_secrets,
    preview_prompts,
    redact_prompts,
)

if TYPE_CHECKING:
    from sessionlens.engine import CompactionPlan, ProviderProfile, Transcript

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

    def sent_parts(self, keep: Collection[str] = ()) -> tuple[OutboundPart, ...]:
        """The parts exactly as the run sends them with ``keep`` left unredacted."""
        return redact_prompts(self.parts, frozenset(keep))

    def rendered(self, keep: Collection[str] = ()) -> str:
        """The parts as they would be sent with every secret not in ``keep`` redacted."""
        return "\n\n".join(f"===== {p.label} =====\n{p.text}" for p in self.sent_parts(keep))

    @property
    def chars(self) -> int:
        return sum(len(p.text) for p in self.parts)


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
    """The first request of every stage, exactly as the engine will build it (raw: the
    dialog redacts it through the engine as the user decides what to keep)."""
    parts = preview_prompts(transcript, plan, instructions=instructions, template=template,
                            identifier_policy=identifier_policy,
                            custom_identifier_instructions=custom_identifiers, send_secrets=True)
    chunks = sum(1 for p in parts if p.label.startswith("chunk "))
    return OutboundPreview(profile.name, profile.model, profile.base_url, parts,
                           _secret_groups([p.text for p in parts]),
                           later_stages=1 if chunks > 1 else 0)
