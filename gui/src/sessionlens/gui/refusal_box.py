"""Telling the user why something was refused or failed: the whole reason, in a message box
any window can open (the main window, the export actions, the compaction panel)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QWidget

__all__ = ["Tell", "tell_refused"]

#: (title, full message, parent): show a refusal or a failure, whole.
Tell = Callable[[str, str, QWidget], None]


def tell_refused(title: str, message: str, parent: QWidget) -> None:
    """A window-modal message box with the whole reason (it does not block the event loop)."""
    box = QMessageBox(QMessageBox.Icon.Warning, title, message, QMessageBox.StandardButton.Ok,
                      parent)
    box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.open()
