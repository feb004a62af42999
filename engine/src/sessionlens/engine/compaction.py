"""One compaction run, end to end: the one place both faces call.

The CLI's ``compact`` and the GUI's compaction panel used to string the steps together each
their own way (the GUI had no quality retries, guessed file names, and audited on its own).
Now both call these, in this order:

1. ``run_compaction``: summarize the plan (staged, retried, cancellable), scrub what must
   never be written (the configured API key's exact value, secrets the model echoed back),
   audit the scrubbed summary and regenerate on a failed audit (the quality loop). The audit
   runs through ``offload`` so a GUI can keep it off its UI thread.
2. ``prepare_write``: the dry run of the write: the real file names, the first kept entry
   the file will hold, and "tokens after" measured on the in-memory result.
3. ``write_prepared``: the write itself, refused when the audit failed unless the user said
   so (``AuditGateError``), as OpenClaw's safeguard refuses a summary failing its guard.
Nothing is written by a failed, cancelled or failed-audit run.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Literal, TypeVar

from .audit.quality_loop import QualityAttempt, QualityOutcome, run_with_quality_loop
from .audit.report import AuditReport, audit_summary
from .audit.span import taken_out
from .contract.pinned import PinnedText, pinned_texts, with_pinned
from .contract.templates import IdentifierPolicy
from .errors import AuditGateError, PersistError
from .model import Transcript
from .persist.dry_run import plan_write
from .persist.provenance import SummaryProvenance
from .persist.record import CompactionRecord, WritePlan, WriteResult
from .persist.successor import PI_FORMATS, successor_removed_ids
from .persist.writer import WriteMode, write_compaction
from .plan.compaction_plan import CompactionPlan
from .secrets import Redactor
from .summarize.outbound import secret_values
from .summarize.prompts import file_ops_tags
from .summarize.providers import CompletionUsage, FallbackChain, Provider, RetryPolicy
from .summarize.runner import CancelCheck, ProgressEvent, SummaryResult, summarize_plan
from .tokens.estimate import estimate_tokens_from_chars

__all__ = [
    "CompactionOptions",
    "CompactionOutcome",
    "Offload",
    "audit_edit",
    "audited_span",
    "compaction_record",
    "edited_outcome",
    "load_warnings",
    "prepare_write",
    "run_compaction",
    "scrub_summary",
    "tokens_after",
    "user_summary_outcome",
    "write_prepared",
]

T = TypeVar("T")
#: Runs a CPU-bound step somewhere and awaits it (the GUI's worker pool; default a thread).
Offload = Callable[[Callable[[], T]], Awaitable[T]]


@dataclass(frozen=True, slots=True)
class CompactionOptions:
    """What the user chose for this run (focus instructions, template, identifier policy)."""

    instructions: str = ""
    template: str = "structured"
    identifier_policy: IdentifierPolicy = "strict"
    custom_identifier_instructions: str = ""
    #: With the "custom" policy: the identifiers the audit must find in the summary.
    custom_identifiers: tuple[str, ...] = ()
    #: Regenerations after a failed audit (0 = audit only; capped at 3 like OpenClaw).
    quality_retries: int = 0
    #: Send the transcript's secrets unredacted (an explicit opt-out; default redacts).
    send_secrets: bool = False
    #: Secret values the user chose to send as they are (the rest stays redacted).
    keep_secrets: frozenset[str] = frozenset()
    #: Entry ids the user pinned: before the cut their text is carried into the summary
    #: verbatim (and audited); after it they are kept anyway.
    pins: tuple[str, ...] = ()
    #: How the result will be written: the audit judges the span that write takes out of
    #: the context (a successor keeps the last summarized assistant turn verbatim).
    write_mode: WriteMode = "successor"


@dataclass(frozen=True, slots=True)
class CompactionOutcome:
    """A finished run: the plan it followed, the kept summary, its audit and all attempts."""

    plan: CompactionPlan
    result: SummaryResult
    audit: AuditReport
    quality: QualityOutcome
    #: Estimated context after the compaction: the kept tail plus the summary (chars/4).
    #: ``prepare_write`` measures the exact figure the written file will have.
    tokens_after: int
    #: What was scrubbed from the summary before it was audited (kinds, never values).
    scrubbed: tuple[str, ...] = ()
    #: The pinned texts the summary must carry word for word (scrubbed as the summary is).
    pinned: tuple[PinnedText, ...] = ()
    #: Who wrote the summary: generated (provider, model), edited, or the user's own.
    provenance: SummaryProvenance = SummaryProvenance("generated")
    #: The options of the run (an edit is audited with the same ones).
    options: CompactionOptions = CompactionOptions()
    #: The summary as the provider generated it (set on an edited outcome).
    generated_summary: str | None = None

    @property
    def summary(self) -> str:
        return self.result.summary

    @property
    def summarized_entry_ids(self) -> tuple[str, ...]:
        return self.plan.summarized_entry_ids


def audited_span(transcript: Transcript, plan: CompactionPlan,
                 mode: WriteMode = "successor") -> tuple[str, ...]:
    """The entries the summary stands in for once written with ``mode``: the plan's span
    less what the written file still holds (``audit.span.taken_out``, the rule the audit
    of the written file applies too). For a file SessionLens cannot write, the plan's span."""
    ids = plan.summarized_entry_ids
    if mode != "successor" or transcript.format not in PI_FORMATS or transcript.header is None:
        return ids
    try:
        removed = successor_removed_ids(transcript, plan.first_kept_entry_id)
    except PersistError:
        return ids
    return taken_out(ids, transcript.index.keys() - removed)


def load_warnings(transcript: Transcript, mode: WriteMode | None) -> tuple[str, ...]:
    """What loading the transcript found, said with the compaction run (``inspect`` lists
    the same): a line that could not be read took no part in the plan or the summary, and
    a write (``mode``; None: nothing is written) does not carry it."""
    out = []
    for d in transcript.diagnostics:
        where = f"line {d.line}: " if d.line is not None else ""
        text = f"{transcript.path.name} {where}{d.reason}"
        if d.severity == "error" and d.line is not None:
            text += ("; that line is not part of the plan or the summary" + (
                "; the successor leaves it out" if mode == "successor" else
                "; it stays in the file as it was, before the appended compaction"
                if mode == "append" else ""))
        out.append(text)
    return tuple(out)


def tokens_after(plan: CompactionPlan, summary: str) -> int:
    """Estimated context after writing ``summary`` for ``plan``: kept tail plus the summary."""
    return int(plan.kept_tokens) + estimate_tokens_from_chars(len(summary))


def scrub_summary(summary: str, known_values: Iterable[str] = ()) -> tuple[str, tuple[str, ...]]:
    """``summary`` fit to be written: every exact ``known_values`` entry (the configured API
    keys, the secrets of the summarized span) and every secret the detector finds replaced
    by a placeholder (``secrets.Redactor``); returns the kinds removed, never the values."""
    redactor = Redactor(known={v for v in known_values if v})
    text = redactor.redact(summary, "scrub")
    return text, tuple(note.kind for note in redactor.notes())


def _provider_list(providers: Provider | FallbackChain | Sequence[Provider]) -> list[Provider]:
    if isinstance(providers, FallbackChain):
        return list(providers.providers)
    if isinstance(providers, Provider):
        return [providers]
    return list(providers)


async def _in_thread(fn: Callable[[], T]) -> T:
    import asyncio  # here, not at the top: every command imports this module, few run it

    return await asyncio.to_thread(fn)


async def run_compaction(
    transcript: Transcript,
    plan: CompactionPlan,
    providers: Provider | FallbackChain | Sequence[Provider],
    options: CompactionOptions = CompactionOptions(),
    *,
    on_progress: Callable[[ProgressEvent], None] | None = None,
    cancel: CancelCheck | None = None,
    retry: RetryPolicy | None = None,
    offload: Offload[AuditReport] | None = None,
    known_secrets: Iterable[str] = (),
) -> CompactionOutcome:
    """Summarize ``plan``, scrub and audit the summary; on a failed audit regenerate with the
    findings. Raises ``SummarizationCancelled`` on cancel and ``ProviderError`` when every
    provider fails; nothing is written either way. ``known_secrets`` are values that must
    never reach a file (the configured API key)."""
    # what must never reach a file: the given keys, the providers' keys, and every secret of
    # the span (an offline summary copies text verbatim; a model may echo a key back)
    known = frozenset(known_secrets) | secret_values(
        transcript, plan, _provider_list(providers), instructions=options.instructions,
        custom_identifier_instructions=options.custom_identifier_instructions)
    results: dict[str, SummaryResult] = {}
    scrubbed: dict[str, tuple[str, ...]] = {}
    run_offloaded: Offload[AuditReport] = offload or _in_thread
    pinned = _scrubbed_pins(transcript, plan, options, known)
    suffix = file_ops_tags(plan.file_ops)

    async def generate(feedback: str | None) -> str:
        instructions = options.instructions
        if feedback:
            instructions = f"{instructions}\n\n{feedback}".strip()
        result = await summarize_plan(
            transcript, plan, providers, instructions=instructions, template=options.template,
            identifier_policy=options.identifier_policy,
            custom_identifier_instructions=options.custom_identifier_instructions,
            on_progress=on_progress, cancel=cancel, retry=retry,
            send_secrets=options.send_secrets, keep_secrets=options.keep_secrets)
        text, kinds = scrub_summary(result.summary, known)
        # pinned text goes in here, after the model answered: no provider is trusted with it
        text = with_pinned(text, pinned, options.template, suffix=suffix)
        # The user's own instructions are what the record keeps, not the audit feedback.
        results[text] = replace(result, summary=text, instructions=options.instructions)
        scrubbed[text] = kinds
        return text

    reports: list[AuditReport] = []
    span = audited_span(transcript, plan, options.write_mode)

    async def audit(summary: str) -> AuditReport:
        # every attempt summarizes the same span: its entities are extracted once
        entities = reports[0].entities if reports else None

        def job() -> AuditReport:
            return audit_summary(
                transcript, summary, summarized_entry_ids=span,
                template=options.template, identifier_policy=options.identifier_policy,
                custom_identifiers=options.custom_identifiers, entities=entities,
                pinned=pinned, instructions=options.instructions)

        report = await run_offloaded(job)
        reports.append(report)
        return report

    quality = await run_with_quality_loop(
        generate, audit, max_retries=options.quality_retries)  # the loop clamps it to 0..3
    result = results[quality.summary]
    return CompactionOutcome(plan=plan, result=result, audit=quality.report, quality=quality,
                             tokens_after=tokens_after(plan, quality.summary),
                             scrubbed=scrubbed[quality.summary], pinned=pinned,
                             provenance=SummaryProvenance(
                                 "generated", result.provider,
                                 _provider_kind(providers, result.provider), result.model),
                             options=options)


def _provider_kind(providers: Provider | FallbackChain | Sequence[Provider], name: str) -> str:
    for p in _provider_list(providers):
        if p.profile.name == name:
            return str(p.profile.kind)
    return ""


def _scrubbed_pins(transcript: Transcript, plan: CompactionPlan, options: CompactionOptions,
                   known: Iterable[str]) -> tuple[PinnedText, ...]:
    """The pinned texts of the span, scrubbed as the summary will be (a pinned secret is
    still never written)."""
    keys = tuple(known)
    return tuple(replace(p, text=scrub_summary(p.text, keys)[0]) for p in pinned_texts(
        transcript, plan.summarized_entry_ids, options.pins))


def audit_edit(transcript: Transcript, outcome: CompactionOutcome, summary: str) -> AuditReport:
    """Audit ``summary`` as a replacement for ``outcome``'s: the same span, template,
    identifier policy and pins (pure; the GUI runs it off its UI thread as the user types)."""
    o = outcome.options
    return audit_summary(
        transcript, summary, summarized_entry_ids=outcome.audit.summarized_entry_ids,
        template=o.template, identifier_policy=o.identifier_policy,
        custom_identifiers=o.custom_identifiers, entities=outcome.audit.entities,
        pinned=outcome.pinned, instructions=o.instructions)


def edited_outcome(transcript: Transcript, outcome: CompactionOutcome, summary: str, *,
                   report: AuditReport | None = None,
                   known_secrets: Iterable[str] = ()) -> CompactionOutcome:
    """``outcome`` with the user's edit of its summary: scrubbed, audited like the original
    (``report`` when the caller audited this very text already), provenance "edited"."""
    known = frozenset(known_secrets) | secret_values(transcript, outcome.plan, [])
    text, kinds = scrub_summary(summary, known)
    audited = report if report is not None and text == summary else audit_edit(
        transcript, outcome, text)
    generated = outcome.generated_summary if outcome.generated_summary is not None \
        else outcome.summary
    origin = outcome.provenance.origin
    if origin != "user":
        origin = "generated" if text == generated else "edited"
    quality = QualityOutcome(text, audited, 1, (QualityAttempt(1, text, audited),))
    return replace(outcome, result=replace(outcome.result, summary=text), audit=audited,
                   quality=quality, tokens_after=tokens_after(outcome.plan, text),
                   scrubbed=kinds, provenance=replace(outcome.provenance, origin=origin),
                   generated_summary=generated if origin == "edited" else None)


def user_summary_outcome(transcript: Transcript, plan: CompactionPlan, summary: str,
                         options: CompactionOptions = CompactionOptions(), *,
                         known_secrets: Iterable[str] = ()) -> CompactionOutcome:
    """An outcome whose summary is the user's own text (``compact --summary-file``): no
    provider is called; the text is scrubbed of secrets, audited and gated like any other."""
    known = frozenset(known_secrets) | secret_values(transcript, plan, [])
    text, kinds = scrub_summary(summary, known)
    pinned = _scrubbed_pins(transcript, plan, options, known)
    report = audit_summary(
        transcript, text, summarized_entry_ids=audited_span(transcript, plan, options.write_mode),
        template=options.template, identifier_policy=options.identifier_policy,
        custom_identifiers=options.custom_identifiers, pinned=pinned,
        instructions=options.instructions)
    result = SummaryResult(
        text, "user", "", options.template, options.instructions, options.identifier_policy,
        CompletionUsage(), 0, 0, 0, plan.file_ops, plan.first_kept_entry_id,
        int(plan.tokens_before), (), tuple(plan.summarize_entry_ids),
        tuple(plan.turn_prefix_entry_ids), (), bool(plan.is_split_turn))
    quality = QualityOutcome(text, report, 1, (QualityAttempt(1, text, report),))
    return CompactionOutcome(plan=plan, result=result, audit=report, quality=quality,
                             tokens_after=tokens_after(plan, text), scrubbed=kinds,
                             pinned=pinned, provenance=SummaryProvenance("user"),
                             options=options)


def compaction_record(outcome: CompactionOutcome,
                      report: AuditReport | None = None) -> CompactionRecord:
    """What the writers need to write this outcome (``report``: its audit over the span the
    write takes out, when that is not the one the run audited)."""
    result = outcome.result
    audit = outcome.audit if report is None else report
    return CompactionRecord(
        summary=result.summary, first_kept_entry_id=outcome.plan.first_kept_entry_id,
        tokens_before=outcome.plan.tokens_before, tokens_after=outcome.tokens_after,
        file_ops=result.file_ops, summarized_entry_ids=outcome.summarized_entry_ids,
        provider=result.provider, model=result.model, template=result.template,
        audit_passed=audit.passed, instructions=result.instructions,
        failed_checks=tuple(c.name for c in audit.checks if not c.passed),
        # the audit's focus check, not the summarizer's claim
        focus_matched=audit.focus_applied, provenance=outcome.provenance,
        pinned_entry_ids=tuple(p.entry_id for p in outcome.pinned))


def prepare_write(transcript: Transcript, outcome: CompactionOutcome,
                  mode: WriteMode = "successor", *, now: datetime | None = None,
                  store_path: Path | None | Literal["auto"] = "auto",
                  keep_retry_copies: bool = False) -> WritePlan:
    """The dry run of writing ``outcome``: real names, the written first kept entry, tokens
    after as the written file will have them, the retry-storm copies a successor leaves
    out (unless ``keep_retry_copies``). The recorded verdict is the audit over the span
    this write takes out (``audited_span``). Raises where the write would refuse."""
    record = replace(compaction_record(outcome), drop_retry_copies=not keep_retry_copies)
    prepared = plan_write(transcript, record, mode, now=now, store_path=store_path)
    if mode == outcome.options.write_mode:
        return prepared
    o = outcome.options  # the run audited the other write's span: judge this one's
    report = audit_summary(
        transcript, outcome.summary, summarized_entry_ids=audited_span(transcript, outcome.plan,
                                                                        mode),
        template=o.template, identifier_policy=o.identifier_policy,
        custom_identifiers=o.custom_identifiers, pinned=outcome.pinned,
        instructions=o.instructions)
    own = compaction_record(outcome, report)
    return replace(prepared, record=replace(
        prepared.record, audit_passed=own.audit_passed, failed_checks=own.failed_checks,
        focus_matched=own.focus_matched))


def write_prepared(transcript: Transcript, prepared: WritePlan, *,
                   accept_failed_audit: bool = False,
                   store_path: Path | None | Literal["auto"] = "auto",
                   allow_second_successor: bool = False) -> WriteResult:
    """Write exactly what ``prepared`` describes (same names, same numbers).

    A summary that failed its audit raises ``AuditGateError`` and writes nothing, unless
    ``accept_failed_audit``. A transcript that already has a successor (``prepared.
    existing_successor``, or one written since) raises ``SecondSuccessorError`` and writes
    nothing, unless ``allow_second_successor``.
    """
    failed = prepared.record.audit_passed is False
    if failed and not accept_failed_audit:
        raise AuditGateError(transcript.path, _failed_checks(prepared))
    result = write_compaction(transcript, prepared.record, prepared.mode, names=prepared.names,
                              store_path=store_path,
                              allow_second_successor=allow_second_successor)
    if failed:  # said with the write, never silent
        result = replace(result, notes=(*result.notes, "written although the audit failed: "
                                        + ", ".join(_failed_checks(prepared))))
    return result


def _failed_checks(prepared: WritePlan) -> tuple[str, ...]:
    return prepared.record.failed_checks or ("audit",)
