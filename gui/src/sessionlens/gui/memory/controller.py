"""MemoryController: the session's memory health and the audit of any recorded compaction.

Both come from the engine and run on the task pool: ``examine_memory`` once the file's
chain (load, count, plan) has settled and again when the settings change (the window moves
the thresholds); ``audit_compaction_in_chain`` for a compaction selected before the health
is known (after that, the health already holds every audit, so selecting one costs nothing).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal

from sessionlens.engine import ChainAudit, audit_compaction_in_chain, examine_memory
from sessionlens.gui.session_controller import describe_error

if TYPE_CHECKING:
    from sessionlens.engine import MemoryHealth, Transcript
    from sessionlens.gui.session_controller import SessionController
    from sessionlens.gui.tasks import CancelCheck, Progress, TaskRunner


#: Files up to this size are examined as soon as they settle. Every audit of a 100 MB session
#: held the GIL for seconds at a time (load 1.8 s -> 11 s, 3.8 s stalls in
#: benchmarks/gui_responsiveness.py), so bigger files wait until the Memory tab is shown.
EAGER_BYTES = 20_000_000


class MemoryController(QObject):
    """Computes the memory health per opened file and hands out recorded audits."""

    health_started = Signal()
    health_ready = Signal(object)          # MemoryHealth
    health_failed = Signal(str)
    #: (compaction id, ChainAudit): the audit of a recorded compaction, as the file holds it.
    audit_ready = Signal(str, object)
    audit_failed = Signal(str, str)        # compaction id, message

    def __init__(self, session: SessionController, tasks: TaskRunner,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._session, self._tasks = session, tasks
        self.health: MemoryHealth | None = None
        self._for: Transcript | None = None
        self._audits: dict[str, ChainAudit] = {}
        #: Whether the Memory tab is shown, and whether a big file waits for it to be.
        self.active = False
        self.pending = False
        session.loaded.connect(self._on_loaded)
        session.settled.connect(self._on_settled)
        session.settings_changed.connect(self._on_settings)
        session.entry_selected.connect(self._on_selected)

    @property
    def session(self) -> SessionController:
        return self._session

    # health ---------------------------------------------------------------------------------
    def _on_loaded(self, _t: object) -> None:
        self.health, self._for, self._audits, self.pending = None, None, {}, False

    def _on_settled(self) -> None:
        t = self._session.transcript
        if t is None or self._for is t:
            return
        if self.active or t.file_size <= EAGER_BYTES:
            self.refresh()
        else:  # a big file: examined when the Memory tab is shown
            self.pending = True

    def set_active(self, active: bool) -> None:
        """The Memory tab is shown (or hidden); a big file waiting to be examined starts now."""
        self.active = active
        t = self._session.transcript
        if active and self.pending and t is not None and not self._session.is_busy():
            self.refresh()

    def _on_settings(self, _resolved: object) -> None:
        """New settings move the thresholds: examine again, once the first examination of
        this file has started (at load it waits for the chain to settle, not to compete)."""
        if self._for is not None and self._for is self._session.transcript:
            self.refresh()

    def refresh(self) -> None:
        """Examine the open transcript again (latest wins)."""
        t, resolved = self._session.transcript, self._session.resolved
        if t is None or resolved is None:
            return
        self._for, self.pending = t, False
        tokens = self._session.tokens.report if self._session.tokens is not None else None
        settings, source = resolved.settings, resolved.context_window.source

        def job(_p: Progress, _c: CancelCheck) -> MemoryHealth:
            return examine_memory(t, settings, tokens=tokens, window_source=source)

        self.health_started.emit()
        self._tasks.run(job, on_done=lambda h: self._on_health(t, h),
                        on_error=lambda e: self._on_health_error(t, e), group="memory-health")

    def _on_health(self, t: Transcript, health: MemoryHealth) -> None:
        if t is not self._session.transcript:
            return
        self.health = health
        for row in health.compactions:
            self._audits[row.compaction_id] = ChainAudit(row.audit, row.span_source)
        self.health_ready.emit(health)

    def _on_health_error(self, t: Transcript, exc: BaseException) -> None:
        if t is self._session.transcript:
            self.health_failed.emit(describe_error(exc))

    # recorded audits ------------------------------------------------------------------------
    def _on_selected(self, entry_id: str) -> None:
        t = self._session.transcript
        entry = t.get(entry_id) if t is not None else None
        if entry is not None and entry.type == "compaction":
            self.show_audit(entry_id)

    def show_audit(self, compaction_id: str) -> None:
        """Announce the audit of ``compaction_id`` (cached, else audited on the pool)."""
        known = self._audits.get(compaction_id)
        if known is not None:
            self.audit_ready.emit(compaction_id, known)
            return
        t = self._session.transcript
        if t is None or t.get(compaction_id) is None:
            return

        def job(_p: Progress, _c: CancelCheck) -> Any:
            return audit_compaction_in_chain(t, compaction_id)

        def done(audited: ChainAudit) -> None:
            if t is self._session.transcript:
                self._audits[compaction_id] = audited
                self.audit_ready.emit(compaction_id, audited)

        def failed(exc: BaseException) -> None:
            if t is self._session.transcript:
                self.audit_failed.emit(compaction_id, describe_error(exc))

        self._tasks.run(job, on_done=done, on_error=failed, group="recorded-audit")
