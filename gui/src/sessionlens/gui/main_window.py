"""The main window: lays out the panels and wires actions to the controller. No logic.

Layout: session browser (left dock) | timeline | token panel over the workbench tabs
(Message now; later panels such as compaction, compare, audit and lineage are added with
``add_workbench_tab``) | diagnostics (bottom dock). Loading progress and Cancel live in
the status bar. Every workbench tab but Message is a page of its own: choosing it lets the
workbench fill the window (timeline and chart step aside; View ▸ Workbench fills the window
toggles it back), so the compaction workflow has room at 1280×800. Splitters and docks have
minimum sizes, so no part shrinks past use.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDropEvent, QIcon, QResizeEvent
from PySide6.QtWidgets import (
    QDockWidget,
    QFileDialog,
    QLabel,
    QMainWindow,
    QMenu,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTabBar,
    QTabWidget,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from sessionlens.gui import shortcuts
from sessionlens.gui.icons import icon
from sessionlens.gui.prefs import Prefs
from sessionlens.gui.refusal_box import tell_refused
from sessionlens.gui.session_controller import SessionController

from .sessions.browser import SessionBrowser
from .transcript.diagnostics_panel import DiagnosticsPanel
from .transcript.message_view import MessageView
from .transcript.timeline_view import TimelineView
from .transcript.token_view import TokenPanel

if TYPE_CHECKING:
    from sessionlens.engine import Transcript

STAGES = {"load": "Loading", "count": "Counting tokens", "plan": "Planning"}
#: The sessions dock's usual width (it gets it back when the window grows).
BROWSER_WIDTH = 340
#: The page that shows the timeline, the chart and the selected message.
INSPECT_TAB = "Timeline"


class MainWindow(QMainWindow):
    """Top-level window; gets the controller, prefs and two callbacks injected."""

    def __init__(self, controller: SessionController, prefs: Prefs, *, sample_path: Path,
                 open_settings: Callable[[QWidget], None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._c, self._prefs, self._sample = controller, prefs, sample_path
        self.setWindowTitle("SessionLens")
        self.setWindowIcon(icon("app"))
        self.setAcceptDrops(True)
        self.resize(1440, 900)

        self.timeline = TimelineView(controller)
        self.tokens = TokenPanel(controller)
        self.message = MessageView(controller)
        self.workbench = QTabWidget()
        self.workbench.setDocumentMode(True)
        self.workbench.addTab(self.message, self.tr(INSPECT_TAB))
        self.right = right = QSplitter(Qt.Orientation.Vertical)
        right.addWidget(self.tokens)
        right.addWidget(self.workbench)
        right.setChildrenCollapsible(False)
        self.workbench.setMinimumHeight(220)
        right.setSizes([470, 430])
        self.split = QSplitter(Qt.Orientation.Horizontal)
        self.split.addWidget(self.timeline)
        self.split.addWidget(right)
        self.split.setChildrenCollapsible(False)
        # never narrower than its filter bar needs (below that its fields overlap)
        self.timeline.setMinimumWidth(max(300, self.timeline.minimumSizeHint().width()))
        right.setMinimumWidth(460)
        self.split.setStretchFactor(0, 2)
        self.split.setStretchFactor(1, 3)
        self.split.setSizes([480, 900])
        # the pages (Timeline, Lineage, Compaction, …, Memory, Trace, Pruning) switch from one
        # bar across the whole window: in the workbench's own bar, beside the timeline, eight
        # titles did not fit at 1280 px; the workbench keeps the stack, its bar is hidden
        self.pages = QTabBar()
        self.pages.setObjectName("pages")
        self.pages.setDocumentMode(True)
        self.pages.setExpanding(False)
        self.pages.addTab(self.tr(INSPECT_TAB))
        self.pages.setTabToolTip(0, self.tr("The timeline, the token chart and the selected "
                                            "message"))
        self.workbench.tabBar().hide()
        central = QWidget()
        column = QVBoxLayout(central)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(self.pages)
        column.addWidget(self.split, 1)
        self.setCentralWidget(central)

        self.browser = SessionBrowser(controller)
        self.browser_dock = self._dock(self.tr("Sessions on this machine"), "sessions", self.browser,
                                       Qt.DockWidgetArea.LeftDockWidgetArea)
        self.diagnostics = DiagnosticsPanel(controller)
        self.diag_dock = self._dock(self.tr("Diagnostics"), "diagnostics", self.diagnostics,
                                    Qt.DockWidgetArea.BottomDockWidgetArea)
        # its table keeps every header whole (table_fit), so the dock never shrinks past use
        self.resizeDocks([self.browser_dock], [BROWSER_WIDTH], Qt.Orientation.Horizontal)
        self.resizeDocks([self.diag_dock], [140], Qt.Orientation.Vertical)
        self.diag_dock.hide()  # shown when a file has unreadable lines

        self.progress = QProgressBar()
        self.progress.setMaximumWidth(260)
        self.progress.setTextVisible(True)
        self.progress.setVisible(False)
        self.cancel_button = QPushButton(icon("action-cancel"), self.tr("Cancel"))
        self.cancel_button.setVisible(False)
        self.status_label = QLabel(self.tr("Ready"))
        self.statusBar().addWidget(self.status_label, 1)
        self.statusBar().addPermanentWidget(self.progress)
        self.statusBar().addPermanentWidget(self.cancel_button)

        self.recent_menu = QMenu(self.tr("Open &Recent"), self)
        self._build_actions(open_settings)
        self._wire()

    # construction helpers ---------------------------------------------------------------------
    def _dock(self, title: str, name: str, widget: QWidget, area: Qt.DockWidgetArea) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(name)
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        return dock

    def _action(self, text: str, key: str | None, slot: Callable[[], object],
                seq: shortcuts.Key | None = None) -> QAction:
        act = QAction(icon(key) if key else QIcon(), text, self)
        if seq is not None:
            act.setShortcut(shortcuts.sequence(seq))
        act.triggered.connect(slot)
        self.addAction(act)
        return act

    def _build_actions(self, open_settings: Callable[[QWidget], None]) -> None:
        c = self._c
        self.act_open = self._action(self.tr("&Open…"), "action-open", self.choose_file, shortcuts.OPEN)
        self.act_sample = self._action(self.tr("Open &Sample Session"), "action-sample",
                                       lambda: c.open(self._sample), shortcuts.OPEN_SAMPLE)
        self.act_reload = self._action(self.tr("&Reload"), "action-reload", c.reload, shortcuts.RELOAD)
        self.act_cancel = self._action(self.tr("Cancel"), "action-cancel", c.cancel, shortcuts.CANCEL)
        self.act_settings = self._action(self.tr("&Settings…"), "action-settings",
                                         lambda: open_settings(self), shortcuts.SETTINGS)
        self.act_quit = self._action(self.tr("&Quit"), None, self.close, shortcuts.QUIT)
        self.act_find = self._action(self.tr("Find"), None, self.timeline.search.setFocus, shortcuts.FIND)
        self._action(self.tr("Next entry"), None, lambda: self.timeline.step(1), shortcuts.NEXT_ENTRY)
        self._action(self.tr("Previous entry"), None, lambda: self.timeline.step(-1), shortcuts.PREV_ENTRY)
        self.act_browser = self.browser_dock.toggleViewAction()
        self.act_browser.setIcon(icon("action-browser"))
        self.act_browser.setShortcut(shortcuts.sequence(shortcuts.SESSION_BROWSER))
        self.act_diag = self.diag_dock.toggleViewAction()
        self.act_diag.setShortcut(shortcuts.sequence(shortcuts.DIAGNOSTICS))
        self.act_focus = self._action(self.tr("&Workbench fills the window"), None,
                                      lambda: self.set_workbench_focus(self.act_focus.isChecked()),
                                      shortcuts.WORKBENCH_FOCUS)
        self.act_focus.setCheckable(True)
        self.act_focus.setToolTip(self.tr("Hide the timeline and the chart while a workbench "
                                          "tab (Compaction, Compare, Audit, …) needs the room"))
        self.act_dark = QAction(self.tr("&Dark mode"), self)
        self.act_dark.setCheckable(True)
        self.act_dark.setToolTip(self.tr("Switch between the dark and the light theme "
                                         "(the same choice as in Settings)"))

        file_menu = self.menuBar().addMenu(self.tr("&File"))
        for a in (self.act_open, self.act_sample):
            file_menu.addAction(a)
        file_menu.addMenu(self.recent_menu)
        file_menu.addSeparator()
        self.export_anchor = file_menu.addSeparator()  # export actions are inserted here
        for a in (self.act_reload, self.act_settings):
            file_menu.addAction(a)
        file_menu.addSeparator()
        file_menu.addAction(self.act_quit)
        view_menu = self.menuBar().addMenu(self.tr("&View"))
        for a in (self.act_browser, self.act_diag, self.act_find, self.act_focus):
            view_menu.addAction(a)
        view_menu.addSeparator()
        view_menu.addAction(self.act_dark)
        view_menu.addSeparator()
        self.file_menu = file_menu
        self.panels_menu = view_menu

        bar = QToolBar(self.tr("Main"))
        bar.setObjectName("main-toolbar")
        bar.setMovable(False)
        bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        for a in (self.act_open, self.act_reload, self.act_sample, self.act_browser, self.act_settings):
            bar.addAction(a)
        self.addToolBar(bar)
        self._refresh_recent()

    def _wire(self) -> None:
        c = self._c
        self.cancel_button.clicked.connect(c.cancel)
        self.recent_menu.aboutToShow.connect(self._refresh_recent)
        c.progress.connect(self._on_progress)
        c.busy_changed.connect(self._on_busy)
        c.loaded.connect(self._on_loaded)
        c.failed.connect(self._on_failed)
        self.workbench.currentChanged.connect(self._on_tab)
        self.workbench.currentChanged.connect(self.pages.setCurrentIndex)
        self.pages.currentChanged.connect(self.workbench.setCurrentIndex)

    # public extension point for later panels (compaction, compare, audit, lineage) --------------
    def add_workbench_tab(self, widget: QWidget, title: str) -> int:
        """Add a page (a workbench panel and its title in the page bar); returns its index."""
        index = self.workbench.addTab(widget, title)
        self.pages.insertTab(index, title)
        return index

    def add_file_action(self, action: QAction) -> None:
        """Put an action (Export…) into the File menu, above Reload and Settings."""
        self.file_menu.insertAction(self.export_anchor, action)

    def tab_titles(self) -> list[str]:
        return [self.workbench.tabText(i).replace("&", "") for i in range(self.workbench.count())]

    def show_tab(self, title: str) -> bool:
        """Make the workbench tab called ``title`` current (case-insensitive); False if none."""
        for i, text in enumerate(self.tab_titles()):
            if text.casefold() == title.casefold():
                self.workbench.setCurrentIndex(i)
                return True
        return False

    def set_workbench_focus(self, on: bool) -> None:
        """Let the workbench fill the window (timeline and chart hidden), or share it again."""
        self.timeline.setVisible(not on)
        self.tokens.setVisible(not on)
        self.act_focus.setChecked(on)

    def _on_tab(self, index: int) -> None:
        self.set_workbench_focus(self.workbench.widget(index) is not self.message)

    def resizeEvent(self, event: QResizeEvent) -> None:
        """A sessions dock squeezed by a small window gets its width back when there is room."""
        super().resizeEvent(event)
        dock = self.browser_dock
        if (dock.isVisible() and not dock.isFloating() and dock.width() < BROWSER_WIDTH
                and event.size().width() >= 1200):
            self.resizeDocks([dock], [BROWSER_WIDTH], Qt.Orientation.Horizontal)

    # slots ----------------------------------------------------------------------------------------
    def choose_file(self) -> None:
        t = self._c.transcript
        start = str(t.source_file.parent) if t is not None else str(Path.home())
        path, _ = QFileDialog.getOpenFileName(self, self.tr("Open transcript"), start,
                                              self.tr("Transcripts (*.jsonl *.json *.db *.txt *.md);;"
                                                      "All files (*)"))
        if path:
            self._c.open(Path(path))

    def _refresh_recent(self) -> None:
        self.recent_menu.clear()
        for p in self._prefs.recent_files():
            act = self.recent_menu.addAction(p.name)
            act.setToolTip(str(p))
            act.triggered.connect(lambda _=False, p=p: self._c.open(p))
        self.recent_menu.setEnabled(bool(self.recent_menu.actions()))

    def _on_progress(self, stage: str, done: int, total: int) -> None:
        self.progress.setVisible(bool(stage))
        self.cancel_button.setVisible(bool(stage) and stage != "plan")
        if not stage:
            return
        self.progress.setRange(0, total if total > 0 else 0)
        if total > 0:
            self.progress.setValue(done)
        self.progress.setFormat(self.tr(STAGES.get(stage, stage)) + " %p%")

    def _on_busy(self, busy: bool) -> None:
        self.act_reload.setEnabled(not busy)

    def _on_loaded(self, t: Transcript) -> None:
        name = t.session_name or t.path.name
        self.setWindowTitle(f"{name} — SessionLens")
        diags = len(t.diagnostics)
        # the file's name here, its whole path in the tooltip: a long path would be cut off
        self.status_label.setToolTip("\n".join((str(t.path), *t.gaps.notes)))
        self.status_label.setText(
            self.tr("%1 · %2 · %3 entries · %4 on the active path · %5 compactions")
            .replace("%1", t.path.name).replace("%2", t.format).replace("%3", f"{len(t.entries):,}")
            .replace("%4", f"{len(t.active_path):,}").replace("%5", str(len(t.compactions)))
            + (self.tr(" · %1 unreadable lines").replace("%1", str(diags)) if diags else "")
            + (self.tr(" · not recorded by %1: %2").replace("%1", t.gaps.agent)
               .replace("%2", ", ".join(t.gaps.missing)) if t.gaps.missing else ""))
        self.diag_dock.setVisible(diags > 0)

    def _on_failed(self, message: str) -> None:
        self.status_label.setText(self.tr("Could not open the file (see the message)")
                                  if self.isVisible() else message)
        self.status_label.setToolTip(message)
        if self.isVisible():  # window-modal, not blocking: the whole reason, selectable
            tell_refused(self.tr("SessionLens"), message, self)

    # drag and drop, closing ---------------------------------------------------------------------
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls() and any(u.isLocalFile() for u in event.mimeData().urls()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        for url in event.mimeData().urls():
            if url.isLocalFile():
                self._c.open(Path(url.toLocalFile()))
                event.acceptProposedAction()
                return

    def closeEvent(self, event: QCloseEvent) -> None:
        if self._c.is_busy():
            self._c.cancel()  # closing stops loading/counting; nothing half-done stays queued
        self._prefs.set_geometry(self.saveGeometry())
        self._prefs.set_window_state(self.saveState())
        self._prefs.sync()
        super().closeEvent(event)
