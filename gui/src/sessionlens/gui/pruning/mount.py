"""Builds the pruning tab and keeps it in step with the session's plan.

The preview is recomputed off the UI thread whenever a plan lands (the plan's window and
context tokens go in, so the tab and the token panel show the same numbers) and when the
keep-turns setting changes; only while the tab is visible, then once when it is shown.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication

from sessionlens.engine import pruning_delay

from .panel import PruningPanel

if TYPE_CHECKING:
    from sessionlens.engine import PruningDelay
    from sessionlens.gui.main_window import MainWindow
    from sessionlens.gui.session_controller import SessionController
    from sessionlens.gui.tasks import TaskRunner


@dataclass
class PruningParts:
    """What ``mount_pruning`` made; ``refresh`` recomputes now (tests call it directly)."""

    panel: PruningPanel
    session: SessionController
    tasks: TaskRunner
    stale: bool = True
    delay: PruningDelay | None = None

    def refresh(self) -> None:
        s, t, figures = self.session, self.session.transcript, self.session.figures
        if t is None or s.tokens is None:
            self.delay = None
            self.panel.show_delay(None)
            return
        settings = s.settings
        report = s.tokens.report
        keep = self.panel.keep.value()
        # the resolved window always; the plan's context when there is a plan (without one,
        # e.g. nothing to summarize yet, the engine measures the context the planner's way)
        window = s.context_window()
        context = figures.context_tokens if figures is not None else None
        self.stale = False

        def job(_r: Any, _c: Any) -> PruningDelay:
            return pruning_delay(t, settings, keep_turns=keep, tokens=report,
                                 context_window=window, context_tokens=context)

        def done(delay: PruningDelay) -> None:
            if t is self.session.transcript:
                self.delay = delay
                self.panel.show_delay(delay)

        self.tasks.run(job, on_done=done,
                       on_error=lambda exc: self.panel.show_error(str(exc)), group="pruning")


def mount_pruning(window: MainWindow, session: SessionController,
                  tasks: TaskRunner) -> PruningParts:
    """Create the pruning tab and connect it to the session's plans."""
    panel = PruningPanel()
    parts = PruningParts(panel, session, tasks)
    window.add_workbench_tab(panel, QCoreApplication.translate("PruningMount", "Pruning"))

    def visible() -> bool:
        return window.workbench.currentWidget() is panel

    def on_plan(_plan: object) -> None:
        parts.stale = True
        if visible():
            parts.refresh()

    def on_tab(_i: int) -> None:
        if visible() and parts.stale:
            parts.refresh()

    def on_loaded(_t: object) -> None:  # the old figures belong to the old file: wait
        parts.stale, parts.delay = True, None
        panel.show_waiting()

    session.plan_ready.connect(on_plan)
    session.loaded.connect(on_loaded)
    session.plan_failed.connect(lambda _m: on_plan(None))  # no plan still has a pruning view
    panel.keep_turns_changed.connect(lambda _n: on_plan(None))
    window.workbench.currentChanged.connect(on_tab)
    panel.entry_activated.connect(session.select)
    return parts
