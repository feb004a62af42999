"""Builds the compaction controller and its three tabs and wires them to the main window.

The composition root (``app.build``) calls ``mount_compaction`` once after the window
exists; the window only needs its ``add_workbench_tab`` extension point. Kept out of
``main_window.py`` so the window stays a layout of parts it does not construct.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QObject

from sessionlens.gui.compaction.audit_panel import AuditPanel
from sessionlens.gui.compaction.compare_view import CompareView
from sessionlens.gui.compaction.controller import CompactionController
from sessionlens.gui.compaction.edit import SummaryEditor
from sessionlens.gui.compaction.panel import CompactionPanel
from sessionlens.gui.compaction.pins import PinController, install_timeline_pins
from sessionlens.gui.compaction.prefs import CompactionPrefs
from sessionlens.gui.settings.profiles import load_profiles

if TYPE_CHECKING:
    import httpx

    from sessionlens.engine import RetryPolicy
    from sessionlens.gui.main_window import MainWindow
    from sessionlens.gui.paths import AppPaths
    from sessionlens.gui.session_controller import SessionController
    from sessionlens.gui.tasks import TaskRunner


@dataclass(frozen=True, slots=True)
class CompactionParts:
    """What ``mount_compaction`` made (tests and screenshots reach in through this)."""

    controller: CompactionController
    panel: CompactionPanel
    compare: CompareView
    audit: AuditPanel
    pins: PinController
    editor: SummaryEditor


def _tr(text: str) -> str:
    return QCoreApplication.translate("CompactionMount", text)


def build_compaction(session: SessionController, tasks: TaskRunner, paths: AppPaths, *,
                     http_client: httpx.AsyncClient | None = None,
                     retry: RetryPolicy | None = None,
                     parent: QObject | None = None) -> CompactionParts:
    """Create the controller and the three views and connect them to the session."""
    comp = CompactionController(session, tasks, http_client=http_client, retry=retry,
                                parent=parent)
    panel = CompactionPanel(comp, CompactionPrefs(paths.settings_file),
                            lambda: load_profiles(paths.profiles_file))
    pins = PinController(session, tasks, paths.state_dir, parent=comp)
    comp.pins = pins
    editor = SummaryEditor(comp, tasks, parent=comp)
    panel.attach_editing(pins, editor)
    compare = CompareView(comp, panel.options)
    audit = AuditPanel(comp)
    audit.entry_activated.connect(session.select)
    return CompactionParts(comp, panel, compare, audit, pins, editor)


def mount_compaction(window: MainWindow, session: SessionController, tasks: TaskRunner,
                     paths: AppPaths, *, http_client: httpx.AsyncClient | None = None,
                     retry: RetryPolicy | None = None) -> CompactionParts:
    """Build the compaction parts and add them to the window as workbench tabs."""
    parts = build_compaction(session, tasks, paths, http_client=http_client, retry=retry,
                             parent=window)
    window.add_workbench_tab(parts.panel, _tr("Compaction"))
    window.add_workbench_tab(parts.compare, _tr("Compare"))
    window.add_workbench_tab(parts.audit, _tr("Audit"))
    install_timeline_pins(window.timeline, parts.pins)
    return parts
