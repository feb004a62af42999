"""File ▸ Audit all sessions…: every session on this machine audited, one report opened.

The work is the engine's (``run_fleet`` on a local Dask cluster, rows of unchanged files
reused from the state folder, then ``aggregate_fleet`` and ``write_fleet_html``); it runs
on the app's one task runner, whose progress (sessions done of all) fills the dialog's bar.
Cancel stops what has not started; the rows finished so far stay cached for the next run.
When the report is written it is opened in the browser (each row's command opens its
compaction in the app).
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from PySide6.QtCore import QCoreApplication, QObject, Qt, QUrl
from PySide6.QtGui import QAction, QDesktopServices
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QProgressBar,
    QVBoxLayout,
    QWidget,
)

from sessionlens.engine import (
    FleetReport,
    RowCache,
    aggregate_fleet,
    default_session_dirs,
    run_fleet,
    write_fleet_html,
)

from .export_flow import AskPath, ask_save_path
from .refusal_box import Tell, tell_refused

if TYPE_CHECKING:
    from sessionlens.gui.main_window import MainWindow
    from sessionlens.gui.paths import AppPaths
    from sessionlens.gui.tasks import CancelCheck, Progress, TaskHandle, TaskRunner

__all__ = ["FleetActions", "FleetDone", "FleetProgressDialog", "default_workers",
           "open_in_browser"]

REPORT_NAME = "sessionlens-fleet-report.html"


def _tr(text: str) -> str:
    return QCoreApplication.translate("FleetFlow", text)


def default_workers() -> int | None:
    """A local Dask cluster (None: one process per core) when Dask is installed and this is
    not a frozen build (whose executable would start the app again in each spawned worker);
    else 0, serial on the task runner."""
    if getattr(sys, "frozen", False) or importlib.util.find_spec("distributed") is None:
        return 0
    return None


def open_in_browser(path: Path) -> None:
    QDesktopServices.openUrl(QUrl.fromLocalFile(str(path)))


@dataclass(frozen=True, slots=True)
class FleetDone:
    """What a finished audit hands back to the UI thread."""

    path: Path
    report: FleetReport


class FleetProgressDialog(QDialog):
    """A bar of sessions done, a line of words, and Cancel (not modal: the app stays usable)."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setWindowTitle(_tr("Audit all sessions"))
        self.label = QLabel(_tr("Finding the sessions on this machine…"))
        self.label.setWordWrap(True)
        self.bar = QProgressBar()
        self.bar.setRange(0, 0)  # busy until the first count arrives
        self.bar.setTextVisible(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        layout = QVBoxLayout(self)
        layout.addWidget(self.label)
        layout.addWidget(self.bar)
        layout.addWidget(self.buttons)
        self.setMinimumWidth(420)

    def show_progress(self, done: int, total: int) -> None:
        self.bar.setRange(0, max(total, 1))
        self.bar.setValue(done)
        self.bar.setFormat(_tr("%1 of %2 sessions").replace("%1", f"{done:,}")
                           .replace("%2", f"{total:,}"))
        self.label.setText(_tr("Auditing every session's compactions…"))


class FleetActions(QObject):
    """The File-menu action, its dialog and the job."""

    def __init__(self, window: MainWindow, tasks: TaskRunner, paths: AppPaths, *,
                 roots: Callable[[], Sequence[Path]] = default_session_dirs,
                 workers: int | None | Literal["auto"] = "auto",
                 ask_path: AskPath = ask_save_path,
                 open_report: Callable[[Path], None] = open_in_browser,
                 tell: Tell = tell_refused) -> None:
        super().__init__(window)
        self._w, self._tasks, self._paths = window, tasks, paths
        self.roots = roots
        #: Dask workers (None: one per core), 0 serial; "auto": ``default_workers()``.
        self.workers: int | None = default_workers() if workers == "auto" else workers
        self.ask_path, self.open_report, self.tell = ask_path, open_report, tell
        self.dialog: FleetProgressDialog | None = None
        self.handle: TaskHandle | None = None
        self.act = QAction(_tr("&Audit all sessions…"), window)
        self.act.setToolTip(_tr("Audit every compaction of every session on this machine and "
                                "open one report: ranked by loss, per agent, model, trigger and "
                                "setting, with trends"))
        self.act.triggered.connect(self.start)
        window.add_file_action(self.act)

    def running(self) -> bool:
        return self.handle is not None

    def start(self) -> None:
        if self.running():
            if self.dialog is not None:
                self.dialog.raise_()
            return
        out = self.ask_path(_tr("Save the fleet report"), self._paths.data_dir / REPORT_NAME,
                            ("html",), self._w)
        if out is None:
            return
        roots = [Path(p) for p in self.roots()]
        state, workers = self._paths.state_dir, self.workers

        def job(report: Progress, cancelled: CancelCheck) -> FleetDone | None:
            cache = RowCache(state)
            try:
                run = run_fleet(roots, workers=workers, cache=cache,
                                on_progress=lambda d, t, _r: report(d, t), cancel=cancelled)
            finally:
                cache.close()
            if run.cancelled or cancelled():
                return None  # no report of a part; the rows done are cached
            summary = aggregate_fleet(run)
            return FleetDone(write_fleet_html(summary, out), summary)

        dialog = FleetProgressDialog(self._w)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.buttons.rejected.connect(self.cancel)
        dialog.show()
        self.dialog = dialog
        self.act.setEnabled(False)
        self.handle = self._tasks.run(job, on_done=self._done, on_error=self._failed,
                                      on_progress=dialog.show_progress)

    def cancel(self) -> None:
        """Stop the audit (sessions not started are not audited; no report is written)."""
        if self.handle is not None:
            self.handle.cancel()
        self._finish()
        self._w.status_label.setText(_tr("Fleet audit cancelled"))

    def _finish(self) -> None:
        self.handle = None
        self.act.setEnabled(True)
        if self.dialog is not None:
            self.dialog.close()
            self.dialog = None

    def _done(self, done: FleetDone | None) -> None:
        self._finish()
        if done is None:
            return
        t = done.report.total
        self._w.status_label.setText(
            _tr("Fleet report: %1 sessions, %2 compactions, %3 failed")
            .replace("%1", f"{done.report.sessions:,}").replace("%2", f"{t.compactions:,}")
            .replace("%3", f"{len(done.report.failures):,}"))
        self._w.status_label.setToolTip(str(done.path))
        self.open_report(done.path)

    def _failed(self, exc: BaseException) -> None:
        from sessionlens.gui.session_controller import describe_error

        self._finish()
        self._w.status_label.setText(_tr("Fleet audit failed"))
        self.tell(_tr("Fleet audit failed"), describe_error(exc), self._w)
