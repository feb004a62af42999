"""Builds the search controller and panel and puts them in a dock a shortcut away.

The composition root (``app.build``) calls ``mount_search`` once after the window exists.
The dock starts hidden; ``Ctrl+Shift+F`` (View > Search All Sessions) shows it from
anywhere and puts the cursor in the query box. Nothing is indexed until the panel is
first shown, so an app that never searches never reads the machine's sessions.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDockWidget

from sessionlens.engine import search_index_dir
from sessionlens.gui import shortcuts
from sessionlens.gui.settings.profiles import load_profiles

from .controller import SearchController
from .panel import SearchPanel

if TYPE_CHECKING:
    from sessionlens.gui.main_window import MainWindow
    from sessionlens.gui.paths import AppPaths
    from sessionlens.gui.session_controller import SessionController
    from sessionlens.gui.tasks import TaskRunner


@dataclass(frozen=True, slots=True)
class SearchParts:
    """What ``mount_search`` made (tests reach in through this)."""

    controller: SearchController
    panel: SearchPanel
    dock: QDockWidget
    action: QAction


#: Room the dock separators and frames take between the three columns.
_SEPARATORS = 16


def _tr(text: str) -> str:
    return QCoreApplication.translate("SearchMount", text)


def fits_beside(window: MainWindow, dock: QDockWidget) -> bool:
    """Whether ``dock`` fits on the right of the central widget and the sessions dock
    within the window's width, without the window growing."""
    browser = window.browser_dock
    beside = (browser.width() if browser.isVisible() and not browser.isFloating()
              and not window.tabifiedDockWidgets(browser) else 0)
    central = window.centralWidget()
    need = ((central.minimumSizeHint().width() if central is not None else 0) + beside
            + dock.minimumSizeHint().width() + _SEPARATORS)
    return need <= window.width()


def make_room(window: MainWindow, dock: QDockWidget) -> None:
    """On a window too narrow for three columns (1,280 px: sessions, central, search would
    need ~1,440), the search dock shares the sessions dock's place as a tab instead of
    widening the window past the screen."""
    if window.browser_dock.isVisible() and not fits_beside(window, dock):
        window.tabifyDockWidget(window.browser_dock, dock)


def mount_search(window: MainWindow, session: SessionController, tasks: TaskRunner,
                 paths: AppPaths, *,
                 session_dirs: Callable[[], Sequence[Path]] | None = None) -> SearchParts:
    """Create the search parts, dock the panel (hidden) and add the action to the menus."""
    ctl = SearchController(session, tasks, search_index_dir(paths.cache_dir),
                           session_dirs=session_dirs, parent=window)
    panel = SearchPanel(ctl, lambda: load_profiles(paths.profiles_file))
    dock = QDockWidget(_tr("Search All Sessions"), window)
    dock.setObjectName("search")
    dock.setWidget(panel)
    window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
    dock.hide()
    action = QAction(_tr("Search All Sessions…"), window)
    action.setShortcut(shortcuts.sequence(shortcuts.SEARCH_SESSIONS))
    action.setShortcutContext(Qt.ShortcutContext.ApplicationShortcut)
    window.addAction(action)
    window.panels_menu.addAction(action)

    def show() -> None:
        if not dock.isVisible():
            make_room(window, dock)
        dock.show()
        dock.raise_()
        panel.fill_rankings()
        panel.focus_query()

    action.triggered.connect(show)
    dock.visibilityChanged.connect(lambda visible: ctl.refresh() if visible else None)
    session.sessions_ready.connect(panel.set_agents)
    return SearchParts(ctl, panel, dock, action)
