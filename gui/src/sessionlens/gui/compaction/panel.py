"""The compaction panel: focus instructions and options, the planned cut, Run / Cancel with
progress, then Accept / Discard / Undo and Export of the audited summary.

Everything it does goes through the injected ``CompactionController``. The three modal
steps (the outbound preview, the accept dialog, the save dialog) are injectable callables
so tests can answer them; by default they show the real dialogs.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from sessionlens.gui.compaction.controller import CompactionController
from sessionlens.gui.compaction.dialogs import dialog_accept, dialog_outbound, dialog_save
from sessionlens.gui.compaction.options import CompactionOptionsForm
from sessionlens.gui.compaction.run import RunOptions, RunRecord
from sessionlens.gui.compaction.status_text import (
    audit_text,
    finished_text,
    plan_text,
    progress_texts,
)
from sessionlens.gui.compaction.why_disabled import accept_blocked, disabled_reasons
from sessionlens.gui.refusal_box import Tell, tell_refused

if TYPE_CHECKING:
    from sessionlens.engine import (
        CompactionPlan,
        ExportFormat,
        ProgressEvent,
        ProviderProfile,
        Transcript,
        WriteMode,
        WriteResult,
    )
    from sessionlens.gui.compaction.edit import EditableSummary, SummaryEditor
    from sessionlens.gui.compaction.outbound import OutboundPreview
    from sessionlens.gui.compaction.pins import PinController
    from sessionlens.gui.compaction.prefs import CompactionPrefs

#: (preview, parent) -> secrets to keep, or None when the user cancels.
ConfirmOutbound = Callable[["OutboundPreview", QWidget], "frozenset[str] | None"]
#: (record, transcript, parent) -> write mode, or None when the user cancels.
ConfirmAccept = Callable[[RunRecord, "Transcript", QWidget],
                         "tuple[WriteMode, bool] | tuple[WriteMode, bool, bool] "
                         "| tuple[WriteMode, bool, bool, bool] | None"]
#: (format, parent) -> where to export, or None.
AskSavePath = Callable[[str, QWidget], "Path | None"]
_FORMAT_NAMES: dict[ExportFormat, str] = {"md": "Markdown", "json": "JSON", "html": "HTML"}
#: Below this width the options go above the result instead of beside it.
WIDE_LAYOUT_PX = 820


class CompactionPanel(QWidget):
    """Options in, run out; the controller does the work."""

    def __init__(self, controller: CompactionController, prefs: CompactionPrefs,
                 profiles: Callable[[], list[ProviderProfile]], *,
                 confirm_outbound: ConfirmOutbound = dialog_outbound,
                 confirm_accept: ConfirmAccept = dialog_accept,
                 ask_save_path: AskSavePath = dialog_save,
                 tell: Tell = tell_refused,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.c = controller
        self._tell = tell
        self._confirm_outbound, self._confirm_accept = confirm_outbound, confirm_accept
        self._ask_save_path = ask_save_path
        self._pending: RunOptions | None = None
        self._sized = False
        self.form = CompactionOptionsForm(prefs, profiles, controller.session.settings)
        self.form.sizes_changed.connect(controller.set_sizes)
        controller.session.settings_changed.connect(self.form.show_sizes)
        if controller.session.resolved is not None:
            self.form.show_sizes(controller.session.resolved)
        # the form's widgets, named on the panel too (tests and screenshots use them)
        self.instructions, self.template = self.form.instructions, self.form.template
        self.provider, self.model, self.policy = self.form.provider, self.form.model, self.form.policy
        self.keep_recent, self.reserve = self.form.keep_recent, self.form.reserve

        self.cut_label = QLabel(self.tr("No plan yet: open a transcript."))
        self.cut_label.setWordWrap(True)
        self.cut_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.run_button = QPushButton(self.tr("Run compaction"))
        self.cancel_button = QPushButton(self.tr("Cancel"))
        self.run_button.clicked.connect(self.run)
        self.cancel_button.clicked.connect(controller.cancel)
        self.progress = QProgressBar(textVisible=True)
        self.stage = QLabel()
        self.stage.setWordWrap(True)
        self.usage = QLabel()
        self.summary = QPlainTextEdit(readOnly=True)
        self.summary.setPlaceholderText(self.tr("The new summary appears here."))
        self.summary.setObjectName("summaryEditor")
        #: Set by ``attach_editing``: edits are audited as the user types.
        self.editor: SummaryEditor | None = None
        self.editing: EditableSummary | None = None
        self.edit_state = QLabel()
        self.edit_state.setWordWrap(True)
        self.edit_state.setObjectName("editState")
        self.revert_button = QPushButton(self.tr("Revert to generated"))
        self.revert_button.setVisible(False)
        self.accept_button = QPushButton(self.tr("Accept…"))
        self.discard_button = QPushButton(self.tr("Discard"))
        self.undo_button = QPushButton(self.tr("Undo last write"))
        self.accept_button.clicked.connect(self.accept_run)
        self.discard_button.clicked.connect(controller.discard)
        self.undo_button.clicked.connect(controller.undo)
        self.export_buttons: dict[ExportFormat, QPushButton] = {}
        for fmt, name in _FORMAT_NAMES.items():
            b = QPushButton(self.tr("Export %1").replace("%1", name))
            b.clicked.connect(lambda _=False, f=fmt: self.export(f))
            self.export_buttons[fmt] = b
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._layout()
        self._wire()
        self._update_buttons()
        if controller.plan is not None:
            self._on_plan(controller.plan)

    # layout ----------------------------------------------------------------------------------
    def _layout(self) -> None:
        plan = QGroupBox(self.tr("Planned cut"))
        QVBoxLayout(plan).addWidget(self.cut_label)
        left = QWidget()
        ll = QVBoxLayout(left)
        ll.setContentsMargins(0, 0, 4, 0)
        for w in (self.form, plan):
            ll.addWidget(w)
        ll.addStretch(1)
        self._left = ll
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(left)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        # Run and its progress head the result column, so they never scroll out of sight
        result = QGroupBox(self.tr("Run and result"))
        res = QVBoxLayout(result)
        run_row = QHBoxLayout()
        run_row.addWidget(self.run_button)
        run_row.addWidget(self.cancel_button)
        run_row.addWidget(self.progress, 1)
        res.addLayout(run_row)
        res.addWidget(self.stage)
        res.addWidget(self.usage)
        row = QHBoxLayout()
        for b in (self.accept_button, self.discard_button, self.undo_button):
            row.addWidget(b)
        row.addStretch(1)
        exports = QHBoxLayout()
        for b in self.export_buttons.values():
            exports.addWidget(b)
        exports.addStretch(1)
        res.addLayout(row)
        # the label on its own line: beside three buttons it was cut at 1280 px
        res.addWidget(QLabel(self.tr("Export the audited summary (also in File ▸ Export "
                                     "summary…):"), wordWrap=True))
        res.addLayout(exports)
        res.addWidget(self.status)
        edit_row = QHBoxLayout()
        edit_row.addWidget(self.edit_state, 1)
        edit_row.addWidget(self.revert_button)
        res.addLayout(edit_row)
        res.addWidget(self.summary, 1)
        self.split = QSplitter(Qt.Orientation.Horizontal)
        self.split.addWidget(scroll)
        self.split.addWidget(result)
        self.split.setChildrenCollapsible(False)
        # never narrower than the options need: with no horizontal scrollbar they would be cut
        scroll.setMinimumSize(max(280, left.minimumSizeHint().width()
                                  + scroll.verticalScrollBar().sizeHint().width()), 140)
        result.setMinimumSize(280, 140)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(4, 4, 4, 4)
        outer.addWidget(self.split)

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Options beside the result when there is room, above it in a narrow tab."""
        super().resizeEvent(event)
        wide = event.size().width() >= WIDE_LAYOUT_PX
        orientation = Qt.Orientation.Horizontal if wide else Qt.Orientation.Vertical
        if orientation != self.split.orientation() or not self._sized:
            self.split.setOrientation(orientation)
            total = event.size().width() if wide else event.size().height()
            self.split.setSizes([total // 2, total - total // 2])
            self._sized = True

    def _wire(self) -> None:
        c = self.c
        c.plan_ready.connect(self._on_plan)
        c.plan_failed.connect(self._on_plan_failed)
        c.outbound_ready.connect(self._on_outbound)
        c.run_started.connect(self._on_started)
        c.run_progress.connect(self._on_progress)
        c.run_finished.connect(self._on_finished)
        c.run_failed.connect(lambda m: self._stopped(self.tr("Failed: %1").replace("%1", m)))
        c.run_cancelled.connect(lambda: self._stopped(self.tr("Cancelled; nothing was written.")))
        c.audit_ready.connect(self._on_audit)
        c.writes_ready.connect(self._on_audit)  # tokens after, now measured on the file
        c.accepted.connect(self._on_accepted)
        c.write_failed.connect(self._on_write_failed)
        c.undone.connect(self._on_undone)
        c.discarded.connect(self._on_discarded)
        c.exported.connect(lambda p: self._set_status(self.tr("Exported to %1").replace("%1", p)))
        c.export_failed.connect(lambda m: self._set_status(self.tr("Export failed: %1").replace("%1", m)))

    # pins and editing ------------------------------------------------------------------------
    def attach_editing(self, pins: PinController, editor: SummaryEditor) -> None:
        """Show the session's pins, and make the summary editable after a run, each edit
        audited as the user types (``compaction.edit``)."""
        from sessionlens.gui.compaction.edit import EditableSummary
        from sessionlens.gui.compaction.pins import PinList

        self.pin_list = PinList(pins, self.c.session)
        box = QGroupBox(self.tr("Pinned entries (kept verbatim through compaction)"))
        QVBoxLayout(box).addWidget(self.pin_list)
        self._left.insertWidget(self._left.count() - 1, box)
        self.editor = editor
        self.editing = EditableSummary(self.summary, self.edit_state, self.revert_button,
                                       self.c, editor, self)
        self.editing.busy_changed.connect(self._update_buttons)

    def _fill_summary(self, record: RunRecord | None) -> None:
        if self.editing is not None:
            self.editing.show_run(record)
        elif record is None:
            self.summary.clear()
        else:
            self.summary.setPlainText(record.result.summary)

    # options ---------------------------------------------------------------------------------
    def options(self) -> RunOptions:
        """The panel's current choices."""
        return self.form.options()

    def set_cut_entry_id(self, entry_id: str | None) -> None:
        """Slot for the token view's cut line (None: automatic cut)."""
        self.c.set_cut_entry_id(entry_id)

    # actions -----------------------------------------------------------------------------------
    def run(self) -> None:
        opts = self.options()
        self.form.remember(opts)
        if opts.is_remote:
            self._pending = opts
            self._set_status(self.tr("Preparing the preview of what will be sent…"))
            self.c.prepare_outbound(opts)
        else:
            self.c.run(opts)

    def _on_outbound(self, preview: OutboundPreview) -> None:
        opts, self._pending = self._pending, None
        if opts is None:
            return
        keep = self._confirm_outbound(preview, self)
        if keep is None:
            self._set_status(self.tr("Not sent: the preview was cancelled."))
            return
        self.c.run(opts, keep_secrets=keep)

    def accept_run(self) -> None:
        record, t = self.c.current, self.c.transcript
        if record is None or t is None or not self.c.can_accept() or self._editing_busy():
            return
        choice = self._confirm_accept(record, t, self)
        if choice is not None:
            self._set_status(self.tr("Writing…"))
            self.c.accept(choice[0], accept_failed_audit=choice[1],
                          keep_retry_copies=len(choice) > 2 and bool(choice[2]),
                          allow_second_successor=len(choice) > 3 and bool(choice[3]))

    def export(self, fmt: ExportFormat) -> None:
        path = self._ask_save_path(fmt, self)
        if path is not None:
            self.c.export(fmt, path)

    # controller signals ----------------------------------------------------------------------------
    def _on_plan(self, plan: CompactionPlan) -> None:
        f = self.c.figures
        if f is None:
            return
        self.cut_label.setText(plan_text(plan, f))
        self._update_buttons()

    def _on_plan_failed(self, message: str) -> None:
        self.cut_label.setText(self.tr("No plan: %1 (lower Keep recent, or move the cut)")
                               .replace("%1", message))
        self._update_buttons()

    def _on_started(self, opts: RunOptions) -> None:
        self.progress.setRange(0, 0)
        self.stage.setText(self.tr("Starting with %1…").replace("%1", opts.profile.name))
        self.usage.clear()
        self._set_status("")
        self._update_buttons()

    def _on_progress(self, e: ProgressEvent) -> None:
        if e.chunk_count:
            self.progress.setRange(0, e.chunk_count)
            self.progress.setValue(e.chunk_index)
            self.progress.setFormat(self.tr("chunk %v of %m"))
        stage, usage = progress_texts(e)
        self.stage.setText(stage)
        self.usage.setText(usage)

    def _on_finished(self, record: RunRecord) -> None:
        if self.progress.maximum() > 0:  # every chunk of the plan done: "chunk N of N"
            self.progress.setValue(self.progress.maximum())
        else:  # no chunk was reported (nothing but a split turn's prefix)
            self.progress.setRange(0, 1)
            self.progress.setValue(1)
            self.progress.setFormat(self.tr("done"))
        self._fill_summary(record)
        self._set_status(finished_text(record))
        self._update_buttons()

    def _on_audit(self, record: RunRecord) -> None:
        report = record.report
        if report is None:
            return
        self._set_status(audit_text(record, report))
        self._update_buttons()

    def _on_accepted(self, result: WriteResult) -> None:
        names = "\n".join(str(p) for p in result.written)
        self._set_status(self.tr("Written:\n%1\nThe timeline now shows the new state.")
                         .replace("%1", names))
        self._fill_summary(None)
        self._update_buttons()

    def _on_write_failed(self, message: str) -> None:
        """A refused write: the whole reason, in the status and in a message box."""
        self._set_status(self.tr("Not written: %1").replace("%1", message))
        self._tell(self.tr("Not written"), message, self)
        self._update_buttons()

    def _on_undone(self, result: WriteResult) -> None:
        self._set_status(self.tr("Checkpoint restored as %1 (opened).").replace(
            "%1", str(result.successor_path)))
        self._update_buttons()

    def _on_discarded(self) -> None:
        self._fill_summary(None)
        self._set_status(self.tr("Discarded; nothing was written."))
        self._update_buttons()

    def _stopped(self, message: str) -> None:
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.stage.setText(message)
        self._set_status(message)
        self._update_buttons()

    def _editing_busy(self) -> bool:
        return self.editing is not None and self.editing.busy

    def _set_status(self, text: str) -> None:
        self.status.setText(text)

    def _update_buttons(self) -> None:
        c = self.c
        why = disabled_reasons(c, cut_text=self.cut_label.text(), accept=self.accept_blocked())
        for button, reason, tip in (
                (self.run_button, why.run, self.tr("Summarize the planned span with these "
                                                   "options, then audit it")),
                (self.accept_button, why.accept, self.tr("Choose how to write the summary "
                                                         "(successor, append, …)")),
                (self.discard_button, why.discard, ""),
                (self.undo_button, why.undo, self.tr("Restore the checkpoint of the last write")),
                *((b, why.export, self.tr("Save the audited summary with its audit"))
                  for b in self.export_buttons.values())):
            button.setEnabled(reason is None)
            button.setToolTip(reason or tip)
        self.cancel_button.setEnabled(c.is_running())

    def accept_blocked(self) -> str | None:
        """Why Accept is not possible now, in words for its tooltip (None: it is)."""
        if self._editing_busy():
            return self.tr("The edited summary is being audited: wait for its audit.")
        return accept_blocked(self.c)
