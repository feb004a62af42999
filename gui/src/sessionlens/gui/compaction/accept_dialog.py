"""Accept: say exactly which files a compaction will write before anything is written.

Everything shown is the engine's dry run of the write (``prepare_write``): the real file
names (chosen before the write, then used by it), what each file will hold, the first kept
entry the written file will carry and the tokens after measured on the result. A summary
that failed its audit can be written only after ticking a box that names the failed checks,
as ``--accept-failed-audit`` on the command line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QButtonGroup,
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QRadioButton,
    QTableWidget,
    QTableWidgetItem,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from sessionlens.engine import FIGURE_LABELS, PersistError, require_writable
from sessionlens.gui.compaction.audit_panel import headline_html
from sessionlens.gui.compaction.run import KEEP_RETRY_COPIES

if TYPE_CHECKING:
    from sessionlens.engine import Transcript, WriteMode
    from sessionlens.gui.compaction.run import RunRecord

#: The zero-width space ``breakable`` inserts (tests strip it to compare names).
ZWSP = "\u200b"
_BREAKS = re.compile(r"[/_.-](?=[^\s])")
#: A file-name column wider than this wraps (px).
NAME_COLUMN_CAP = 360
#: The full path of a file row (column 1 may show only its name).
PATH_ROLE = Qt.ItemDataRole.UserRole + 31
_KIND_TITLES = {"checkpoint": "Checkpoint", "successor": "Successor", "append": "Original",
                "store": "Session store", "restored": "Restored transcript"}


@dataclass(frozen=True, slots=True)
class PlannedWrite:
    """One row of a write's file list: the kind of file, its path, what it will hold."""

    kind: str
    path: str
    note: str = ""


def writable_problem(transcript: Transcript) -> str | None:
    """Why the engine would refuse to write this transcript, or None."""
    try:
        require_writable(transcript)
    except PersistError as exc:
        return str(exc)
    return None


def fill_file_list(tree: QTreeWidget, rows: tuple[PlannedWrite, ...]) -> None:
    """Show ``rows`` in a three-column list (the Restore dialog's)."""
    tree.clear()
    for w in rows:
        title = tree.tr(_KIND_TITLES.get(w.kind, w.kind))
        item = QTreeWidgetItem([title, w.path, w.note])
        item.setToolTip(1, w.path)
        item.setToolTip(2, w.note)
        tree.addTopLevelItem(item)
    for col in (0, 1):
        tree.resizeColumnToContents(col)


def fill_file_table(table: QTableWidget, rows: tuple[PlannedWrite, ...], folder: Path) -> None:
    """The Accept dialog's files: a file in ``folder`` by its name (the dialog names the
    folder once above), names and notes wrapped inside their cells (never cut to "…"); the
    full path is the tooltip and ``PATH_ROLE``."""
    table.setRowCount(len(rows))
    for r, w in enumerate(rows):
        path = Path(w.path)
        shown = path.name if path.parent == folder else w.path
        cells = [table.tr(_KIND_TITLES.get(w.kind, w.kind)), breakable(shown), breakable(w.note)]
        for c, text in enumerate(cells):
            item = QTableWidgetItem(text)
            item.setData(PATH_ROLE, w.path)
            item.setToolTip(w.path if c < 2 else w.note)
            table.setItem(r, c, item)
    table.resizeColumnToContents(0)
    table.resizeColumnToContents(1)
    table.setColumnWidth(1, min(table.columnWidth(1), NAME_COLUMN_CAP))
    table.resizeRowsToContents()


def breakable(text: str) -> str:
    """``text`` with a zero-width break after each ``/ _ - .`` so a long file name wraps
    inside its cell instead of being cut to "…" (the full text is the cell's tooltip)."""
    return _BREAKS.sub(lambda m: m.group(0) + ZWSP, text)


class AcceptDialog(QDialog):
    """Choose successor or append, see the files, then Write (or Cancel: nothing written)."""

    def __init__(self, record: RunRecord, transcript: Transcript,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Accept compaction: files to be written"))
        self.resize(980, 600)
        self._t, self._record = transcript, record
        self.facts = QLabel()
        self.facts.setWordWrap(True)
        # the audit being accepted: the rule's verdict and the losses, as the Audit tab says
        self.audit = QLabel(headline_html(record.report))
        self.audit.setWordWrap(True)
        self.audit.setTextFormat(Qt.TextFormat.RichText)
        self._folder = transcript.path.absolute().parent
        # a session inside a database (``DB/SESSION``: OpenClaw's store) is written as rows
        in_db = self._folder.is_file()
        self.folder = QLabel((self.tr("In the database %1:") if in_db else
                              self.tr("In the folder %1:")).replace("%1", str(self._folder)))
        self.folder.setWordWrap(True)
        self.folder.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.successor = QRadioButton(self.tr("Successor transcript (recommended): a new file; "
                                              "the original stays as it is"))
        self.append = QRadioButton(
            self.tr("Append to this session in the database (modifies it; backed up first)")
            if in_db else self.tr("Append to the original transcript (modifies it)"))
        self.successor.setChecked(True)
        if record.write_plan("successor") is None and record.write_plan("append") is not None:
            self.append.setChecked(True)  # e.g. OpenClaw's store: its compactor appends
        group = QButtonGroup(self)
        group.addButton(self.successor)
        group.addButton(self.append)
        group.buttonToggled.connect(lambda *_: self._refresh())
        self.files = QTableWidget(0, 3)
        self.files.setHorizontalHeaderLabels([self.tr("File"), self.tr("Name"), self.tr("What")])
        self.files.verticalHeader().setVisible(False)
        self.files.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.files.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.files.setWordWrap(True)
        self.files.horizontalHeader().setStretchLastSection(True)
        # rows grow to their wrapped text again whenever a column's width changes
        self.files.horizontalHeader().sectionResized.connect(
            lambda *_a: self.files.resizeRowsToContents())
        self.retry_note = QLabel()
        self.retry_note.setWordWrap(True)
        self.retries = QTreeWidget()
        self.retries.setHeaderLabels([self.tr("Copy"), self.tr("Line"), self.tr("Reply"),
                                      self.tr("Kept copy"), self.tr("Prompt")])
        self.retries.setRootIsDecorated(False)
        self.keep_retries = QCheckBox(self.tr(
            "Keep these copies (turn dropping off for this write; on the command line: "
            "compact --keep-retry-copies)"))
        self.keep_retries.toggled.connect(lambda _on: self._refresh())
        self.problem = QLabel()
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet("color:#cf222e;")
        report = record.report
        failed = [c.name for c in report.checks if not c.passed]
        self.accept_failed = QCheckBox(self.tr(
            "The audit FAILED (%1). Write this summary anyway.").replace("%1", ", ".join(failed)))
        self.accept_failed.setVisible(not report.passed)
        self.accept_failed.toggled.connect(lambda _on: self._refresh())
        # one continuation: a second successor of the same original is asked for, by name
        self.allow_second = QCheckBox()
        self._existing: Path | None = None
        self.allow_second.setVisible(False)
        self.allow_second.toggled.connect(lambda _on: self._refresh())
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.write_button = buttons.addButton(self.tr("Write these files"),
                                              QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        for w in (self.audit, self.facts, self.successor, self.append, self.folder):
            layout.addWidget(w)
        layout.addWidget(self.files, 1)
        for part in (self.retry_note, self.retries, self.keep_retries):
            layout.addWidget(part)
        self._fill_retries()
        layout.addWidget(self.accept_failed)
        layout.addWidget(self.allow_second)
        layout.addWidget(self.problem)
        layout.addWidget(buttons)
        self._refresh()

    def mode(self) -> WriteMode:
        return "append" if self.append.isChecked() else "successor"

    def keep_retry_copies(self) -> bool:
        return self.mode() == "successor" and self.keep_retries.isChecked()

    def _key(self) -> str:
        return KEEP_RETRY_COPIES if self.keep_retry_copies() else self.mode()

    def _fill_retries(self) -> None:
        """The retry storm's unanswered copies the successor leaves out (the engine's dry run)."""
        prepared = self._record.write_plan("successor")
        copies = prepared.dropped_retry_copies if prepared is not None else ()
        self.retries.clear()
        for c in copies:
            item = QTreeWidgetItem([c.entry_id, str(c.line), c.outcome, c.kept_entry_id,
                                    c.preview])
            item.setToolTip(4, c.preview)
            self.retries.addTopLevelItem(item)
        for col in range(4):
            self.retries.resizeColumnToContents(col)
        self.retry_note.setText(self.tr(
            "The successor leaves out %1 unanswered cop(ies) of a prompt the channel sent "
            "again (a retry storm) and their failed replies; the answered copy stays.").replace(
            "%1", str(len(copies))))
        rows = max(1, min(len(copies), 4))
        self.retries.setMaximumHeight(self.retries.sizeHintForRow(0) * (rows + 1) + 12
                                      if copies else 0)
        for part in (self.retry_note, self.retries, self.keep_retries):
            part.setVisible(bool(copies))

    def second_successor_allowed(self) -> bool:
        """True when the original has no successor yet, or the user ticked the box that
        names the one it has."""
        return self._existing is None or self.allow_second.isChecked()

    def failed_audit_accepted(self) -> bool:
        return self._record.report.passed or self.accept_failed.isChecked()

    def planned(self) -> tuple[PlannedWrite, ...]:
        prepared = self._record.write_plan(self._key())
        if prepared is None:
            return ()
        return tuple(PlannedWrite(f.kind, str(f.path), f.note) for f in prepared.files)

    def _refresh(self) -> None:
        L = FIGURE_LABELS
        prepared = self._record.write_plan(self._key())
        fig = self._record.figures
        if prepared is not None:
            self.facts.setText(self.tr(
                "Summary of %1 characters for %2 %L1; %L2 %3 (as the file will hold it); "
                "%L3 %4 → %L4 %5 (measured on the file to be written)").replace(
                "%L1", L["entries_summarized"]).replace("%L2", L["first_kept_entry_id"]).replace(
                "%L3", L["tokens_before"]).replace("%L4", L["tokens_after"]).replace(
                "%1", f"{len(self._record.result.summary):,}").replace(
                "%2", f"{fig.entries_summarized:,}").replace(
                "%3", prepared.first_kept_entry_id).replace(
                "%4", f"{prepared.tokens_before:,}").replace("%5", f"{prepared.tokens_after:,}"))
        fill_file_table(self.files, self.planned(), self._folder)
        why = self._record.write_plans.get(self._key())
        self.keep_retries.setEnabled(self.mode() == "successor")
        problem = why if isinstance(why, str) else (
            None if why is not None else self.tr("The write is still being prepared."))
        existing = prepared.existing_successor if prepared is not None else None
        self._existing = existing
        if existing is not None:
            self.allow_second.setText(self.tr(
                "%1 already has a successor, %2: an agent session has one continuation. "
                "Write a second one anyway (on the command line: compact "
                "--allow-second-successor).").replace("%1", self._t.path.name).replace(
                "%2", existing.name))
        self.allow_second.setVisible(existing is not None)
        if problem is None and not self.failed_audit_accepted():
            problem = self.tr("Nothing is written while the audit fails, unless you tick the "
                              "box above.")
        if problem is None and existing is not None and not self.allow_second.isChecked():
            problem = self.tr("Nothing is written: %1 already has the successor %2 (compact "
                              "that file instead), unless you tick the box above.").replace(
                "%1", self._t.path.name).replace("%2", existing.name)
        self.problem.setText(problem or "")
        self.problem.setVisible(problem is not None)
        self.write_button.setEnabled(problem is None)
        self.write_button.setToolTip(problem or "")
