"""Restore / branch from a checkpoint: say which file will be written before writing it.

Same shape and safety as Accept (``compaction.accept_dialog``): everything shown is the
engine's dry run (``plan_restore``): the one NEW file, with the real name the restore will
use, holding the source's entries with the same ids and naming the source as
``parentSession``; nothing existing is modified. A source the engine would refuse (a Claude
Code or Codex file, an empty checkpoint) shows the engine's reason and cannot be written.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QTreeWidget,
    QVBoxLayout,
    QWidget,
)

from sessionlens.gui.compaction.accept_dialog import PlannedWrite, fill_file_list

if TYPE_CHECKING:
    from sessionlens.engine import LineageNode, RestorePlan


def planned_restore(plan: RestorePlan) -> tuple[PlannedWrite, ...]:
    """The dry run as the dialog's one row: the new file and what it will hold."""
    leaf = plan.leaf_id or "—"
    store = (f" {plan.store_path.name} will point at it." if plan.store_path is not None
             else " sessions.json is not changed.")
    return (PlannedWrite(
        "restored", str(plan.target),
        f"new file: the {plan.entries:,} entries of {plan.source.name} (same ids; leaf "
        f"{leaf}); its header names {plan.source.name} as parentSession. Every existing "
        f"file stays as it is.{store}"),)


class RestoreDialog(QDialog):
    """Lists the file a restore will create; Write or Cancel (nothing written)."""

    def __init__(self, node: LineageNode, plan: RestorePlan | str,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Restore from %1: file to be written").replace(
            "%1", node.title))
        self.resize(860, 300)
        what = self.tr("checkpoint") if node.kind == "checkpoint" else self.tr("transcript")
        leaf = plan.leaf_id if not isinstance(plan, str) else None
        facts = QLabel(self.tr("Branch a new transcript from this %1, as it stood at entry "
                               "%2. Open it afterwards to continue from there.")
                       .replace("%1", what).replace("%2", leaf or "—"))
        facts.setWordWrap(True)
        self.files = QTreeWidget()
        self.files.setHeaderLabels([self.tr("File"), self.tr("Path"), self.tr("What")])
        self.files.setRootIsDecorated(False)
        self.files.setWordWrap(True)
        self.planned = () if isinstance(plan, str) else planned_restore(plan)
        fill_file_list(self.files, self.planned)
        self.problem = QLabel(plan if isinstance(plan, str) else "")
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet("color:#cf222e;")
        self.problem.setVisible(isinstance(plan, str))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.write_button = buttons.addButton(self.tr("Write this file"),
                                              QDialogButtonBox.ButtonRole.AcceptRole)
        self.write_button.setEnabled(not isinstance(plan, str))
        self.write_button.setToolTip(plan if isinstance(plan, str) else "")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(facts)
        layout.addWidget(self.files, 1)
        layout.addWidget(self.problem)
        layout.addWidget(buttons)
