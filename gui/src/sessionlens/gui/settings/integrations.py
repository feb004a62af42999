"""Settings ▸ Agents' compactions: ``sessionlens integrate`` from the app.

Pick an agent, see every file the engine would create, edit or remove (its diff), then
install or uninstall; nothing is written until the user presses the button, and each file
that exists is backed up beside itself first (the engine's ``apply_changes``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from sessionlens.engine import (
    INTEGRATION_AGENTS,
    SessionLensError,
    apply_changes,
    plan_changes,
    user_folders,
)

if TYPE_CHECKING:
    from pathlib import Path

    from sessionlens.engine import FileChange


def changes_text(changes: list[FileChange]) -> str:
    """Every planned change with its diff, as ``integrate --dry-run`` prints them."""
    if not changes:
        return "Nothing to change."
    out: list[str] = []
    for c in changes:
        out.append(f"{c.action} {c.path}  ({c.why})")
        out += c.diff_lines()
    return "\n".join(out)


class IntegrationsDialog(QDialog):
    """Preview, install and uninstall SessionLens in an agent's own compactions."""

    def __init__(self, basedir: Path | None = None, parent: QWidget | None = None) -> None:
        """``basedir``: the app's ``--basedir`` (SessionLens's folders the agents' channel
        is told to use)."""
        super().__init__(parent)
        self.setWindowTitle(self.tr("Agents' own compactions"))
        self._folders = user_folders(basedir)
        self.agent_box = QComboBox()
        self.agent_box.addItems(list(INTEGRATION_AGENTS))
        self.uninstall_box = QComboBox()
        self.uninstall_box.addItems([self.tr("Install"), self.tr("Uninstall")])
        self.preview = QPlainTextEdit()
        self.preview.setReadOnly(True)
        self.preview.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.apply_button = QPushButton(self.tr("Make these changes"))
        top = QHBoxLayout()
        top.addWidget(QLabel(self.tr("Agent")))
        top.addWidget(self.agent_box, 1)
        top.addWidget(self.uninstall_box)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        lay = QVBoxLayout(self)
        lay.addLayout(top)
        lay.addWidget(self.preview, 1)
        lay.addWidget(self.status)
        lay.addWidget(self.apply_button)
        lay.addWidget(close)
        close.rejected.connect(self.reject)
        self.agent_box.currentIndexChanged.connect(lambda _i: self.refresh())
        self.uninstall_box.currentIndexChanged.connect(lambda _i: self.refresh())
        self.apply_button.clicked.connect(self.apply)
        self.changes: list[FileChange] = []
        self.refresh()

    def _plan(self) -> list[FileChange]:
        return plan_changes(self.agent_box.currentText(), self._folders,
                            uninstall=self.uninstall_box.currentIndex() == 1)

    def refresh(self) -> None:
        """Plan again and show the diff (nothing is written)."""
        try:
            self.changes = self._plan()
        except SessionLensError as exc:
            self.changes = []
            self.preview.setPlainText("")
            self.status.setText(str(exc))
            self.apply_button.setEnabled(False)
            return
        self.preview.setPlainText(changes_text(self.changes))
        self.status.setText(self.tr("Nothing is written until you press the button; every "
                                    "file that exists is backed up beside itself first."))
        self.apply_button.setEnabled(bool(self.changes))

    def apply(self) -> None:
        try:
            backups = apply_changes(self.changes)
        except (SessionLensError, OSError) as exc:
            self.status.setText(str(exc))
            return
        self.refresh()
        self.status.setText(self.tr("Done. Backups: %1").replace(
            "%1", ", ".join(str(b) for b in backups) or self.tr("none (new files only)")))
