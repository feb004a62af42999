"""The audit of a summary: every check and its reason, coverage by class, what was dropped,
and the recovery pack to hand the dropped specifics back to the agent.

Shows the engine's ``AuditReport`` as it is; the recovery pack comes from the engine's
``build_recovery_pack``. Clicking a dropped item emits ``entry_activated(entry_id)`` so the
timeline can select the entry it came from.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, Qt, Signal
from PySide6.QtGui import QColor, QGuiApplication, QPainter
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from sessionlens.engine import build_recovery_pack
from sessionlens.gui.compaction.audit_models import (
    ChecksModel,
    CoverageModel,
    DroppedModel,
    ItemRole,
    RatioRole,
)

if TYPE_CHECKING:
    from sessionlens.engine import AuditReport, ChainAudit, RecoveryPack
    from sessionlens.gui.compaction.controller import CompactionController
    from sessionlens.gui.compaction.run import RunRecord

NO_AUDIT = ("No audit yet: select a recorded compaction (timeline, Memory tab, chart marker) "
            "or run a compaction in the Compaction tab.")
PASS_COLOR = "#1a7f37"
FAIL_COLOR = "#cf222e"
WARN_COLOR = "#9a6700"


class _BarDelegate(QStyledItemDelegate):
    """Draws the coverage ratio as a filled bar with the percentage on it."""

    def paint(self, painter: QPainter, option: QStyleOptionViewItem,
              index: QModelIndex | QPersistentModelIndex) -> None:
        ratio = index.data(RatioRole)
        if ratio is None:
            super().paint(painter, option, index)
            return
        r: QRect = option.rect.adjusted(3, 4, -3, -4)
        painter.save()
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor("#d0d7de"))
        painter.drawRect(r)
        fill = QColor(PASS_COLOR if ratio >= 0.999 else "#d29922" if ratio >= 0.8 else FAIL_COLOR)
        painter.setBrush(fill)
        painter.drawRect(QRect(r.left(), r.top(), int(r.width() * float(ratio)), r.height()))
        painter.setPen(QColor("#ffffff") if ratio > 0.5 else QColor("#24292f"))
        painter.drawText(r, int(Qt.AlignmentFlag.AlignCenter), str(index.data()))
        painter.restore()


def headline_html(report: AuditReport) -> str:
    """The engine's headline as it is: the rule's verdict and SessionLens's losses on two
    lines of their own (never one "passed" over red bars), then the checks and the facts."""
    h = report.headline
    rule_color = ("#57606a" if h.rule_accepts is None
                  else PASS_COLOR if h.rule_accepts else FAIL_COLOR)
    loss_color = {"none": PASS_COLOR, "some": WARN_COLOR}.get(h.loss_level, FAIL_COLOR)
    facts = (f"template {report.template} · identifier policy {report.identifier_policy} · "
             f"{report.summary_chars:,} characters")
    return (f'<b style="color:{rule_color};">{escape(h.rule)}</b><br>'
            f'<b style="color:{loss_color};">{escape(h.losses)}</b><br>'
            f'<span style="color:{PASS_COLOR if report.passed else FAIL_COLOR};">'
            f"{escape(h.checks)}</span> · {escape(facts)}")


def _table(model: ChecksModel | CoverageModel | DroppedModel) -> QTableView:
    view = QTableView()
    view.setModel(model)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.verticalHeader().setVisible(False)
    view.setWordWrap(True)
    view.setAlternatingRowColors(True)
    return view


class AuditPanel(QWidget):
    """The audit of the current run (or any report handed to ``show_report``)."""

    entry_activated = Signal(str)
    #: A dropped item of a recorded audit whose span lives in another file (path, entry id).
    file_entry_activated = Signal(str, str)

    def __init__(self, controller: CompactionController | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.report: AuditReport | None = None
        self.pack: RecoveryPack | None = None
        self.verdict = QLabel(self.tr(NO_AUDIT))
        self.verdict.setWordWrap(True)
        self.verdict.setTextFormat(Qt.TextFormat.RichText)

        self.checks_model, self.coverage_model = ChecksModel(self), CoverageModel(self)
        self.dropped_model = DroppedModel(self)
        self.checks = _table(self.checks_model)
        h = self.checks.horizontalHeader()
        h.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        h.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        h.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.checks.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.coverage = _table(self.coverage_model)
        self.coverage.setItemDelegateForColumn(3, _BarDelegate(self.coverage))
        ch = self.coverage.horizontalHeader()
        for col in (0, 1, 2):
            ch.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        ch.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        self.dropped = _table(self.dropped_model)
        dh = self.dropped.horizontalHeader()
        dh.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        dh.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        dh.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        self.dropped.clicked.connect(self._on_dropped_clicked)
        self.dropped.activated.connect(self._on_dropped_clicked)
        self.nothing_dropped = QLabel(self.tr("Nothing dropped: every specific found in the "
                                              "summarized span is in the summary."))
        self.nothing_dropped.setWordWrap(True)
        self.nothing_dropped.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.dropped_stack = QStackedWidget()
        self.dropped_stack.addWidget(self.dropped)
        self.dropped_stack.addWidget(self.nothing_dropped)
        self.dropped_box = QGroupBox(self.tr("Dropped (click to show in the timeline)"))
        QVBoxLayout(self.dropped_box).addWidget(self.dropped_stack)
        self.source = QComboBox()
        self.source.setVisible(False)
        self.source.activated.connect(self._on_source)
        self._record: RunRecord | None = None
        #: The recorded compaction shown (id, audit, file name), beside a run's.
        self._recorded: tuple[str, ChainAudit, str] | None = None
        coverage_box = QGroupBox(self.tr("Identifier coverage by class"))
        QVBoxLayout(coverage_box).addWidget(self.coverage)

        self.instruction = QLineEdit(readOnly=True)
        self.copy_instruction = QPushButton(self.tr("Copy /compact"))
        self.copy_instruction.clicked.connect(lambda: self._copy(self.instruction.text()))
        self.addendum = QPlainTextEdit(readOnly=True)
        self.copy_addendum = QPushButton(self.tr("Copy addendum"))
        self.copy_addendum.clicked.connect(lambda: self._copy(self.addendum.toPlainText()))
        pack_box = QGroupBox(self.tr("Recovery pack"))
        pl = QVBoxLayout(pack_box)
        row = QHBoxLayout()
        row.addWidget(self.instruction, 1)
        row.addWidget(self.copy_instruction)
        pl.addLayout(row)
        pl.addWidget(self.addendum, 1)
        pl.addWidget(self.copy_addendum, 0, Qt.AlignmentFlag.AlignRight)

        lower = QSplitter(Qt.Orientation.Horizontal)
        lower.addWidget(coverage_box)
        lower.addWidget(self.dropped_box)
        lower.setSizes([300, 500])
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.checks)
        split.addWidget(lower)
        split.addWidget(pack_box)
        split.setSizes([160, 250, 210])
        layout = QVBoxLayout(self)
        top = QHBoxLayout()
        top.addWidget(self.verdict, 1)
        top.addWidget(self.source)
        layout.addLayout(top)
        layout.addWidget(split, 1)
        self._set_pack_enabled(False)
        if controller is not None:
            controller.audit_ready.connect(self.show_record)
            controller.discarded.connect(lambda: self.show_report(None))

    # public ------------------------------------------------------------------------------------
    def show_record(self, record: RunRecord) -> None:
        """Show a run's audit; for a re-run, the recorded compaction's audit is one click away."""
        self._record = record
        self._recorded = None
        self.source.clear()
        self.source.addItem(self.tr("This run"), "run")
        if record.recorded_report is not None:
            self.source.addItem(self.tr("Compaction %1 as recorded").replace(
                "%1", record.rerun_of or ""), "recorded")
        self.source.setVisible(self.source.count() > 1)
        self._show_run(record)

    def show_recorded(self, compaction_id: str, audited: ChainAudit, file_name: str = "") -> None:
        """Show the audit of a compaction the transcript holds, as for a run; the current run
        (if any) stays one click away in the source list."""
        self._recorded = (compaction_id, audited, file_name)
        self.source.clear()
        if self._record is not None:
            self.source.addItem(self.tr("This run"), "run")
        self.source.addItem(self.tr("Compaction %1 as recorded").replace("%1", compaction_id),
                            "file")
        self.source.setCurrentIndex(self.source.count() - 1)
        self.source.setVisible(self.source.count() > 1)
        self._show_file_audit()

    def _show_file_audit(self) -> None:
        if self._recorded is None:
            return
        cid, audited, file_name = self._recorded
        label = self.tr("Recorded compaction %1, as the transcript holds it").replace("%1", cid)
        if audited.span_source is not None:
            label += self.tr(" (summarized entries read from the predecessor %1)").replace(
                "%1", audited.span_source.name)
        report = audited.report
        if report.carried_tail_entry_ids:
            label += self.tr(" · %1 of the summarized entries were the tail the previous "
                             "compaction kept verbatim, taken out of the context here").replace(
                "%1", str(len(report.carried_tail_entry_ids)))
            if report.carried_tail_text:  # what this compaction did with them, from the file
                label += " · " + report.carried_tail_text
        self.show_report(report, label, source=file_name)

    def _on_source(self, index: int) -> None:
        if self.source.itemData(index) == "file":
            self._show_file_audit()
            return
        rec = self._record
        if rec is None:
            return
        if self.source.itemData(index) == "recorded" and rec.recorded_report is not None:
            self.show_report(rec.recorded_report, self.tr("Compaction %1 as the transcript "
                                                          "recorded it").replace(
                "%1", rec.rerun_of or ""), source=rec.transcript.path.name)
        else:
            self._show_run(rec)

    def _show_run(self, record: RunRecord) -> None:
        label = self.tr("Run %1 (%2, %3)").replace("%1", str(record.number)).replace(
            "%2", record.result.provider).replace("%3", record.result.model or "-")
        if record.rerun_of:
            label += self.tr(", re-run of compaction %1").replace("%1", record.rerun_of)
        if record.outcome.provenance.origin != "generated":
            label += self.tr(", summary %1").replace("%1", record.outcome.provenance.label)
        self.show_report(record.report, label, source=record.transcript.path.name)

    def show_report(self, report: AuditReport | None, label: str = "", *, source: str = "") -> None:
        """Fill every part from ``report`` (None clears the panel)."""
        self.report = report
        for model in (self.checks_model, self.coverage_model, self.dropped_model):
            model.set_report(report)
        if report is None:
            self.verdict.setText(self.tr(NO_AUDIT))
            self.pack = None
            self.instruction.clear()
            self.addendum.clear()
            self._set_pack_enabled(False)
            return
        self.verdict.setText(headline_html(report)
                             + (f"<br><small>{label}</small>" if label else ""))
        self.dropped_box.setTitle(self.tr("Dropped: %1 (click to show in the timeline)").replace(
            "%1", str(len(report.dropped))))
        self.pack = build_recovery_pack(report.dropped, source=source)
        self.instruction.setText(self.pack.instruction)
        self.instruction.setCursorPosition(0)
        self.addendum.setPlainText(self.pack.addendum)
        self._set_pack_enabled(bool(self.pack.total))
        self.dropped_stack.setCurrentWidget(self.dropped if report.dropped
                                            else self.nothing_dropped)
        self.checks.resizeRowsToContents()

    # slots ---------------------------------------------------------------------------------------
    def _set_pack_enabled(self, dropped: bool) -> None:
        self.copy_instruction.setEnabled(self.pack is not None)
        self.copy_addendum.setEnabled(dropped)

    def _copy(self, text: str) -> None:
        QGuiApplication.clipboard().setText(text)

    def _on_dropped_clicked(self, index: QModelIndex) -> None:
        item = self.dropped_model.data(self.dropped_model.index(index.row(), 0), ItemRole)
        if item is None or not item.entry_ids:
            return
        recorded = self._recorded
        if (recorded is not None and recorded[1].span_source is not None
                and self.report is recorded[1].report):
            self.file_entry_activated.emit(str(recorded[1].span_source), item.entry_ids[0])
            return
        self.entry_activated.emit(item.entry_ids[0])
