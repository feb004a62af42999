"""Builds the lineage controller and panel and wires them to the main window.

The composition root (``app.build``) calls ``mount_lineage`` once after the window exists;
the window only needs its ``add_workbench_tab`` extension point. Kept out of
``main_window.py`` so the window stays a layout of parts it does not construct.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication

from sessionlens.gui.colors import is_dark

from .controller import LineageController
from .view import LineagePanel

if TYPE_CHECKING:
    from sessionlens.gui.main_window import MainWindow
    from sessionlens.gui.session_controller import SessionController
    from sessionlens.gui.tasks import TaskRunner


@dataclass(frozen=True, slots=True)
class LineageParts:
    """What ``mount_lineage`` made (tests and screenshots reach in through this)."""

    controller: LineageController
    panel: LineagePanel


def mount_lineage(window: MainWindow, session: SessionController,
                  tasks: TaskRunner) -> LineageParts:
    """Create the lineage parts, add the panel as a workbench tab and connect it."""
    lin = LineageController(session, tasks, parent=window)
    panel = LineagePanel(lin)
    window.add_workbench_tab(panel, QCoreApplication.translate("LineageMount", "Lineage"))
    lin.set_active(window.workbench.currentWidget() is panel)
    window.workbench.currentChanged.connect(
        lambda _i: lin.set_active(window.workbench.currentWidget() is panel))
    panel.branches.entry_activated.connect(session.select)
    session.entry_selected.connect(panel.branches.show_entry)
    dark = is_dark(window.palette())
    panel.graph.set_dark(dark)
    panel.drift.apply_theme(dark)
    if session.transcript is not None:  # mounted after a file was opened
        lin.adopt(session.transcript)
    return LineageParts(lin, panel)
