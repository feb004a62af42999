"""Accept: say exactly which files a compaction will write before anything is written.

The engine decides names at write time (a successor is ``<timestamp>_<new session id>.jsonl``,
a checkpoint ``<session id>.checkpoint.<uuid>.jsonl``; it offers no dry run), so the list
names the folder, the fixed parts and the placeholders, and the exact paths are shown after
the write from the engine's ``WriteResult``. The store is the ``sessions.json`` the engine's
``find_store`` finds beside the transcript.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtWidgets import (
    QButtonGroup,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QRadioButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from sessionlens.engine import CHECKPOINT_MARK, PersistError, find_store, require_writable

if TYPE_CHECKING:
    from sessionlens.engine import Transcript, WriteMode
    from sessionlens.gui.compaction.run import RunRecord

MODES = ("successor", "append")


@dataclass(frozen=True, slots=True)
class PlannedWrite:
    """One file the write will create or change: checkpoint, successor, append or store."""

    kind: str
    path: str
    #: What the file will hold, in a sentence (shown beside the path).
    note: str = ""


def planned_writes(transcript: Transcript, mode: WriteMode) -> tuple[PlannedWrite, ...]:
    """What ``write_compaction(transcript, record, mode)`` will write, in write order."""
    folder = transcript.path.absolute().parent
    sid = transcript.session_id or transcript.path.stem
    out = [PlannedWrite("checkpoint", str(folder / f"{sid}{CHECKPOINT_MARK}<uuid>.jsonl"))]
    if mode == "successor":
        out.append(PlannedWrite("successor", str(folder / "<timestamp>_<new session id>.jsonl")))
    else:
        out.append(PlannedWrite("append", str(transcript.path.absolute())))
    store = find_store(folder)
    if store is not None:
        out.append(PlannedWrite("store", str(store)))
    return tuple(out)


def writable_problem(transcript: Transcript) -> str | None:
    """Why the engine would refuse to write this transcript, or None."""
    try:
        require_writable(transcript)
    except PersistError as exc:
        return str(exc)
    return None


class AcceptDialog(QDialog):
    """Choose successor or append, see the files, then Write (or Cancel: nothing written)."""

    def __init__(self, record: RunRecord, transcript: Transcript,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Accept compaction: files to be written"))
        self.resize(820, 420)
        self._t = transcript
        plan = record.plan
        facts = QLabel(self.tr(
            "Summary of %1 characters replacing %2 entries; first kept entry %3; about %4 → "
            "%5 tokens.").replace("%1", f"{len(record.result.summary):,}").replace(
            "%2", str(len(record.summarized_ids))).replace(
            "%3", plan.first_kept_entry_id or self.tr("none (hard boundary)")).replace(
            "%4", f"{int(plan.tokens_before):,}").replace("%5", f"{record.tokens_after:,}"))
        facts.setWordWrap(True)
        self.successor = QRadioButton(self.tr("Successor transcript (recommended): a new file; "
                                              "the original stays as it is"))
        self.append = QRadioButton(self.tr("Append to the original transcript (modifies it)"))
        self.successor.setChecked(True)
        group = QButtonGroup(self)
        group.addButton(self.successor)
        group.addButton(self.append)
        group.buttonToggled.connect(lambda *_: self._refresh())
        self.files = QTreeWidget()
        self.files.setHeaderLabels([self.tr("File"), self.tr("Path"), self.tr("What")])
        self.files.setRootIsDecorated(False)
        self.files.setWordWrap(True)
        self.problem = QLabel()
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet("color:#cf222e;")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.write_button = buttons.addButton(self.tr("Write these files"),
                                              QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        for w in (facts, self.successor, self.append):
            layout.addWidget(w)
        layout.addWidget(self.files, 1)
        layout.addWidget(self.problem)
        layout.addWidget(buttons)
        self._refresh()

    def mode(self) -> WriteMode:
        return "append" if self.append.isChecked() else "successor"

    def planned(self) -> tuple[PlannedWrite, ...]:
        return planned_writes(self._t, self.mode())

    def _describe(self, w: PlannedWrite) -> tuple[str, str]:
        if w.kind == "checkpoint":
            return self.tr("Checkpoint"), self.tr(
                "new file: a copy of the transcript as it is now (Undo restores it)")
        if w.kind == "successor":
            return self.tr("Successor"), self.tr(
                "new file: the kept entries and the new compaction; its header names %1 as "
                "parent. The original is not modified.").replace("%1", self._t.path.name)
        if w.kind == "append":
            return self.tr("Original"), self.tr(
                "the ORIGINAL transcript: the compaction entry is appended (the file is "
                "rewritten atomically)")
        if self.mode() == "successor":
            return self.tr("Session store"), self.tr(
                "updated: compaction count, a checkpoint record; sessionId and sessionFile "
                "point at the successor")
        return self.tr("Session store"), self.tr(
            "updated: compaction count and a checkpoint record")

    def _refresh(self) -> None:
        self.files.clear()
        for w in self.planned():
            title, note = self._describe(w)
            item = QTreeWidgetItem([title, w.path, note])
            item.setToolTip(1, w.path)
            item.setToolTip(2, note)
            self.files.addTopLevelItem(item)
        for col in (0, 1):
            self.files.resizeColumnToContents(col)
        problem = writable_problem(self._t)
        self.problem.setText(problem or "")
        self.problem.setVisible(problem is not None)
        self.write_button.setEnabled(problem is None)
