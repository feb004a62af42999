"""Restore / branch from a checkpoint: say which file will be written before writing it.

Same shape and safety as Accept (``accept_dialog``): the engine's ``restore_checkpoint``
writes one NEW file beside the source (``<timestamp>_<new session id>.jsonl``, named at
write time, created exclusively and atomically), copies the source's entries with the same
ids, and names the source as ``parentSession``; nothing existing is modified and the session
store is not touched. The dialog lists exactly that, refuses sources the engine would
refuse (Claude Code / Codex files), and the exact path is shown after the write.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from sessionlens.gui.compaction.accept_dialog import PlannedWrite, writable_problem

if TYPE_CHECKING:
    from sessionlens.engine import LineageNode, Transcript


def planned_restore(node: LineageNode, source: Transcript) -> tuple[PlannedWrite, ...]:
    """What ``restore_checkpoint(node.path)`` will write: one new file, nothing else."""
    folder = source.path.absolute().parent
    leaf = source.leaf_id or "—"
    return (PlannedWrite(
        "restored transcript", str(folder / "<timestamp>_<new session id>.jsonl"),
        f"new file: the {len(source.entries):,} entries of {source.path.name} (same ids; "
        f"leaf {leaf}); its header names {source.path.name} as parentSession. "
        f"{node.path.name if node.path else ''} and every other file stay as they are; "
        "sessions.json is not changed."),)


class RestoreDialog(QDialog):
    """Lists the file a restore will create; Write or Cancel (nothing written)."""

    def __init__(self, node: LineageNode, source: Transcript,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Restore from %1: file to be written").replace(
            "%1", node.title))
        self.resize(820, 300)
        what = self.tr("checkpoint") if node.kind == "checkpoint" else self.tr("transcript")
        facts = QLabel(self.tr("Branch a new transcript from this %1, as it stood at entry "
                               "%2. Open it afterwards to continue from there.")
                       .replace("%1", what).replace("%2", source.leaf_id or "—"))
        facts.setWordWrap(True)
        self.files = QTreeWidget()
        self.files.setHeaderLabels([self.tr("File"), self.tr("Path"), self.tr("What")])
        self.files.setRootIsDecorated(False)
        self.files.setWordWrap(True)
        self.planned = planned_restore(node, source)
        for w in self.planned:
            item = QTreeWidgetItem([self.tr(w.kind), w.path, self.tr(w.note)])
            item.setToolTip(1, w.path)
            item.setToolTip(2, w.note)
            self.files.addTopLevelItem(item)
        for col in (0, 1):
            self.files.resizeColumnToContents(col)
        self.problem = QLabel()
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet("color:#cf222e;")
        problem = writable_problem(source)
        if problem is None and not source.entries:
            problem = self.tr("The checkpoint holds no entries to restore.")
        self.problem.setText(problem or "")
        self.problem.setVisible(problem is not None)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.write_button = buttons.addButton(self.tr("Write this file"),
                                              QDialogButtonBox.ButtonRole.AcceptRole)
        self.write_button.setEnabled(problem is None)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(facts)
        layout.addWidget(self.files, 1)
        layout.addWidget(self.problem)
        layout.addWidget(buttons)
