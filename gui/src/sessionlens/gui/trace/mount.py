"""Builds the trace controller and the Trace tab, and the "Trace this…" menu entries.

The composition root (``app.build``) calls ``mount_trace`` once, after the compaction parts
exist: a message's selected text and a dropped item of the Audit tab can be traced from
their context menus; a mention or compaction of the answer selects its entry (opening its
file first when it belongs to another file of the chain).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QPoint, Qt
from PySide6.QtWidgets import QMenu

from .controller import TraceController
from .panel import TracePanel

if TYPE_CHECKING:
    from sessionlens.gui.compaction.mount import CompactionParts
    from sessionlens.gui.main_window import MainWindow
    from sessionlens.gui.session_controller import SessionController
    from sessionlens.gui.tasks import TaskRunner

#: Longest selection offered to "Trace this…" (a fact, not a page).
MAX_QUERY_CHARS = 200


def _tr(text: str) -> str:
    return QCoreApplication.translate("TraceMount", text)


@dataclass(frozen=True, slots=True)
class TraceParts:
    """What ``mount_trace`` made (tests and screenshots reach in through this)."""

    controller: TraceController
    panel: TracePanel
    tab_index: int
    #: What "Trace this…" does with a text: show the Trace tab and trace it.
    trace: Callable[[str], None]


def mount_trace(window: MainWindow, session: SessionController, tasks: TaskRunner,
                compaction: CompactionParts) -> TraceParts:
    """Create the trace parts, add the Trace tab and the context-menu entries."""
    ctl = TraceController(session, tasks, parent=window)
    panel = TracePanel(ctl)
    index = window.add_workbench_tab(panel, _tr("Trace"))

    def trace(text: str) -> None:
        window.workbench.setCurrentIndex(index)
        panel.trace(text[:MAX_QUERY_CHARS])

    message = window.message

    def message_menu(pos: QPoint) -> None:
        menu = message.createStandardContextMenu(pos)
        selected = message.textCursor().selectedText().replace("\u2029", " ").strip()
        act = menu.addAction(_tr("Trace this…"), lambda: trace(selected))
        act.setEnabled(bool(selected))
        if selected:
            act.setToolTip(_tr("Which compaction lost %1?").replace("%1", selected[:60]))
        menu.exec(message.viewport().mapToGlobal(pos))
        menu.deleteLater()

    message.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
    message.customContextMenuRequested.connect(message_menu)

    dropped = compaction.audit.dropped

    def dropped_menu(pos: QPoint) -> None:
        idx = dropped.indexAt(pos)
        if not idx.isValid():
            return
        value = str(dropped.model().index(idx.row(), 1).data() or "")
        menu = QMenu(dropped)
        menu.addAction(_tr("Trace this…"), lambda: trace(value))
        menu.exec(dropped.viewport().mapToGlobal(pos))
        menu.deleteLater()

    dropped.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
    dropped.customContextMenuRequested.connect(dropped_menu)
    panel.entry_activated.connect(lambda p, e: session.open_at(Path(p), e))
    return TraceParts(ctl, panel, index, trace)
