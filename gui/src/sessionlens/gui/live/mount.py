"""Builds the Live controller and panel and adds them as the Live page.

A page, not a dock: the list of running sessions and the selected one's next cut need the
window's width (in a dock beside the timeline they had 420 px at 1280×800, and clipped).
View ▸ Live Sessions (``Ctrl+Shift+L``) shows it from anywhere. Nothing is read until the
page is first shown. "Open its audit" opens the session at the compaction, which fills the Audit page
(as selecting a recorded compaction anywhere does), and shows that page. A compaction also
shows in the status bar and, where the desktop has a tray, as a desktop notification.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QSystemTrayIcon

from sessionlens.engine import LiveEvent, add_pins, default_session_dirs, load_transcript
from sessionlens.gui import shortcuts
from sessionlens.gui.icons import icon

from .controller import LiveController
from .panel import LivePanel

if TYPE_CHECKING:
    from sessionlens.gui.compaction.mount import CompactionParts
    from sessionlens.gui.main_window import MainWindow
    from sessionlens.gui.paths import AppPaths
    from sessionlens.gui.session_controller import SessionController
    from sessionlens.gui.tasks import TaskRunner


def _tr(text: str) -> str:
    return QCoreApplication.translate("LiveMount", text)


@dataclass(frozen=True, slots=True)
class LiveParts:
    """What ``mount_live`` made (tests and screenshots reach in through this)."""

    controller: LiveController
    panel: LivePanel
    tab_index: int
    action: QAction
    #: Says ``text`` in the status bar and, where the desktop has a tray, as a desktop
    #: notification; clicking that runs the callable given (e.g. open the audit).
    notify: Callable[[str, Callable[[], None] | None], None]


def mount_live(window: MainWindow, session: SessionController, tasks: TaskRunner,
               paths: AppPaths, compaction: CompactionParts, *,
               roots: Callable[[], Sequence[Path]] | None = None) -> LiveParts:
    """Create the Live parts and dock them (behind the session browser until asked for)."""
    ctl = LiveController(tasks, roots or default_session_dirs, parent=window)
    audit = compaction.audit

    def open_audit(path: Path, compaction_id: str) -> None:
        session.open_at(path, compaction_id)
        window.workbench.setCurrentIndex(window.workbench.indexOf(audit))

    def pin(path: Path, entry_id: str) -> None:
        panel.pin_note.setText(_tr("Pinning %1…").replace("%1", entry_id))

        def job(_r: object, _c: object) -> int:
            return len(add_pins(load_transcript(path), [entry_id], paths.state_dir).entry_ids)

        tasks.run(job, on_done=lambda n: panel.pin_note.setText(
            _tr("Pinned %1: the agent's next compaction carries it word for word where "
                "SessionLens runs it (%2 pins in this session)").replace("%1", entry_id)
            .replace("%2", str(n))),
            on_error=lambda exc: panel.pin_note.setText(str(exc)))

    panel = LivePanel(ctl, open_audit=open_audit, pin=pin)
    index = window.add_workbench_tab(panel, _tr("Live"))
    window.pages.setTabToolTip(index, _tr("Sessions being written now: context against the "
                                          "threshold, the next automatic cut, compactions as "
                                          "they happen"))
    action = QAction(_tr("Live Sessions"), window)
    action.setShortcut(shortcuts.sequence(shortcuts.LIVE_SESSIONS))
    action.setShortcutContext(Qt.ShortcutContext.ApplicationShortcut)
    window.addAction(action)
    window.panels_menu.addAction(action)
    tray = QSystemTrayIcon(icon("app"), window) if QSystemTrayIcon.isSystemTrayAvailable() \
        else None

    def show() -> None:
        window.workbench.setCurrentIndex(index)
        ctl.start()

    def on_page(_i: int) -> None:
        if window.workbench.currentWidget() is panel:
            ctl.start()

    clicked: list[Callable[[], None] | None] = [None]

    def notify(text: str, on_click: Callable[[], None] | None = None) -> None:
        window.statusBar().showMessage(text, 15_000)
        clicked[0] = on_click
        if tray is not None:
            tray.show()
            tray.showMessage(_tr("SessionLens"), text)

    def on_tray_click() -> None:
        if clicked[0] is not None:
            clicked[0]()

    def on_event(event: LiveEvent) -> None:
        if event.kind != "compaction":
            return
        cid, path = event.compaction_id, event.path
        notify(_tr("Compaction in %1: %2").replace("%1", event.path.name).replace(
            "%2", event.verdict or event.detail),
            None if cid is None else lambda: open_audit(path, cid))

    if tray is not None:
        tray.messageClicked.connect(on_tray_click)
    action.triggered.connect(show)
    window.workbench.currentChanged.connect(on_page)
    ctl.live_event.connect(on_event)
    return LiveParts(ctl, panel, index, action, notify)
