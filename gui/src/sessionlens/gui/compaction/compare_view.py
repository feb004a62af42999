"""Before and after, side by side: the new summary against the previous summary, the text it
replaces, the run before it (A/B), or the summary a recorded compaction actually wrote.

Differences are highlighted by ``diff_html``; the A/B table lines up the two runs' audits.
"Re-run" takes a compaction from the transcript and summarizes its span again with the
panel's current options (through the controller), to see what another prompt would keep.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from sessionlens.engine import CHARS_PER_TOKEN, FIGURE_LABELS, serialize_entries
from sessionlens.gui.compaction.audit_models import class_title
from sessionlens.gui.compaction.diff_html import DISPLAY_LIMIT, marked_text, side_by_side

if TYPE_CHECKING:
    from sessionlens.gui.compaction.controller import CompactionController
    from sessionlens.gui.compaction.run import RunOptions, RunRecord

MODES = ("previous", "source", "ab", "recorded", "edited")
_BATCH = 200
#: The source text is marked and laid out on the UI thread: show at most this much of it.
SOURCE_LIMIT = 60_000


def _tokens(text: str) -> int:
    return int(-(-len(text) // CHARS_PER_TOKEN))


def _coverage_cell(record: RunRecord, cls: str) -> str:
    report = record.report
    if report is None:
        return "-"
    return next((f"{c.found}/{c.total} ({c.ratio:.0%})" for c in report.coverage
                 if c.cls == cls and c.total), "-")


class CompareView(QWidget):
    """Two aligned panes with the differences marked, and the A/B audit table."""

    def __init__(self, controller: CompactionController, options: Callable[[], RunOptions],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.c, self._options = controller, options
        self.mode = QComboBox()
        titles = (self.tr("New summary vs previous summary"),
                  self.tr("New summary vs the text it replaces"),
                  self.tr("A/B: the last two runs"),
                  self.tr("Re-run vs what the compaction recorded"),
                  self.tr("Generated summary vs your edit"))
        for key, text in zip(MODES, titles, strict=True):
            self.mode.addItem(text, key)
        self.mode.currentIndexChanged.connect(lambda _i: self.refresh())
        self.counts = QLabel()
        self.counts.setWordWrap(True)
        self.left_title, self.right_title = QLabel(), QLabel()
        self.left, self.right = QTextBrowser(), QTextBrowser()
        for pane in (self.left, self.right):
            pane.setOpenLinks(False)
        self.left.verticalScrollBar().valueChanged.connect(
            lambda v: self._sync(self.left, self.right))
        self.right.verticalScrollBar().valueChanged.connect(
            lambda v: self._sync(self.right, self.left))
        self.ab = QTableWidget(0, 2)
        self.ab.setHorizontalHeaderLabels([self.tr("A"), self.tr("B")])
        self.ab.horizontalHeader().setStretchLastSection(True)
        self.ab.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.compactions = QComboBox()
        self.rerun_button = QPushButton(self.tr("Re-run this compaction with the panel's options"))
        self.rerun_button.clicked.connect(self.rerun)

        top = QHBoxLayout()
        top.addWidget(QLabel(self.tr("Compare")))
        top.addWidget(self.mode, 1)
        rerun = QHBoxLayout()
        rerun.addWidget(QLabel(self.tr("Recorded compaction")))
        rerun.addWidget(self.compactions, 1)
        rerun.addWidget(self.rerun_button)
        panes = QWidget()
        grid = QGridLayout(panes)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.addWidget(self.left_title, 0, 0)
        grid.addWidget(self.right_title, 0, 1)
        grid.addWidget(self.left, 1, 0)
        grid.addWidget(self.right, 1, 1)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(panes)
        split.addWidget(self.ab)
        split.setSizes([470, 250])
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addLayout(rerun)
        layout.addWidget(self.counts)
        layout.addWidget(split, 1)

        controller.run_finished.connect(self._on_run)
        controller.audit_ready.connect(self._on_audit)
        controller.writes_ready.connect(self._on_audit)
        controller.runs_changed.connect(self._fill_ab)
        controller.session.loaded.connect(lambda _t: self._fill_compactions())
        controller.session.entry_selected.connect(self.preselect)
        self._fill_compactions()
        self.refresh()

    # public ------------------------------------------------------------------------------------
    def set_mode(self, key: str) -> None:
        idx = self.mode.findData(key)
        if idx >= 0:
            self.mode.setCurrentIndex(idx)

    def rerun(self) -> None:
        cid = self.compactions.currentData()
        if cid:
            self.c.rerun_compaction(str(cid), self._options())

    def texts(self) -> tuple[str, str, str, str]:
        """(left title, left text, right title, right text) for the chosen mode."""
        return self._texts()[:4]

    def _texts(self) -> tuple[str, str, str, str, bool]:
        """As ``texts`` plus whether the left side is the source text (marked, not diffed)."""
        runs = list(self.c.runs)
        rec = runs[-1] if runs else None
        key = self.mode.currentData()
        if rec is None:
            return "", "", "", "", False
        new = rec.result.summary
        title_new = self.tr("Run %1 (new summary)").replace("%1", str(rec.number))
        if key == "ab":
            if len(runs) < 2:
                return self.tr("A: (run again to compare)"), "", title_new, new, False
            a = runs[0]
            return (self.tr("A: run %1").replace("%1", str(a.number)), a.result.summary,
                    self.tr("B: run %1").replace("%1", str(rec.number)), new, False)
        if key == "edited":
            generated = rec.outcome.generated_summary
            if generated is None:
                return self.tr("(edit the summary in the Compaction tab first)"), "", \
                    title_new, new, False
            return (self.tr("Run %1 as generated").replace("%1", str(rec.number)), generated,
                    self.tr("Your edit (recorded as \"edited\")"), new, False)
        if key == "recorded":
            if rec.rerun_of is None:
                return self.tr("(re-run a recorded compaction first)"), "", title_new, new, False
            return (self.tr("Recorded summary of compaction %1").replace("%1", rec.rerun_of),
                    rec.recorded_summary or "", title_new, new, False)
        if key == "source":
            return (self.tr("The text being summarized (green: kept, red: dropped)"),
                    self._source_text(rec), title_new, new, True)
        prev = rec.plan.previous_summary
        if prev:
            return (self.tr("Previous summary (%1)").replace("%1", rec.plan.previous_compaction_id
                                                               or "-"), prev, title_new, new, False)
        return (self.tr("No previous summary: the text being summarized"),
                self._source_text(rec), title_new, new, True)

    def refresh(self) -> None:
        left_title, before, right_title, after, source = self._texts()
        dark = self.palette().color(QPalette.ColorRole.Base).lightness() < 128
        self.left_title.setText(f"<b>{left_title}</b>")
        self.right_title.setText(f"<b>{right_title}</b>")
        runs = list(self.c.runs)
        if not runs:
            self.left.clear()
            self.right.clear()
            self.counts.setText(self.tr("Run a compaction to compare before and after."))
            return
        rec = runs[-1]
        if source:
            self._show_marked(rec, before, after, dark)
            return
        diff = side_by_side(before, after, dark=dark)
        self.left.setHtml(diff.left_html)
        self.right.setHtml(diff.right_html)
        text = self.tr("%L1 %1 → %L2 %2 · this pair: %3 → %4 "
                       "tokens · lines +%5 −%6 ~%7").replace(
            "%L1", FIGURE_LABELS["tokens_before"]).replace(
            "%L2", FIGURE_LABELS["tokens_after"]).replace(
            "%1", f"{rec.figures.tokens_before:,}").replace("%2", f"{rec.tokens_after:,}").replace(
            "%3", f"{_tokens(before):,}").replace("%4", f"{_tokens(after):,}").replace(
            "%5", str(diff.added)).replace("%6", str(diff.removed)).replace("%7", str(diff.changed))
        if diff.identical and before:
            text += self.tr(" · the two texts are identical")
        if diff.truncated:
            text += self.tr(" (long text: only the first %1 characters are shown)").replace(
                "%1", f"{DISPLAY_LIMIT:,}")
        self.counts.setText(text)

    # internals -----------------------------------------------------------------------------------
    def _on_audit(self, record: RunRecord) -> None:
        if record.outcome.generated_summary is not None and self.mode.currentData() == "previous":
            self.set_mode("edited")  # an edit: show what the user changed
        self.refresh()
        self._fill_ab()

    def _show_marked(self, rec: RunRecord, before: str, after: str, dark: bool) -> None:
        """Source vs summary: mark the audit's kept and dropped entities on both sides."""
        report = rec.report
        dropped = [d.value for d in report.dropped] if report is not None else []
        lost = set(dropped)
        kept = [e.value for e in report.entities if e.value not in lost] if report else []
        left, cut = marked_text(before, kept=kept, dropped=dropped, dark=dark, limit=SOURCE_LIMIT)
        right, _ = marked_text(after, kept=kept, dark=dark)
        self.left.setHtml(left)
        self.right.setHtml(right)
        if report is None:
            text = self.tr("Auditing… kept and dropped specifics are marked when it is done.")
        else:
            text = self.tr("%L1 %1 → %L2 %2 · %3 of %4 specifics "
                           "kept, %5 dropped").replace(
                "%L1", FIGURE_LABELS["tokens_before"]).replace(
                "%L2", FIGURE_LABELS["tokens_after"]).replace(
                "%1", f"{rec.figures.tokens_before:,}").replace(
                "%2", f"{rec.tokens_after:,}").replace(
                "%3", str(len(report.entities) - len(dropped))).replace(
                "%4", str(len(report.entities))).replace("%5", str(len(dropped)))
        if cut:
            text += self.tr(" (long text: only the first %1 characters are shown)").replace(
                "%1", f"{SOURCE_LIMIT:,}")
        self.counts.setText(text)

    def _on_run(self, rec: RunRecord) -> None:
        if rec.rerun_of is not None:
            self.set_mode("recorded")
        elif self.mode.currentData() == "recorded":
            self.set_mode("previous")
        self.refresh()
        self._fill_ab()

    def _source_text(self, rec: RunRecord) -> str:
        """The summarized entries as the engine serializes them (stops past the display limit)."""
        t = rec.transcript
        ids = rec.summarized_ids
        parts: list[str] = []
        size = 0
        for start in range(0, len(ids), _BATCH):
            chunk = serialize_entries([t.entry(i) for i in ids[start:start + _BATCH]])
            parts.append(chunk)
            size += len(chunk)
            if size > SOURCE_LIMIT:
                break
        return "\n\n".join(p for p in parts if p)

    def _fill_compactions(self) -> None:
        self.compactions.clear()
        t = self.c.transcript
        for e in t.compactions if t is not None else ():
            self.compactions.addItem(self.tr("%1 (line %2, %3 tokens before)").replace(
                "%1", e.id).replace("%2", str(e.line)).replace(
                "%3", f"{e.tokens_before or 0:,}"), e.id)
        self.compactions.setCurrentIndex(self.compactions.count() - 1)
        self.rerun_button.setEnabled(self.compactions.count() > 0)
        selected = self.c.session.selected_id
        if selected is not None:
            self.preselect(selected)

    def preselect(self, entry_id: str) -> None:
        """A recorded compaction selected anywhere (timeline, Memory tab, chart) becomes the
        one to re-run; other selections leave the choice alone."""
        idx = self.compactions.findData(entry_id)
        if idx >= 0:
            self.compactions.setCurrentIndex(idx)

    def _fill_ab(self) -> None:
        runs = list(self.c.runs)
        rows: list[tuple[str, list[str]]] = []

        def add(label: str, value: Callable[[RunRecord], str]) -> None:
            rows.append((label, [value(r) for r in runs]))

        add(self.tr("Provider / model"), lambda r: f"{r.result.provider} / {r.result.model}")
        add(self.tr("Instructions"), lambda r: r.options.instructions or self.tr("(none)"))
        add(self.tr("Span"), lambda r: self.tr("%1 entries summarized; keep recent %2; first kept %3")
            .replace("%1", f"{r.figures.entries_summarized:,}").replace(
                "%2", f"{r.plan.keep_recent_tokens:,}").replace(
                "%3", r.figures.first_kept_entry_id or "-"))
        add(self.tr("Template / policy"),
            lambda r: f"{r.options.template} / {r.options.identifier_policy}")
        add(self.tr("Summary"), lambda r: self.tr("%1 chars, %L1 %2").replace(
            "%L1", FIGURE_LABELS["tokens_after"]).replace(
            "%1", f"{len(r.result.summary):,}").replace("%2", f"{r.tokens_after:,}"))
        add(self.tr("Cost"), lambda r: "-" if r.result.usage.cost is None
            else f"${r.result.usage.cost:.4f}")
        add(self.tr("Checks"), lambda r: self.tr("pending") if r.report is None else (
            (self.tr("passed") if r.report.passed else self.tr("FAILED"))
            + f" ({r.report.checks_passed}/{len(r.report.checks)})"))
        add(self.tr("OpenClaw's rule"), lambda r: "-" if r.report is None else
            r.report.headline.rule.removeprefix("OpenClaw's rule: "))
        add(self.tr("Dropped"), lambda r: "-" if r.report is None else str(len(r.report.dropped)))
        classes: list[str] = []
        for r in runs:
            for cov in r.report.coverage if r.report is not None else ():
                if cov.total and cov.cls not in classes:
                    classes.append(cov.cls)
        for cls in classes:
            add(class_title(cls), functools.partial(_coverage_cell, cls=cls))
        self.ab.setColumnCount(max(1, len(runs)))
        self.ab.setHorizontalHeaderLabels([self.tr("Run %1").replace("%1", str(r.number))
                                           for r in runs] or [self.tr("No runs yet")])
        self.ab.setRowCount(len(rows))
        self.ab.setVerticalHeaderLabels([label for label, _ in rows])
        for i, (_label, values) in enumerate(rows):
            for j, v in enumerate(values):
                item = QTableWidgetItem(v)
                item.setToolTip(v)
                self.ab.setItem(i, j, item)
        for col in range(self.ab.columnCount()):
            self.ab.horizontalHeader().setSectionResizeMode(col, QHeaderView.ResizeMode.Stretch)
        self.ab.resizeRowsToContents()

    @staticmethod
    def _sync(source: QTextBrowser, target: QTextBrowser) -> None:
        s, t = source.verticalScrollBar(), target.verticalScrollBar()
        if s.maximum() > 0 and t.maximum() > 0:
            t.blockSignals(True)
            t.setValue(round(s.value() / s.maximum() * t.maximum()))
            t.blockSignals(False)
