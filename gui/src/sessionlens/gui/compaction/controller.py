"""CompactionController: run, audit, accept, undo, export, for the compaction panels.

It plans nothing of its own: the plan and its figures are the session's (one plan per
load, made from settings resolved once), and the run is the engine's orchestrator,
``run_compaction``: summarize, scrub, audit (on the task pool through ``TaskRunner.offload``)
and the quality retries. After a run the engine's dry run of the write (``prepare_write``)
gives the real file names and the tokens after that the Accept dialog shows;
``write_prepared`` writes exactly that, refusing a failed audit unless the user confirmed it.
The LLM call is an asyncio task on the Qt loop (qasync); Cancel cancels it at once and the
run's late callbacks are ignored.

Mounting: one call in the composition root (``app.build``), after the window exists::

    from .compaction.mount import mount_compaction
    ctx.compaction = mount_compaction(window, controller, tasks, paths)
"""

from __future__ import annotations

import dataclasses
from collections import deque
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal

from sessionlens.engine import (
    audit_compaction,
    build_provider,
    plan_rerun,
    restore_checkpoint,
    run_compaction,
    write_prepared,
)
from sessionlens.gui.compaction.outbound import (
    OutboundPreview,
    build_outbound_preview,
)
from sessionlens.gui.compaction.pool_provider import PoolProvider
from sessionlens.gui.compaction.run import KEEP_RETRY_COPIES, RunOptions, RunRecord
from sessionlens.gui.compaction.write_jobs import export_run, prepare_all_writes
from sessionlens.gui.session_controller import describe_error

if TYPE_CHECKING:
    import asyncio

    import httpx

    from sessionlens.engine import (
        CompactionOutcome,
        CompactionPlan,
        ExportFormat,
        Figures,
        ProgressEvent,
        RetryPolicy,
        Transcript,
        WriteMode,
        WritePlan,
        WriteResult,
    )
    from sessionlens.gui.compaction.pins import PinController
    from sessionlens.gui.session_controller import SessionController
    from sessionlens.gui.tasks import CancelCheck, Progress, TaskRunner


class CompactionController(QObject):
    """State of the compaction workflow; every engine step goes through here."""

    plan_ready = Signal(object)        # CompactionPlan
    plan_failed = Signal(str)
    outbound_ready = Signal(object)    # OutboundPreview
    run_started = Signal(object)       # RunOptions
    run_progress = Signal(object)      # ProgressEvent
    run_finished = Signal(object)      # RunRecord (audit follows)
    run_failed = Signal(str)
    run_cancelled = Signal()
    audit_ready = Signal(object)       # RunRecord with its report
    writes_ready = Signal(object)      # RunRecord with the engine's dry runs of the write
    accepted = Signal(object)          # WriteResult
    write_failed = Signal(str)
    undone = Signal(object)            # WriteResult of the restore
    discarded = Signal()
    exported = Signal(str)
    export_failed = Signal(str)
    runs_changed = Signal()            # the A/B pair changed

    def __init__(self, session: SessionController, tasks: TaskRunner, *,
                 http_client: httpx.AsyncClient | None = None, retry: RetryPolicy | None = None,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._session, self._tasks = session, tasks
        self._client, self._retry = http_client, retry
        self.options: RunOptions | None = None
        self.current: RunRecord | None = None
        #: The last two finished runs, oldest first (A/B).
        self.runs: deque[RunRecord] = deque(maxlen=2)
        self.last_write: WriteResult | None = None
        #: The run the last write came from (Export works after Accept too).
        self.accepted_record: RunRecord | None = None
        self._future: asyncio.Future[Any] | None = None
        self._run_id = 0
        self._numbers = 0
        #: The session's pins (set by ``mount``); every run carries them.
        self.pins: PinController | None = None
        session.plan_ready.connect(self.plan_ready.emit)
        session.plan_failed.connect(self.plan_failed.emit)

    # session --------------------------------------------------------------------------------
    @property
    def session(self) -> SessionController:
        return self._session

    @property
    def transcript(self) -> Transcript | None:
        return self._session.transcript

    @property
    def plan(self) -> CompactionPlan | None:
        """The session's plan (the one the token view shows): there is no second plan."""
        return self._session.plan

    @property
    def figures(self) -> Figures | None:
        return self._session.figures

    @property
    def cut_entry_id(self) -> str | None:
        """The cut the user chose (None: the automatic one); the session's, shared."""
        return self._session.cut_entry_id

    def set_cut_entry_id(self, entry_id: str | None) -> None:
        """The cut the user dragged: the session plans it (once)."""
        if entry_id != self._session.cut_entry_id:
            self._session.set_cut(entry_id)

    def set_sizes(self, keep_recent_tokens: int, reserve_tokens: int) -> None:
        """Keep-recent and reserve from the panel: the session's settings, stored once."""
        s, o, r = self._session.settings, self._session.overrides, self._session.resolved
        # the panel shows the values in force (the reserve raised to its floor): a value left
        # as shown stays the user's own (or none)
        shown_keep = int(r.keep_recent_tokens.value) if r is not None else s.keep_recent_tokens
        shown_reserve = int(r.reserve_tokens.value) if r is not None else s.effective_reserve
        keep = keep_recent_tokens if keep_recent_tokens != shown_keep else o.keep_recent_tokens
        reserve = reserve_tokens if reserve_tokens != shown_reserve else o.reserve_tokens
        if (keep, reserve) != (o.keep_recent_tokens, o.reserve_tokens):
            self._session.apply_overrides(dataclasses.replace(
                o, keep_recent_tokens=keep, reserve_tokens=reserve))

    # outbound preview --------------------------------------------------------------------------
    def prepare_outbound(self, options: RunOptions) -> None:
        """Build what a remote run would send (on the pool); ``outbound_ready`` brings it."""
        t, plan = self.transcript, self.plan
        if t is None or plan is None:
            self.run_failed.emit(self.tr("There is no plan to run yet."))
            return

        def job(_p: Progress, _c: CancelCheck) -> OutboundPreview:
            return build_outbound_preview(
                t, plan, options.profile, template=options.template,
                instructions=options.instructions, identifier_policy=options.identifier_policy,
                custom_identifiers=options.custom_identifiers)

        self._tasks.run(job, on_done=self.outbound_ready.emit,
                        on_error=lambda e: self.run_failed.emit(describe_error(e)), group="outbound")

    # running ------------------------------------------------------------------------------------
    def is_running(self) -> bool:
        return self._future is not None

    def run(self, options: RunOptions, *, keep_secrets: frozenset[str] = frozenset()) -> None:
        """Summarize the current plan; the engine redacts every request except ``keep_secrets``."""
        t, plan = self.transcript, self.plan
        if t is None or plan is None:
            self.run_failed.emit(self.tr("There is no plan to run yet."))
            return
        self._start(options, t, plan, keep_secrets)

    def _start(self, options: RunOptions, t: Transcript, plan: CompactionPlan,
               keep: frozenset[str], rerun: tuple[str, str | None, Any] | None = None) -> None:
        if self.is_running():
            return
        provider: Any = build_provider(options.profile, self._client)
        if not options.is_remote:  # the offline summarizer is CPU work: keep it off the UI
            provider = PoolProvider(provider, self._tasks)
        self._run_id += 1
        run_id = self._run_id
        key = options.profile.read_key()
        figures = self._session.figures if plan is self._session.plan else None
        # the engine redacts every request to a model provider (the secrets the user chose
        # in the preview to send as they are excepted) and scrubs the summary before it lands
        pins = self.pins.ids if self.pins is not None else ()
        coro = run_compaction(
            t, plan, provider, dataclasses.replace(options.engine_options(), keep_secrets=keep,
                                                   pins=pins),
            on_progress=lambda e: self._on_event(run_id, e), retry=self._retry,
            offload=self._tasks.offload, known_secrets=[key] if key else [])
        self.options = options
        self._future = self._tasks.start_coroutine(
            coro, on_done=lambda o: self._on_outcome(run_id, options, t, o, figures, rerun),
            on_error=lambda e: self._on_run_error(run_id, e))
        self.run_started.emit(options)

    def cancel(self) -> None:
        """Stop the run now: the task is cancelled and nothing it produces is used."""
        if self._future is None:
            return
        future, self._future = self._future, None
        self._run_id += 1
        future.cancel()
        self.run_cancelled.emit()

    def _on_event(self, run_id: int, event: ProgressEvent) -> None:
        if run_id == self._run_id:
            self.run_progress.emit(event)

    def _on_run_error(self, run_id: int, exc: BaseException) -> None:
        if run_id != self._run_id:
            return
        self._future = None
        # a cancel bumps the run id first, so an error of the current run is a real failure
        self.run_failed.emit(describe_error(exc))

    def _on_outcome(self, run_id: int, options: RunOptions, t: Transcript,
                    outcome: CompactionOutcome, figures: Figures | None,
                    rerun: tuple[str, str | None, Any] | None) -> None:
        if run_id != self._run_id:
            return
        self._future = None
        self._numbers += 1
        if figures is None:  # a re-run plans on the file as it stood: its own figures
            from sessionlens.engine import OpenedTranscript

            opened = self._session.opened
            assert opened is not None
            figures = OpenedTranscript(t, opened.resolved).figures(outcome.plan)
        record = RunRecord(self._numbers, options, t, outcome, figures,
                           redactions=sum(n.count for n in outcome.result.redactions))
        if rerun is not None:
            record = dataclasses.replace(record, rerun_of=rerun[0], recorded_summary=rerun[1],
                                         recorded_report=rerun[2])
        self._set_current(record)
        self.run_finished.emit(record)
        self.audit_ready.emit(record)
        self.runs_changed.emit()
        if rerun is None:
            self._prepare_writes(record)

    def _set_current(self, record: RunRecord) -> None:
        replaced = self.current
        self.current = record
        kept = [r for r in self.runs if r is not replaced or replaced.number != record.number]
        self.runs = deque((*kept, record) if record not in kept else kept, maxlen=2)

    def _swap(self, record: RunRecord) -> RunRecord:
        """``record`` replaces the current run (same number) here and in the A/B pair."""
        self.current = record
        self.runs = deque((record if r.number == record.number else r for r in self.runs),
                          maxlen=2)
        return record

    def _prepare_writes(self, record: RunRecord) -> None:
        """The engine's dry run for each write mode, off the UI thread."""
        t, outcome = record.transcript, record.outcome

        def job(_p: Progress, _c: CancelCheck) -> dict[str, WritePlan | str]:
            return prepare_all_writes(t, outcome)

        def done(plans: dict[str, WritePlan | str]) -> None:
            if self.current is not None and self.current.number == record.number:
                prepared = self._swap(dataclasses.replace(self.current, write_plans=plans))
                self.writes_ready.emit(prepared)
                self.runs_changed.emit()

        self._tasks.run(job, on_done=done, group="write-plan",
                        on_error=lambda e: self.write_failed.emit(describe_error(e)))

    # editing the summary (``compaction.edit`` audits the edit) ------------------------------------
    def replace_current(self, record: RunRecord) -> None:
        """Make ``record`` (the current run with the user's edit and its audit) current;
        the write is prepared again, so Accept writes the edited text."""
        if self.current is None or self.current.number != record.number:
            return
        record = self._swap(dataclasses.replace(record, write_plans={}))
        self.audit_ready.emit(record)
        self.runs_changed.emit()
        self._prepare_writes(record)

    # re-running a recorded compaction --------------------------------------------------------------
    def rerun_compaction(self, compaction_id: str, options: RunOptions) -> None:
        """Plan the span a recorded compaction summarized and summarize it again with ``options``.

        The plan is made on the transcript as it stood just before that compaction (entries
        before it in file order), cut at its recorded ``firstKeptEntryId``.
        """
        t = self.transcript
        if t is None or self.is_running():
            return
        settings = self._session.settings

        def job(_p: Progress, _c: CancelCheck) -> tuple[Transcript, CompactionPlan, Any]:
            recorded = audit_compaction(t, compaction_id)  # raises for an unknown id
            before, plan = plan_rerun(t, compaction_id, settings)
            return before, plan, recorded

        def planned(out: tuple[Transcript, CompactionPlan, Any]) -> None:
            before, plan, recorded = out
            summary = t.entry(compaction_id).summary
            self._start(options, before, plan, frozenset(), (compaction_id, summary, recorded))

        self._tasks.run(job, on_done=planned,
                        on_error=lambda e: self.run_failed.emit(describe_error(e)))

    # accept / discard / undo -------------------------------------------------------------------
    def can_accept(self) -> bool:
        c = self.current
        return c is not None and c.rerun_of is None and c.transcript is self.transcript

    def accept(self, mode: WriteMode, *, accept_failed_audit: bool = False,
               keep_retry_copies: bool = False, allow_second_successor: bool = False) -> None:
        """Write what the engine's dry run for ``mode`` describes, then open what it wrote.

        A failed audit is refused by the engine unless ``accept_failed_audit`` (the Accept
        dialog asks for it explicitly, naming the failed checks); ``keep_retry_copies`` writes
        the successor with a retry storm's unanswered copies kept."""
        record = self.current
        if record is None or not self.can_accept():
            self.write_failed.emit(self.tr("Nothing to accept."))
            return
        key = KEEP_RETRY_COPIES if keep_retry_copies and mode == "successor" else mode
        prepared = record.write_plans.get(key)
        if prepared is None or isinstance(prepared, str):
            self.write_failed.emit(prepared or self.tr("The write is still being prepared."))
            return
        t = record.transcript

        def job(_p: Progress, _c: CancelCheck) -> WriteResult:
            return write_prepared(t, prepared, accept_failed_audit=accept_failed_audit,
                                  allow_second_successor=allow_second_successor)

        self._tasks.run(job, on_done=lambda r: self._on_written(record, r),
                        on_error=lambda e: self.write_failed.emit(describe_error(e)))

    def _on_written(self, record: RunRecord, result: WriteResult) -> None:
        self.last_write = result
        self.accepted_record = record  # still exportable after the write
        self.current = None
        self.accepted.emit(result)
        target = result.successor_path or (self.transcript.path if self.transcript else None)
        if target is not None:
            self._session.open(Path(target))

    def discard(self) -> None:
        """Forget the current run; nothing is written."""
        self.current = None
        self.discarded.emit()

    def undo(self) -> None:
        """Restore the checkpoint of the last accepted write (as a new transcript) and open it."""
        write = self.last_write
        if write is None or write.checkpoint_path is None:
            self.write_failed.emit(self.tr("There is no checkpoint to restore."))
            return
        checkpoint = write.checkpoint_path
        # the store moves back with the undo: records that pointed at the successor (or, for
        # an append, at the original) now point at the restored transcript
        replaced = write.successor_path or (self.transcript.path if self.transcript else None)

        def job(_p: Progress, _c: CancelCheck) -> WriteResult:
            return restore_checkpoint(checkpoint, repoint=replaced)

        def done(result: WriteResult) -> None:
            self.last_write = None
            self.undone.emit(result)
            if result.successor_path is not None:
                self._session.open(Path(result.successor_path))

        self._tasks.run(job, on_done=done, on_error=lambda e: self.write_failed.emit(describe_error(e)))

    # export ----------------------------------------------------------------------------------------
    def export(self, fmt: ExportFormat, out: Path, record: RunRecord | None = None) -> None:
        """Write the audited summary of ``record`` (default: the current run) as md/json/html."""
        rec = record or self.current or self.accepted_record
        if rec is None:
            self.export_failed.emit(self.tr("Run and audit a summary first."))
            return
        resolved = self._session.resolved

        def job(_p: Progress, _c: CancelCheck) -> Path:
            return export_run(rec, resolved, fmt, out)

        self._tasks.run(job, on_done=lambda p: self.exported.emit(str(p)),
                        on_error=lambda e: self.export_failed.emit(describe_error(e)))
