"""Builds the compaction controller and its three tabs and wires them to the main window.

The composition root (``app.build``) calls ``mount_compaction`` once after the window
exists; the window only needs its ``add_workbench_tab`` extension point. Kept out of
``main_window.py`` so the window stays a layout of parts it does not construct.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication

from .compaction_controller import CompactionController
from .compaction_prefs import CompactionPrefs
from .profiles import load_profiles
from .views.audit_panel import AuditPanel
from .views.compaction_panel import CompactionPanel
from .views.compare_view import CompareView

if TYPE_CHECKING:
    import httpx

    from sessionlens.engine import RetryPolicy

    from .controller import SessionController
    from .paths import AppPaths
    from .tasks import TaskRunner
    from .views.main_window import MainWindow


@dataclass(frozen=True, slots=True)
class CompactionParts:
    """What ``mount_compaction`` made (tests and screenshots reach in through this)."""

    controller: CompactionController
    panel: CompactionPanel
    compare: CompareView
    audit: AuditPanel


def _tr(text: str) -> str:
    return QCoreApplication.translate("CompactionMount", text)


def mount_compaction(window: MainWindow, session: SessionController, tasks: TaskRunner,
                     paths: AppPaths, *, http_client: httpx.AsyncClient | None = None,
                     retry: RetryPolicy | None = None) -> CompactionParts:
    """Create the compaction parts, add them as workbench tabs and connect them."""
    comp = CompactionController(session, tasks, http_client=http_client, retry=retry,
                                parent=window)
    panel = CompactionPanel(comp, CompactionPrefs(paths.settings_file),
                            lambda: load_profiles(paths.profiles_file))
    compare = CompareView(comp, panel.options)
    audit = AuditPanel(comp)
    window.add_workbench_tab(panel, _tr("Compaction"))
    window.add_workbench_tab(compare, _tr("Compare"))
    window.add_workbench_tab(audit, _tr("Audit"))
    audit.entry_activated.connect(session.select)
    # the token view's dragged cut (SessionController.set_cut) becomes the panel's planned cut
    session.plan_ready.connect(lambda _plan: panel.set_cut_entry_id(session.cut_entry_id))
    return CompactionParts(comp, panel, compare, audit)
