"""Undo a compaction SessionLens wrote, in one action, after saying exactly what changes.

The engine does the work (``plan_undo`` is the dry run, ``undo_compaction`` the write: the
checkpoint taken before the compaction is forked into a new transcript and OpenClaw's
``sessions.json`` records are repointed to it); this module plans on the task pool, asks
(the dialog lists the engine's ``UndoPlan.changes`` word for word), writes on the pool and
opens the restored file. The lineage view uses it for a selected compaction; any other view
(the memory-health view) calls ``CompactionUndo.request(path, compaction_id)`` the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QObject, Signal
from PySide6.QtWidgets import QMessageBox, QWidget

from sessionlens.engine import PersistError, load_transcript, plan_undo, undo_compaction
from sessionlens.gui.session_controller import describe_error

if TYPE_CHECKING:
    from sessionlens.engine import UndoPlan, WriteResult
    from sessionlens.gui.session_controller import SessionController
    from sessionlens.gui.tasks import CancelCheck, Progress, TaskRunner

#: (the engine's dry run, or why the undo cannot be done; parent) -> go ahead?
ConfirmUndo = Callable[["UndoPlan | str", "QWidget | None"], bool]


def undo_message(plan: UndoPlan) -> str:
    """The confirmation's text: the engine's list of changes, one per line."""
    return "\n\n".join(plan.changes)


def _tr(text: str) -> str:
    return QCoreApplication.translate("CompactionUndo", text)


def ask_undo(plan: UndoPlan | str, parent: QWidget | None) -> bool:
    """A dialog stating exactly what will change; for a refusal, why, and no way on."""
    if isinstance(plan, str):
        QMessageBox.warning(parent, _tr("Cannot undo"), plan)
        return False
    box = QMessageBox(QMessageBox.Icon.Question,
                      _tr("Undo compaction %1").replace("%1", plan.compaction_id),
                      undo_message(plan), QMessageBox.StandardButton.Cancel, parent)
    go = box.addButton(_tr("Undo this compaction"), QMessageBox.ButtonRole.AcceptRole)
    box.setDefaultButton(QMessageBox.StandardButton.Cancel)
    box.exec()
    return box.clickedButton() is go


class CompactionUndo(QObject):
    """Plan, confirm, undo, open: one call, ``request``; ``undone`` brings the restore."""

    planned = Signal(object)   # UndoPlan or the reason it cannot be done
    undone = Signal(object)    # WriteResult of the restore
    failed = Signal(str)

    def __init__(self, session: SessionController, tasks: TaskRunner, *,
                 confirm: ConfirmUndo = ask_undo, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._session, self._tasks = session, tasks
        #: Asked before anything is written (tests answer it themselves).
        self.confirm = confirm

    def request(self, path: Path, compaction_id: str | None = None,
                parent: QWidget | None = None) -> None:
        """Undo ``compaction_id`` of the file at ``path`` (default: its last compaction)."""
        def job(_p: Progress, _c: CancelCheck) -> UndoPlan | str:
            try:
                return plan_undo(load_transcript(path), compaction_id)
            except PersistError as exc:
                return describe_error(exc)

        self._tasks.run(job, on_done=lambda plan: self._ask(plan, parent), group="undo",
                        on_error=lambda e: self.failed.emit(describe_error(e)))

    def _ask(self, plan: UndoPlan | str, parent: QWidget | None) -> None:
        self.planned.emit(plan)
        go = self.confirm(plan, parent)  # a refusal is shown too, with its reason
        if isinstance(plan, str):
            self.failed.emit(plan)
            return
        if not go:
            return

        def job(_p: Progress, _c: CancelCheck) -> WriteResult:
            return undo_compaction(plan)

        self._tasks.run(job, on_done=self._done, group="undo",
                        on_error=lambda e: self.failed.emit(describe_error(e)))

    def _done(self, result: WriteResult) -> None:
        self.undone.emit(result)
        if result.successor_path is not None:
            self._session.open(Path(result.successor_path))
