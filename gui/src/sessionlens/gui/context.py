"""``AppContext``: everything the composition root (``app.build``) made, in one place.

Its own module so that what runs on the built app (the screenshot command, tests,
benchmarks) can name it without importing the composition root.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import qasync
    from PySide6.QtWidgets import QApplication

    from .compaction.mount import CompactionParts
    from .export_flow import ExportActions
    from .fleet_flow import FleetActions
    from .lineage.mount import LineageParts
    from .live.journal_notice import JournalNoticeParts
    from .live.mount import LiveParts
    from .main_window import MainWindow
    from .memory.mount import MemoryParts
    from .paths import AppPaths
    from .prefs import Prefs
    from .pruning.mount import PruningParts
    from .search.mount import SearchParts
    from .session_controller import SessionController
    from .tasks import TaskRunner
    from .trace.mount import TraceParts

__all__ = ["AppContext"]


@dataclass
class AppContext:
    """Everything the composition root built (tests and benchmarks reach in through this)."""

    app: QApplication
    paths: AppPaths
    prefs: Prefs
    tasks: TaskRunner
    controller: SessionController
    window: MainWindow | None = None
    loop: qasync.QEventLoop | None = None
    exit_code: int = 0
    #: The lineage controller and panel (``lineage_mount.LineageParts``).
    lineage: LineageParts | None = None
    #: The compaction controller and its tabs (``compaction_mount.CompactionParts``).
    compaction: CompactionParts | None = None
    #: The search controller, panel and dock (``search.mount.SearchParts``).
    search: SearchParts | None = None
    #: The memory-health controller and the Memory tab (``memory.mount.MemoryParts``).
    memory: MemoryParts | None = None
    #: The fact-trace controller and the Trace tab (``trace.mount.TraceParts``).
    trace: TraceParts | None = None
    #: The pruning tab (``pruning.mount.PruningParts``).
    pruning: PruningParts | None = None
    #: The Live dock (``live.mount.LiveParts``).
    live: LiveParts | None = None
    #: File ▸ Export summary… / Export transcript… (``export_flow.ExportActions``).
    exports: ExportActions | None = None
    #: Notifications of the compactions the agents' integrations journal
    #: (``live.journal_notice.JournalNoticeParts``).
    journal_notices: JournalNoticeParts | None = None
    #: File ▸ Audit all sessions… (``fleet_flow.FleetActions``).
    fleet: FleetActions | None = None
