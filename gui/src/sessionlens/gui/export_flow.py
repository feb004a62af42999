"""File ▸ Export summary… and Export transcript…: where to save, what, and why not.

Save dialogs open in the transcript's own folder with a name made from the session
(``<session>-summary.md``, ``<session>-transcript.html``), never in the process's working
directory. The summary is the current run's (or the one just accepted); with no run it is
the latest compaction the transcript recorded, audited by the engine
(``bundle_for_compaction``). Every refusal is shown whole in a message box, and a disabled
action says in its tooltip why it is disabled.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QObject
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QWidget

from sessionlens.engine import bundle_for_compaction, export_summary, export_transcript
from sessionlens.gui.refusal_box import Tell, tell_refused

if TYPE_CHECKING:
    from sessionlens.engine import ExportFormat, Transcript
    from sessionlens.gui.compaction.controller import CompactionController
    from sessionlens.gui.main_window import MainWindow
    from sessionlens.gui.session_controller import SessionController
    from sessionlens.gui.tasks import CancelCheck, Progress, TaskRunner

#: (title, proposed path, suffixes offered, parent) -> chosen path, or None: cancelled.
AskPath = Callable[[str, Path, tuple[str, ...], QWidget], "Path | None"]

SUMMARY_FORMATS: tuple[str, ...] = ("md", "json", "html")
TRANSCRIPT_FORMATS: tuple[str, ...] = ("md", "html")
_FILTER_NAMES = {"md": "Markdown", "json": "JSON", "html": "HTML"}


def _tr(text: str) -> str:
    return QCoreApplication.translate("ExportFlow", text)


def session_stem(t: Transcript) -> str:
    """A file-name-safe name for the session: its name if it has one, else the file's stem."""
    raw = t.session_name or t.path.stem
    stem = re.sub(r"[^\w.-]+", "-", raw, flags=re.UNICODE).strip("-.")
    return stem or "session"


def default_export_path(t: Transcript | None, kind: str, fmt: str) -> Path:
    """``<transcript folder>/<session>-<kind>.<fmt>`` (home when nothing is open)."""
    if t is None:
        return Path.home() / f"{kind}.{fmt}"
    return t.path.parent / f"{session_stem(t)}-{kind}.{fmt}"


def ask_save_path(title: str, proposed: Path, formats: tuple[str, ...],
                  parent: QWidget) -> Path | None:
    """The save dialog, opened on ``proposed``; the chosen filter's suffix is added if the
    typed name has none of ``formats``."""
    filters = [f"{_FILTER_NAMES.get(f, f)} (*.{f})" for f in formats]
    first = next((x for x in filters if x.endswith(f"(*{proposed.suffix})")), filters[0])
    path, chosen = QFileDialog.getSaveFileName(parent, title, str(proposed), ";;".join(filters),
                                               first)
    if not path:
        return None
    out = Path(path)
    if out.suffix.lstrip(".") not in formats:
        fmt = chosen.rpartition("*.")[2].rstrip(")") or formats[0]
        out = out.with_name(f"{out.name}.{fmt}")
    return out


def format_of(path: Path, formats: tuple[str, ...]) -> str:
    fmt = path.suffix.lstrip(".").lower()
    return fmt if fmt in formats else formats[0]


class ExportActions(QObject):
    """The two File-menu actions and what they do; enabled and explained as things change."""

    def __init__(self, window: MainWindow, session: SessionController, tasks: TaskRunner,
                 compaction: CompactionController | None, *, ask_path: AskPath = ask_save_path,
                 tell: Tell = tell_refused) -> None:
        super().__init__(window)
        self._w, self._s, self._tasks, self._comp = window, session, tasks, compaction
        self.ask_path, self.tell = ask_path, tell
        self.act_summary = QAction(_tr("Export &summary…"), window)
        self.act_transcript = QAction(_tr("Export &transcript…"), window)
        self.act_summary.triggered.connect(self.export_summary)
        self.act_transcript.triggered.connect(self.export_transcript)
        for act in (self.act_summary, self.act_transcript):
            window.add_file_action(act)
        session.loaded.connect(lambda _t: self.update())
        session.failed.connect(lambda _m: self.update())
        if compaction is not None:
            for signal in (compaction.audit_ready, compaction.accepted, compaction.discarded,
                           compaction.run_started, compaction.run_failed,
                           compaction.run_cancelled, compaction.exported,
                           compaction.export_failed):
                signal.connect(lambda *_a: self.update())
            compaction.exported.connect(lambda p: self._done(Path(p)))
            compaction.export_failed.connect(lambda m: self._refused(_tr("Export failed"), m))
        self.update()

    # state --------------------------------------------------------------------------------
    def summary_blocked(self) -> str | None:
        """Why there is no summary to export now (None: there is one)."""
        t, comp = self._s.transcript, self._comp
        if t is None:
            return _tr("Open a transcript first.")
        if comp is not None and comp.is_running():
            return _tr("A compaction is running: wait for its audit.")
        if comp is not None and ((comp.current is not None and comp.current.report is not None)
                                 or comp.accepted_record is not None):
            return None
        if not t.compactions:
            return _tr("This transcript records no compaction and no summary was run yet: run "
                       "one in the Compaction tab.")
        return None

    def summary_source(self) -> str:
        """What Export summary… writes, in words (its tooltip when enabled)."""
        comp = self._comp
        if comp is not None and comp.current is not None and comp.current.report is not None:
            return _tr("Exports the audited summary of run %1.").replace(
                "%1", str(comp.current.number))
        if comp is not None and comp.accepted_record is not None:
            return _tr("Exports the summary just accepted (run %1).").replace(
                "%1", str(comp.accepted_record.number))
        return _tr("Exports the latest compaction the transcript recorded, with its audit.")

    def update(self) -> None:
        blocked = self.summary_blocked()
        self.act_summary.setEnabled(blocked is None)
        self.act_summary.setToolTip(blocked or self.summary_source())
        has = self._s.transcript is not None
        self.act_transcript.setEnabled(has)
        self.act_transcript.setToolTip(
            _tr("Write the active path as Markdown or HTML, secrets blanked") if has
            else _tr("Open a transcript first."))

    # actions --------------------------------------------------------------------------------
    def export_summary(self) -> None:
        blocked, t, comp = self.summary_blocked(), self._s.transcript, self._comp
        if blocked is not None or t is None:
            self._refused(_tr("Nothing to export"), blocked or "")
            return
        out = self.ask_path(_tr("Export summary"), default_export_path(t, "summary", "md"),
                            SUMMARY_FORMATS, self._w)
        if out is None:
            return
        fmt: ExportFormat = format_of(out, SUMMARY_FORMATS)  # type: ignore[assignment]
        if comp is not None and (comp.current is not None or comp.accepted_record is not None):
            comp.export(fmt, out)  # the run's own bundle (instructions, provider, settings)
            return

        def job(_p: Progress, _c: CancelCheck) -> Path:
            return Path(export_summary(bundle_for_compaction(t), fmt, out))

        self._tasks.run(job, on_done=self._done, on_error=self._failed)

    def export_transcript(self) -> None:
        t = self._s.transcript
        if t is None:
            self._refused(_tr("Nothing to export"), _tr("Open a transcript first."))
            return
        out = self.ask_path(_tr("Export transcript"), default_export_path(t, "transcript", "html"),
                            TRANSCRIPT_FORMATS, self._w)
        if out is None:
            return
        fmt = format_of(out, TRANSCRIPT_FORMATS)

        def job(_p: Progress, _c: CancelCheck) -> Path:
            return Path(export_transcript(t, fmt, out).path)  # type: ignore[arg-type]

        self._tasks.run(job, on_done=self._done, on_error=self._failed)

    def _done(self, path: Path) -> None:
        self._w.status_label.setText(_tr("Exported to %1").replace("%1", path.name))
        self._w.status_label.setToolTip(str(path))

    def _failed(self, exc: BaseException) -> None:
        from sessionlens.gui.session_controller import describe_error

        self._refused(_tr("Export failed"), describe_error(exc))

    def _refused(self, title: str, message: str) -> None:
        self._w.status_label.setText(title)  # the whole reason is in the message box
        self._w.status_label.setToolTip(message)
        self.tell(title, message, self._w)
