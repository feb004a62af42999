"""Builds the memory controller and the Memory tab and wires them to the window.

The composition root (``app.build``) calls ``mount_memory`` once, after the compaction
parts exist: selecting a recorded compaction anywhere (timeline row, Memory row, chart
marker) fills the Audit tab with its audit; Compare preselects it; the chart gets the
memory flush's soft threshold and a mark per flush turn and precheck point.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication

from sessionlens.engine import entries_for, read_journal

from .controller import MemoryController
from .view import MemoryPanel

if TYPE_CHECKING:
    from sessionlens.engine import ChainAudit, MemoryHealth
    from sessionlens.gui.compaction.mount import CompactionParts
    from sessionlens.gui.lineage.undo import CompactionUndo
    from sessionlens.gui.main_window import MainWindow
    from sessionlens.gui.session_controller import SessionController
    from sessionlens.gui.tasks import TaskRunner


def _tr(text: str) -> str:
    return QCoreApplication.translate("MemoryMount", text)


@dataclass(frozen=True, slots=True)
class MemoryParts:
    """What ``mount_memory`` made (tests and screenshots reach in through this)."""

    controller: MemoryController
    panel: MemoryPanel
    tab_index: int


def _chart_marks(window: MainWindow, session: SessionController, health: MemoryHealth) -> None:
    """The flush line and marks on the token chart, at the engine's positions."""
    pos = session.path_pos
    flush = [(pos[i], _tr("memory flush turn %1").replace("%1", i))
             for i in health.flush_turn_ids if i in pos]
    pre: list[tuple[int, str]] = [
        (pos[c.compaction_id], _tr("compaction %1 fired mid-turn (precheck)").replace(
            "%1", c.compaction_id))
        for c in health.compactions if c.trigger == "mid-turn-precheck" and c.compaction_id in pos]
    if health.precheck_fires_at is not None and health.precheck_fires_at in pos:
        pre.append((pos[health.precheck_fires_at],
                    _tr("the mid-turn precheck would fire here (%1)").replace(
                        "%1", health.precheck_fires_at)))
    window.tokens.chart.set_memory(health.soft_threshold, [x for x, _ in flush],
                                   [t for _, t in flush], [x for x, _ in pre],
                                   [t for _, t in pre])


def mount_memory(window: MainWindow, session: SessionController, tasks: TaskRunner,
                 compaction: CompactionParts, undo: CompactionUndo | None = None,
                 state_dir: Path | None = None) -> MemoryParts:
    """Create the memory parts, add the Memory tab and connect everything; ``undo`` (the
    lineage view's) makes "Undo this compaction…" one action from the Memory tab too;
    ``state_dir`` (SessionLens's state folder) shows the integrations' journal entries of
    the opened file beside the recorded compactions."""
    mem = MemoryController(session, tasks, parent=window)
    panel = MemoryPanel()
    index = window.add_workbench_tab(panel, _tr("Memory"))
    audit = compaction.audit
    audit_index = window.workbench.indexOf(audit)

    def on_tab(_i: int) -> None:
        mem.set_active(window.workbench.currentWidget() is panel)

    window.workbench.currentChanged.connect(on_tab)
    mem.set_active(window.workbench.currentWidget() is panel)

    def on_loaded(_t: object) -> None:
        panel.clear(_tr("Examining every compaction…"))
        window.tokens.chart.set_memory(None, [], [], [], [])
        show_journal()

    def show_journal() -> None:
        if state_dir is None or session.path is None:
            panel.journal.set_entries(())
            return
        panel.journal.set_entries(entries_for(read_journal(state_dir), [str(session.path)]))

    def on_health(health: MemoryHealth) -> None:
        panel.set_health(health)
        _chart_marks(window, session, health)
        if session.selected_id is not None:
            panel.select_compaction(session.selected_id)

    def on_audit(compaction_id: str, audited: ChainAudit) -> None:
        name = session.path.name if session.path is not None else ""
        audit.show_recorded(compaction_id, audited, name)

    def open_audit(compaction_id: str) -> None:
        session.select(compaction_id)
        mem.show_audit(compaction_id)
        if audit_index >= 0:
            window.workbench.setCurrentIndex(audit_index)

    def chart_clicked(x: int) -> None:
        t = session.transcript
        if t is not None and 0 <= x < len(t.active_path):
            session.select(t.active_path[x])

    session.loaded.connect(on_loaded)
    mem.health_ready.connect(on_health)
    mem.health_failed.connect(lambda m: panel.clear(_tr("Memory health failed: %1")
                                                    .replace("%1", m)))
    mem.audit_ready.connect(on_audit)
    panel.compaction_selected.connect(session.select)
    panel.audit_requested.connect(open_audit)
    session.entry_selected.connect(panel.select_compaction)
    window.tokens.chart.compaction_clicked.connect(chart_clicked)
    audit.file_entry_activated.connect(lambda p, e: session.open_at(Path(p), e))
    if undo is not None:
        def request_undo(compaction_id: str) -> None:
            if session.path is not None:
                undo.request(session.path, compaction_id, panel)

        panel.undo_requested.connect(request_undo)
    else:
        panel.undo.setVisible(False)
    if session.transcript is not None:  # mounted after a file was opened
        mem.refresh()
        show_journal()
    return MemoryParts(mem, panel, index)
