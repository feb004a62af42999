"""CompactionController: plan, run, audit, accept, undo, export, for the compaction panels.

The LLM call is an asyncio task on the Qt loop (qasync), started through ``TaskRunner``;
Cancel cancels that task at once and the run's late callbacks are ignored. Planning,
auditing, writing and exporting are engine calls run on the task pool. The panels get this
object injected and only call its methods and listen to its signals.

Mounting: one call in the composition root (``app.build``), after the window exists::

    from .compaction_mount import mount_compaction
    ctx.compaction = mount_compaction(window, controller, tasks, paths)

which builds this controller (parented to the window), the Compaction, Compare and Audit
tabs (``MainWindow.add_workbench_tab``), and connects the audit panel's ``entry_activated``
to ``SessionController.select`` and the session's dragged cut to the planned cut.
"""

from __future__ import annotations

import dataclasses
from collections import deque
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal

from sessionlens.engine import (
    PlanError,
    audit_compaction,
    audit_summary,
    build_provider,
    build_transcript,
    export_summary,
    make_bundle,
    plan_compaction,
    restore_checkpoint,
    summarize_plan,
    tokens_after,
    write_compaction,
)
from sessionlens.gui.compaction.outbound import (
    OutboundPreview,
    build_outbound_preview,
)
from sessionlens.gui.compaction.pool_provider import PoolProvider
from sessionlens.gui.compaction.run import RunOptions, RunRecord
from sessionlens.gui.session_controller import describe_error

if TYPE_CHECKING:
    import asyncio

    import httpx

    from sessionlens.engine import (
        AuditReport,
        CompactionPlan,
        ExportFormat,
        ProgressEvent,
        RetryPolicy,
        SummaryResult,
        Transcript,
        WriteMode,
        WriteResult,
    )
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
        self.plan: CompactionPlan | None = None
        self.cut_entry_id: str | None = None
        self.options: RunOptions | None = None
        self.current: RunRecord | None = None
        #: The last two finished runs, oldest first (A/B).
        self.runs: deque[RunRecord] = deque(maxlen=2)
        self.last_write: WriteResult | None = None
        self._future: asyncio.Future[Any] | None = None
        self._run_id = 0
        self._numbers = 0
        #: What the last plan request used (transcript, token report, settings, cut, options).
        self._basis: tuple[Any, ...] | None = None
        session.loaded.connect(self._on_session_loaded)
        session.settled.connect(self._on_session_settled)

    # session --------------------------------------------------------------------------------
    @property
    def session(self) -> SessionController:
        return self._session

    @property
    def transcript(self) -> Transcript | None:
        return self._session.transcript

    def _on_session_loaded(self, _t: object) -> None:
        self.plan = None
        self.cut_entry_id = None

    def _on_session_settled(self) -> None:
        # the session settles after each of its steps, including a re-plan for a dragged cut
        # that ``set_cut_entry_id`` has already planned for: plan only when an input changed
        if self.transcript is not None and self.options is not None and not self.is_running() \
                and not self._planned_with_current_inputs():
            self.request_plan(self.options)

    def _planned_with_current_inputs(self) -> bool:
        if self._basis is None:
            return False
        t, report, settings, cut, options = self._basis
        view = self._session.tokens
        return (t is self.transcript and report is (view.report if view is not None else None)
                and settings == self._session.settings and cut == self.cut_entry_id
                and options == self.options)

    def set_cut_entry_id(self, entry_id: str | None) -> None:
        """The cut the user dragged in the token view (None: the automatic cut)."""
        if entry_id != self.cut_entry_id:
            self.cut_entry_id = entry_id
            if self.options is not None:
                self.request_plan(self.options)

    # planning ---------------------------------------------------------------------------------
    def request_plan(self, options: RunOptions) -> None:
        """Plan on the pool with the panel's keep-recent and reserve (latest request wins)."""
        self.options = options
        t = self.transcript
        if t is None:
            return
        settings = dataclasses.replace(self._session.settings,
                                       reserve_tokens=options.reserve_tokens,
                                       keep_recent_tokens=options.keep_recent_tokens)
        view = self._session.tokens
        report = view.report if view is not None else None
        cut = self.cut_entry_id
        self._basis = (t, report, self._session.settings, cut, options)

        def job(_p: Progress, _c: CancelCheck) -> CompactionPlan:
            return plan_compaction(t, settings, tokens=report, cut_entry_id=cut,
                                   keep_recent_tokens=options.keep_recent_tokens)

        self._tasks.run(job, on_done=lambda p: self._on_planned(t, p),
                        on_error=self._on_plan_error, group="compaction-plan")

    def _on_planned(self, t: Transcript, plan: CompactionPlan) -> None:
        if t is self.transcript:
            self.plan = plan
            self.plan_ready.emit(plan)

    def _on_plan_error(self, exc: BaseException) -> None:
        self.plan = None
        self.plan_failed.emit(describe_error(exc))

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
        coro = summarize_plan(
            t, plan, provider, instructions=options.instructions,
            template=options.template, identifier_policy=options.identifier_policy,
            custom_identifier_instructions=options.custom_identifiers,
            on_progress=lambda e: self._on_event(run_id, e), retry=self._retry,
            keep_secrets=keep)
        self.options = options
        self._future = self._tasks.start_coroutine(
            coro, on_done=lambda r: self._on_summary(run_id, options, t, plan, r, rerun),
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

    def _on_summary(self, run_id: int, options: RunOptions, t: Transcript, plan: CompactionPlan,
                    result: SummaryResult, rerun: tuple[str, str | None, Any] | None) -> None:
        if run_id != self._run_id:
            return
        self._future = None
        self._numbers += 1
        after = tokens_after(plan, result.summary)
        record = RunRecord(self._numbers, options, t, plan, result, after,
                           redactions=sum(n.count for n in result.redactions))
        if rerun is not None:
            record = dataclasses.replace(record, rerun_of=rerun[0], recorded_summary=rerun[1],
                                         recorded_report=rerun[2])
        self.current = record
        self.runs.append(record)
        self.run_finished.emit(record)
        self.runs_changed.emit()
        self._audit(record)

    def _audit(self, record: RunRecord) -> None:
        o = record.options

        def job(_p: Progress, _c: CancelCheck) -> AuditReport:
            return audit_summary(record.transcript, record.result.summary,
                                 summarized_entry_ids=record.summarized_ids, template=o.template,
                                 identifier_policy=o.identifier_policy,
                                 custom_identifiers=o.custom_list)

        def done(report: AuditReport) -> None:
            audited = dataclasses.replace(record, report=report)
            if self.current is record:
                self.current = audited
            self.runs = deque((audited if r is record else r for r in self.runs), maxlen=2)
            self.audit_ready.emit(audited)
            self.runs_changed.emit()

        self._tasks.run(job, on_done=done, on_error=lambda e: self.run_failed.emit(describe_error(e)))

    # re-running a recorded compaction --------------------------------------------------------------
    def rerun_compaction(self, compaction_id: str, options: RunOptions) -> None:
        """Plan the span a recorded compaction summarized and summarize it again with ``options``.

        The plan is made on the transcript as it stood just before that compaction (entries
        before it in file order), cut at its recorded ``firstKeptEntryId``.
        """
        t = self.transcript
        if t is None or self.is_running():
            return
        settings = dataclasses.replace(self._session.settings,
                                       reserve_tokens=options.reserve_tokens)

        def job(_p: Progress, _c: CancelCheck) -> tuple[Transcript, CompactionPlan, Any]:
            recorded = audit_compaction(t, compaction_id)  # raises for an unknown id
            before = build_transcript(t.path, t.format, t.header,
                                      t.entries[:t.index[compaction_id]], ())
            first_kept = t.entry(compaction_id).first_kept_entry_id
            cut = first_kept if first_kept in before.index else None  # else: hard boundary
            try:
                plan = plan_compaction(before, settings, cut_entry_id=cut, manual=cut is None)
            except PlanError:  # the recorded cut lies before the region: summarize it all
                if cut is None:
                    raise
                plan = plan_compaction(before, settings, manual=True)
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

    def accept(self, mode: WriteMode) -> None:
        """Write the current run through the engine, then open what it wrote."""
        record = self.current
        if record is None or not self.can_accept():
            self.write_failed.emit(self.tr("Nothing to accept."))
            return
        t = record.transcript

        def job(_p: Progress, _c: CancelCheck) -> WriteResult:
            written: WriteResult = write_compaction(t, record.record(), mode)
            return written

        self._tasks.run(job, on_done=self._on_written,
                        on_error=lambda e: self.write_failed.emit(describe_error(e)))

    def _on_written(self, result: WriteResult) -> None:
        self.last_write = result
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
        rec = record or self.current
        if rec is None or rec.report is None:
            self.export_failed.emit(self.tr("Run and audit a summary first."))
            return
        report = rec.report
        settings = {"keep_recent_tokens": rec.options.keep_recent_tokens,
                    "reserve_tokens": rec.options.reserve_tokens,
                    "context_window": rec.plan.context_window,
                    "first_kept_entry_id": rec.plan.first_kept_entry_id,
                    "tokens_before": rec.plan.tokens_before, "tokens_after": rec.tokens_after,
                    "identifier_policy": rec.options.identifier_policy}

        def job(_p: Progress, _c: CancelCheck) -> Path:
            bundle = make_bundle(rec.transcript, rec.result.summary, report,
                                 provider=rec.result.provider, model=rec.result.model,
                                 template=rec.result.template,
                                 instructions=rec.result.instructions, settings=settings)
            return Path(export_summary(bundle, fmt, out))

        self._tasks.run(job, on_done=lambda p: self.exported.emit(str(p)),
                        on_error=lambda e: self.export_failed.emit(describe_error(e)))
