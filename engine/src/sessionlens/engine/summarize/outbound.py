"""What a run sends, known before it is sent: the first request of every stage, redacted.

The preview and the run share this module, so what a user is shown is what leaves: both
build the raw prompts of every stage the same way, seed one ``Redactor`` with them in the
order the run meets them (the split turn's prefix first, then the chunks), and redact each
request with it. A secret therefore carries the same ``[REDACTED:<kind>#<n>]`` in the
preview and in every request of the run; it is never put back.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from sessionlens.engine.errors import PlanError
from sessionlens.engine.model import Entry, Transcript
from sessionlens.engine.secrets import Redactor

from .prompts import SYSTEM_PROMPT, build_history_prompt, build_turn_prefix_prompt, check_template
from .providers.base import Provider
from .serialize import serialize_entries

if TYPE_CHECKING:
    from sessionlens.engine.plan.compaction_plan import CompactionPlan

__all__ = [
    "EARLIER_SUMMARY_PLACEHOLDER", "TURN_PREFIX_LABEL", "OutboundPrompt", "plan_chunks",
    "plan_entries", "plan_redactor", "preview_prompts", "provider_keys", "redact_prompts",
    "secret_values",
]

#: Stands in for the summary of earlier chunks in a preview: only the model can write it.
EARLIER_SUMMARY_PLACEHOLDER = "(the summary of the earlier chunks, as the model writes it)"
TURN_PREFIX_LABEL = "turn prefix"


@dataclass(frozen=True, slots=True)
class OutboundPrompt:
    """One request a run would send: its stage label, the system prompt and the user text."""

    label: str
    system: str
    prompt: str

    @property
    def text(self) -> str:
        return f"[system]\n{self.system}\n\n[user]\n{self.prompt}"


def plan_entries(transcript: Transcript, ids: Sequence[str]) -> list[Entry]:
    out = []
    for entry_id in ids:
        entry = transcript.get(entry_id)
        if entry is None:
            raise PlanError(f"the plan names entry {entry_id!r}, which is not in "
                            f"{transcript.path.name}; plan again on the loaded transcript")
        out.append(entry)
    return out


def plan_chunks(plan: CompactionPlan) -> list[tuple[str, ...]]:
    """The history stretches in the order they are summarized (one stretch if unchunked)."""
    history = plan.carried_tail_entry_ids + plan.summarize_entry_ids
    return [tuple(c) for c in plan.chunks if c] or ([history] if history else [])


def _raw_prompts(transcript: Transcript, plan: CompactionPlan, instructions: str, template: str,
                 identifier_policy: str, custom: str) -> tuple[OutboundPrompt, ...]:
    check_template(template)
    kw = dict(instructions=instructions, identifier_policy=identifier_policy,
              custom_identifiers=custom)
    chunks = plan_chunks(plan)
    out: list[OutboundPrompt] = []
    for i, chunk in enumerate(chunks, 1):
        previous = plan.previous_summary if i == 1 else EARLIER_SUMMARY_PLACEHOLDER
        prompt = build_history_prompt(serialize_entries(plan_entries(transcript, chunk)),
                                      template=template, previous_summary=previous or None, **kw)
        out.append(OutboundPrompt(f"chunk {i}/{len(chunks)}", SYSTEM_PROMPT, prompt))
    if plan.is_split_turn and plan.turn_prefix_entry_ids:
        prompt = build_turn_prefix_prompt(
            serialize_entries(plan_entries(transcript, plan.turn_prefix_entry_ids)), **kw)
        out.append(OutboundPrompt(TURN_PREFIX_LABEL, SYSTEM_PROMPT, prompt))
    return tuple(out)


def _run_order(parts: Sequence[OutboundPrompt]) -> list[OutboundPrompt]:
    """The run summarizes the split turn's prefix before the history."""
    return ([p for p in parts if p.label == TURN_PREFIX_LABEL]
            + [p for p in parts if p.label != TURN_PREFIX_LABEL])


def _seeded(parts: Sequence[OutboundPrompt], keep: Collection[str],
            known: Iterable[str]) -> Redactor:
    redactor = Redactor(keep, known)
    redactor.seed(p.prompt for p in _run_order(parts))
    return redactor


def redact_prompts(parts: Sequence[OutboundPrompt], keep_secrets: Collection[str] = (),
                   known_values: Iterable[str] = ()) -> tuple[OutboundPrompt, ...]:
    """Raw prompts (``preview_prompts(..., send_secrets=True)``) as the run sends them with
    ``keep_secrets`` left in: lets a face re-render while the user ticks secrets to keep."""
    redactor = _seeded(parts, keep_secrets, known_values)
    return tuple(replace(p, system=redactor.redact(p.system, p.label),
                         prompt=redactor.redact(p.prompt, p.label)) for p in parts)


def preview_prompts(transcript: Transcript, plan: CompactionPlan, *, instructions: str = "",
                    template: str = "structured", identifier_policy: str = "strict",
                    custom_identifier_instructions: str = "", send_secrets: bool = False,
                    keep_secrets: Collection[str] = (),
                    known_values: Iterable[str] = ()) -> tuple[OutboundPrompt, ...]:
    """The first request of every stage a model provider would receive for ``plan``: one per
    chunk, and the turn prefix. Later chunks carry a summary that does not exist yet; a
    placeholder stands in for it. Redacted exactly as ``summarize_plan`` redacts (unless
    ``send_secrets``), so it can be shown before anything is sent."""
    parts = _raw_prompts(transcript, plan, instructions, template, identifier_policy,
                         custom_identifier_instructions)
    return parts if send_secrets else redact_prompts(parts, keep_secrets, known_values)


def plan_redactor(transcript: Transcript, plan: CompactionPlan, *, instructions: str,
                  template: str, identifier_policy: str, custom_identifier_instructions: str,
                  keep_secrets: Collection[str] = (),
                  known_values: Iterable[str] = ()) -> Redactor:
    """The redactor a run uses: seeded like the preview's, so the placeholders agree."""
    parts = _raw_prompts(transcript, plan, instructions, template, identifier_policy,
                         custom_identifier_instructions)
    return _seeded(parts, keep_secrets, known_values)


def provider_keys(providers: Iterable[Provider]) -> tuple[str, ...]:
    """The API keys the providers would send (read from the environment now, not stored)."""
    keys = []
    for provider in providers:
        inner = getattr(provider, "providers", None)  # a fallback chain
        for p in inner if isinstance(inner, tuple) else (provider,):
            key = p.profile.read_key()
            if key:
                keys.append(key)
    return tuple(dict.fromkeys(keys))


def secret_values(transcript: Transcript, plan: CompactionPlan,
                  providers: Iterable[Provider] = (), *, instructions: str = "",
                  custom_identifier_instructions: str = "") -> frozenset[str]:
    """Every secret in what ``plan`` summarizes, plus the providers' keys: what ``scrub``
    must remove from a summary before it is written (in memory only; never stored)."""
    redactor = plan_redactor(transcript, plan, instructions=instructions,
                             template="structured", identifier_policy="strict",
                             custom_identifier_instructions=custom_identifier_instructions,
                             known_values=provider_keys(providers))
    redactor.seed([custom_identifier_instructions])
    return redactor.values
