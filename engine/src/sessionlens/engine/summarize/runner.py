"""Running a compaction plan through a provider: staged, retried, cancellable (§3.5, §3.6, §3.8).

``summarize_plan`` is the one I/O step between planning and persisting. It summarizes the
plan's chunks oldest first, each carrying the summary so far, merges the partial summaries,
adds the split-turn prefix summary, appends the file-operation tags and caps the length.
Messages too large for the model are left out with a note naming each; if a stretch still
does not fit it is halved; only when nothing fits does the run fail. Every omission is both
written into the summary and listed in ``warnings``: nothing is lost silently.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sessionlens.engine.contract.templates import SPLIT_TURN_HEADER, SUMMARY_MAX_CHARS
from sessionlens.engine.errors import (
    ContextOverflowError,
    PlanError,
    ProviderError,
    SummarizationCancelled,
)
from sessionlens.engine.model import Entry, FileOps, Transcript
from sessionlens.engine.secrets import Redactor, SecretNote

from .outbound import (
    EARLIER_SUMMARY_PLACEHOLDER,
    OutboundPrompt,
    plan_chunks,
    plan_entries,
    plan_redactor,
    preview_prompts,
    provider_keys,
)
from .prompts import (
    SYSTEM_PROMPT,
    build_merge_prompt,
    cap_summary,
    check_template,
    file_ops_tags,
    identifier_instructions,
    join_split_turn,
)
from .providers.base import (
    ChatMessage,
    CompletionRequest,
    CompletionUsage,
    Provider,
    SummaryPurpose,
    SummarySource,
)
from .providers.fallback import FallbackChain
from .providers.offline_focus import parse_focus
from .providers.retry import RetryPolicy
from .staging import summarize_stretch

if TYPE_CHECKING:
    from sessionlens.engine.plan.compaction_plan import CompactionPlan

__all__ = [
    "EARLIER_SUMMARY_PLACEHOLDER", "CancelCheck", "OutboundPrompt", "ProgressEvent", "SummaryResult",
    "preview_prompts", "summarize_plan",
]

#: Polled while a run is in flight; returning True cancels it at once.
CancelCheck = Callable[[], bool]
_CANCEL_POLL_S = 0.05


@dataclass(frozen=True, slots=True)
class ProgressEvent:
    """One step of a run, for progress bars (GUI and CLI) and logs.

    ``stage`` is one of: start, chunk, merge, turn_prefix, retry, no_retry (a failed attempt
    that is not tried again, and why), fallback, omitted, streaming, done. Token figures are running totals for the whole run.
    """

    stage: str
    chunk_index: int
    chunk_count: int
    tokens_sent: int
    tokens_received: int
    cost: float | None = None
    message: str = ""


@dataclass(frozen=True, slots=True)
class SummaryResult:
    """A finished summary and how it was made (nothing here holds a key)."""

    summary: str
    provider: str
    model: str
    template: str
    instructions: str
    identifier_policy: str
    usage: CompletionUsage
    #: Model calls that produced text (chunks + merge + turn prefix + fallbacks).
    stages: int
    #: Chunks the history was split into.
    chunks: int
    #: HTTP/model attempts including retries and fallbacks.
    attempts: int
    file_ops: FileOps
    #: None for a hard boundary (nothing before the compaction is kept).
    first_kept_entry_id: str | None
    tokens_before: int
    warnings: tuple[str, ...]
    summarized_entry_ids: tuple[str, ...] = ()
    turn_prefix_entry_ids: tuple[str, ...] = ()
    #: Entries that could not be summarized (named in the summary and in ``warnings``).
    omitted_entry_ids: tuple[str, ...] = ()
    is_split_turn: bool = False
    #: Whether the focus instructions shaped the summary: True when the provider put
    #: matching items first, False when nothing in the span matched them (the summary is
    #: then unfocused, and ``warnings`` says so), None when unknown or no instructions.
    focus_matched: bool | None = None
    #: What was redacted from the requests (kind, stage, placeholder; never the values).
    #: Empty when the run was told to send secrets.
    redactions: tuple[SecretNote, ...] = ()


class _Run:
    """State of one run: totals, warnings and the progress sink."""

    def __init__(self, chain: FallbackChain, on_progress: Callable[[ProgressEvent], None] | None,
                 template: str, instructions: str, policy: str, custom: str,
                 redactor: Redactor | None = None) -> None:
        self.chain = chain
        #: Every request's text passes through it before it is sent (None: send as is).
        self.redactor = redactor
        self.on_progress = on_progress
        self.template, self.instructions = template, instructions
        self.policy, self.custom = policy, custom
        self.usage = CompletionUsage()
        self.attempts = self.stages = 0
        self.sent = self.received = 0
        self.provider = chain.profile.name
        self.model = chain.profile.model
        self.warnings: list[str] = []
        self.omitted: list[str] = []
        self.position = (0, 0)
        self.reserved = 0
        self.focus: list[bool] = []

    @property
    def context_window(self) -> int:
        return self.chain.context_window

    def emit(self, stage: str, message: str = "") -> None:
        if self.on_progress is not None:
            self.on_progress(ProgressEvent(stage, self.position[0], self.position[1], self.sent,
                                           self.received, self.usage.cost, message))

    def omit(self, entry_ids: Sequence[str], note: str) -> None:
        self.omitted.extend(entry_ids)
        self.warnings.append(note)
        self.emit("omitted", note)

    async def call(self, purpose: SummaryPurpose, prompt: str, max_tokens: int, *,
                   entries: Sequence[Entry] = (), previous: str | None = None,
                   parts: Sequence[str] = (), notes: Sequence[str] = (), label: str = "") -> str:
        source = SummarySource(purpose, self.template, tuple(entries), previous, tuple(parts),
                               self.instructions, self.policy, tuple(notes), self.reserved)
        system = SYSTEM_PROMPT
        if self.redactor is not None:  # the one place every outbound request passes
            system = self.redactor.redact(system, label)
            prompt = self.redactor.redact(prompt, label)
        request = CompletionRequest(system, (ChatMessage("user", prompt),), max_tokens,
                                    self.chain.profile.temperature, source, label)
        estimate_in = (request.prompt_chars + 3) // 4
        self.sent += estimate_in
        streamed = [0]

        def on_delta(text: str) -> None:
            before = streamed[0] // 4
            streamed[0] += len(text)
            if streamed[0] // 4 - before >= 1:
                self.received += streamed[0] // 4 - before
                self.emit("streaming", label)

        def restart() -> None:
            self.received -= streamed[0] // 4  # the failed attempt's text is discarded
            streamed[0] = 0
            self.sent += estimate_in  # the prompt goes out again

        def on_retry(attempt: int, wait: float, exc: ProviderError) -> None:
            restart()
            self.emit("retry", f"{label}: attempt {attempt} failed ({exc}); retrying in "
                               f"{wait:.1f}s")

        def on_give_up(attempt: int, exc: ProviderError, reason: str) -> None:
            self.emit("no_retry", f"{label}: attempt {attempt} failed; not retried: {reason}")

        def on_fallback(name: str, exc: ProviderError, nxt: str) -> None:
            restart()
            self.warnings.append(f"{label}: provider {name} failed ({exc}); fell back to {nxt}")
            self.emit("fallback", self.warnings[-1])

        try:
            outcome = await self.chain.run(request, on_delta=on_delta, on_retry=on_retry,
                                           on_fallback=on_fallback, on_give_up=on_give_up)
        except ProviderError:
            self.attempts += 1
            raise
        done = outcome.completion
        self.attempts += outcome.attempts
        self.stages += 1
        self.usage = self.usage + done.usage
        self.sent += (done.usage.input_tokens or estimate_in) - estimate_in
        self.received += (done.usage.output_tokens or (len(done.text) + 3) // 4) - streamed[0] // 4
        self.provider, self.model = outcome.provider, done.model or self.model
        if done.focus_matched is not None:
            self.focus.append(done.focus_matched)
        text = done.text.strip()
        if not text:
            raise ProviderError(f"{outcome.provider} returned an empty summary for {label}",
                                provider=outcome.provider, model=self.model)
        return text


async def _merge(run: _Run, partials: list[str], budget: int, depth: int = 0) -> str:
    """Merge partial summaries; if they do not fit the model together, merge halves first.
    As a last resort keep the final rolling summary, which already carries the earlier
    chunks (each chunk was summarized on top of the one before)."""
    if len(partials) == 1:
        return partials[0]
    prompt = build_merge_prompt(partials, template=run.template, instructions=run.instructions,
                                identifier_policy=run.policy, custom_identifiers=run.custom)
    try:
        return await run.call("merge", prompt, budget, parts=partials,
                              label=f"merge of {len(partials)}")
    except ContextOverflowError:
        if len(partials) > 2 and depth < 3:
            mid = len(partials) // 2
            halves = [await _merge(run, partials[:mid], budget, depth + 1),
                      await _merge(run, partials[mid:], budget, depth + 1)]
            return await _merge(run, halves, budget, depth + 1)
    run.warnings.append(f"{len(partials)} partial summaries did not fit the model's window "
                        "together; kept the last one, which was written on top of the others")
    run.emit("merge", run.warnings[-1])
    return partials[-1]


def _as_chain(provider_or_chain: Provider | FallbackChain | Sequence[Provider],
              retry: RetryPolicy | None) -> FallbackChain:
    if isinstance(provider_or_chain, FallbackChain):
        return provider_or_chain if retry is None else FallbackChain(
            provider_or_chain.providers, retry)
    if isinstance(provider_or_chain, Provider):
        return FallbackChain([provider_or_chain], retry)
    return FallbackChain(list(provider_or_chain), retry)


def _focus_outcome(run: _Run) -> bool | None:
    """Did the focus instructions do anything? Only a provider that matched them knows."""
    if not parse_focus(run.instructions) or not run.focus:
        return None
    if any(run.focus):
        return True
    run.warnings.append("the focus instructions matched nothing in the summarized entries, "
                        "so the summary is not focused on them")
    run.emit("done", run.warnings[-1])
    return False


async def _summarize(transcript: Transcript, plan: CompactionPlan, run: _Run) -> SummaryResult:
    budget = max(256, min(int(plan.summary_budget_tokens) or 13_107,
                          run.chain.profile.max_output_tokens))
    chunks = plan_chunks(plan)
    oversized = frozenset(plan.oversized_entry_ids)
    suffix = file_ops_tags(plan.file_ops)
    split = bool(plan.is_split_turn and plan.turn_prefix_entry_ids)
    run.emit("start", f"{len(chunks)} chunk(s), split turn: {bool(plan.is_split_turn)}")
    prefix: str | None = None
    if split:  # first, so the history knows how much room the prefix left it
        run.reserved = len(suffix) + SUMMARY_MAX_CHARS // 2
        run.emit("turn_prefix", f"summarizing the {len(plan.turn_prefix_entry_ids)} entries "
                                "of the split turn's start")
        prefix = await summarize_stretch(
            run, "turn_prefix", plan_entries(transcript, plan.turn_prefix_entry_ids), None,
            max(128, budget * 5 // 8), "turn prefix", oversized)
    run.reserved = len(suffix) + (len(prefix) + len(SPLIT_TURN_HEADER) if prefix else 0)
    summary = plan.previous_summary or None
    partials: list[str] = []
    for i, chunk in enumerate(chunks, 1):
        run.position = (i, len(chunks))
        run.emit("chunk", f"summarizing chunk {i} of {len(chunks)} ({len(chunk)} entries)")
        summary = await summarize_stretch(run, "history", plan_entries(transcript, chunk), summary,
                                          budget, f"chunk {i}/{len(chunks)}", oversized)
        partials.append(summary)
    if len(partials) > 1:
        run.position = (len(chunks), len(chunks))
        run.emit("merge", f"merging {len(partials)} partial summaries")
        summary = await _merge(run, partials, budget)
    body = join_split_turn(summary, prefix) if prefix is not None else (summary or "")
    if not body:
        raise PlanError("the plan has nothing to summarize")
    for note in run.warnings:  # omission notes must be in the text a reader keeps
        if note.startswith("[") and note not in body:
            body += "\n\n" + note
    focus = _focus_outcome(run)
    text = cap_summary(body, suffix)
    if len(body) + len(suffix) > SUMMARY_MAX_CHARS:
        run.warnings.append(f"summary cut to {SUMMARY_MAX_CHARS} characters "
                            f"({len(body) + len(suffix)} before the cut)")
    run.emit("done", f"{len(text)} characters")
    return SummaryResult(
        text, run.provider, run.model, run.template, run.instructions, run.policy, run.usage,
        run.stages, len(chunks), run.attempts, plan.file_ops, plan.first_kept_entry_id,
        int(plan.tokens_before), tuple(run.warnings), tuple(plan.summarize_entry_ids),
        tuple(plan.turn_prefix_entry_ids), tuple(dict.fromkeys(run.omitted)),
        bool(plan.is_split_turn), focus,
        run.redactor.notes() if run.redactor is not None else ())


async def summarize_plan(
    transcript: Transcript, plan: CompactionPlan,
    provider_or_chain: Provider | FallbackChain | Sequence[Provider], *,
    instructions: str = "", template: str = "structured", identifier_policy: str = "strict",
    custom_identifier_instructions: str = "",
    on_progress: Callable[[ProgressEvent], None] | None = None,
    cancel: CancelCheck | None = None, retry: RetryPolicy | None = None,
    send_secrets: bool = False, keep_secrets: Collection[str] = (),
) -> SummaryResult:
    """Summarize what ``plan`` says to summarize; raises ProviderError subclasses on failure,
    ``SummarizationCancelled`` on a cancel (task cancel or ``cancel()`` turning true).

    Every request is redacted before it is sent (the secrets ``find_secrets`` sees and the
    providers' own keys, with the placeholders ``preview_prompts`` shows), whichever
    provider answers: a URL on this machine may still be a relay to a remote service.
    ``keep_secrets`` are values the user chose to send as they are; ``send_secrets=True``
    sends everything unredacted (an explicit opt-out). Nothing is written anywhere:
    persisting the result is a separate step.
    """
    check_template(template)
    identifier_instructions(identifier_policy, custom_identifier_instructions)  # validates
    chain = _as_chain(provider_or_chain, retry)
    # the offline summarizer reads the entries themselves and never sends the prompt anywhere
    offline = all(p.profile.kind == "offline" for p in chain.providers)
    redactor = None if send_secrets or offline else plan_redactor(
        transcript, plan, instructions=instructions, template=template,
        identifier_policy=identifier_policy,
        custom_identifier_instructions=custom_identifier_instructions,
        keep_secrets=keep_secrets, known_values=provider_keys(chain.providers))
    run = _Run(chain, on_progress, template, instructions, identifier_policy,
               custom_identifier_instructions, redactor)
    if cancel is not None and cancel():
        raise SummarizationCancelled("summarization cancelled before it started")
    import asyncio  # on first use: the CLI's other subcommands never pay for it

    task = asyncio.ensure_future(_summarize(transcript, plan, run))
    try:
        while True:
            done, _ = await asyncio.wait({task}, timeout=_CANCEL_POLL_S if cancel else None)
            if done:
                return task.result()
            if cancel is not None and cancel():
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
                raise SummarizationCancelled("summarization cancelled by the user")
    except asyncio.CancelledError as exc:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        raise SummarizationCancelled("summarization cancelled") from exc
