"""The editable summary: every edit re-audited as the user types, off the UI thread.

After a run the summary in the compaction panel can be changed. Each change waits for a
pause in typing (``EDIT_DEBOUNCE_MS``), then the engine's ``edited_outcome`` scrubs the text
and audits it with the run's own checks, span and pins on the task pool (latest wins: a
newer edit cancels the older audit). The result replaces the current run, so the Audit
tab, Compare ("generated vs edited") and Accept all see the edit, and the write records it
as "edited".
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QPushButton

from sessionlens.engine import edited_outcome
from sessionlens.gui.session_controller import describe_error

if TYPE_CHECKING:
    from sessionlens.engine import CompactionOutcome
    from sessionlens.gui.compaction.controller import CompactionController
    from sessionlens.gui.compaction.run import RunRecord
    from sessionlens.gui.tasks import CancelCheck, Progress, TaskRunner

#: The pause in typing after which an edit is audited.
EDIT_DEBOUNCE_MS = 300


class SummaryEditor(QObject):
    """Debounces edits and audits each on the pool; ``audited`` brings the edited run."""

    auditing = Signal()            # an edit went to be audited
    audited = Signal(object)       # RunRecord holding the edit and its audit
    failed = Signal(str)

    def __init__(self, controller: CompactionController, tasks: TaskRunner,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._c, self._tasks = controller, tasks
        self._text: str | None = None
        self.timer = QTimer(self, singleShot=True, interval=EDIT_DEBOUNCE_MS)
        self.timer.timeout.connect(self._send)

    def edit(self, text: str) -> None:
        """The user changed the summary to ``text`` (audited after the debounce)."""
        self._text = text
        self.timer.start()

    def flush(self) -> None:
        """Audit the pending edit now (Accept does not wait for the debounce)."""
        if self.timer.isActive():
            self.timer.stop()
            self._send()

    @property
    def pending(self) -> bool:
        return self.timer.isActive()

    def _send(self) -> None:
        record, text = self._c.current, self._text
        if record is None or text is None or text == record.result.summary:
            return
        t, outcome, number = record.transcript, record.outcome, record.number
        key = record.options.profile.read_key()

        def job(_p: Progress, _c: CancelCheck) -> CompactionOutcome:
            return edited_outcome(t, outcome, text, known_secrets=[key] if key else [])

        def done(edited: CompactionOutcome) -> None:
            cur = self._c.current
            if cur is None or cur.number != number or text != self._text:
                return  # a newer edit, another run, or the run was written meanwhile
            updated: RunRecord = dataclasses.replace(cur, outcome=edited)
            self._c.replace_current(updated)
            self.audited.emit(self._c.current)

        self.auditing.emit()
        self._tasks.run(job, on_done=done, group="summary-edit",
                        on_error=lambda e: self.failed.emit(describe_error(e)))


class EditableSummary(QObject):
    """The panel's summary box bound to a ``SummaryEditor``: read-only until a run, then
    editable; says whether the shown text is generated or edited and how its audit went."""

    busy_changed = Signal()

    def __init__(self, box: QPlainTextEdit, state: QLabel, revert: QPushButton,
                 controller: CompactionController, editor: SummaryEditor,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.box, self.state, self.revert = box, state, revert
        self._c, self._editor = controller, editor
        #: An edit is waiting for (or in) its audit: Accept waits too.
        self.busy = False
        self._filling = False
        box.textChanged.connect(self._on_text)
        revert.clicked.connect(self._revert)
        editor.auditing.connect(lambda: state.setText(self.tr("Re-auditing your edit…")))
        editor.audited.connect(self._on_audited)
        editor.failed.connect(lambda m: self._done(
            self.tr("The edit could not be audited: %1").replace("%1", m)))

    def show_run(self, record: RunRecord | None) -> None:
        """A finished run's summary (editable), or nothing (after Accept or Discard)."""
        self._filling = True
        try:
            self.box.setPlainText(record.result.summary if record is not None else "")
        finally:
            self._filling = False
        self.box.setReadOnly(record is None)
        self.revert.setVisible(False)
        self._set_busy(False)
        self.state.setText("" if record is None else self.tr(
            "Summary %1. Edit it here: every edit is audited again.").replace(
            "%1", record.outcome.provenance.label))

    def _set_busy(self, busy: bool) -> None:
        if busy != self.busy:
            self.busy = busy
            self.busy_changed.emit()

    def _on_text(self) -> None:
        if self._filling or self._c.current is None:
            return
        self._set_busy(True)
        self.state.setText(self.tr("Edited: the audit runs again when you pause typing."))
        self._editor.edit(self.box.toPlainText())

    def _on_audited(self, record: RunRecord) -> None:
        if self._editor.pending:
            return  # typing went on: the next audit follows
        report, origin = record.report, record.outcome.provenance.origin
        scrubbed = record.result.summary != self.box.toPlainText()
        self.revert.setVisible(origin == "edited")
        h = report.headline
        self._done(self.tr("Your edit: %1. %2. %3. Accept writes it, recorded as \"%6\".")
            .replace("%1", h.rule).replace("%2", h.losses).replace("%3", h.checks)
            .replace("%6", origin)
            + (self.tr(" Secrets were removed from it before the audit.") if scrubbed else ""))

    def _done(self, text: str) -> None:
        self.state.setText(text)
        self._set_busy(False)

    def _revert(self) -> None:
        record = self._c.current
        generated = record.outcome.generated_summary if record is not None else None
        if generated is not None:
            self.box.setPlainText(generated)
