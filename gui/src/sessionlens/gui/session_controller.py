"""SessionController: the open session's state, and the signals views listen to.

Views get this object injected and never call the engine themselves. Every engine call
that can take time goes through ``TaskRunner`` (load, count, plan, row building, filter,
discovery); results arrive here on the UI thread and are re-announced as signals.
The chain after opening a file is: load -> rows -> count the context's tokens -> plan ->
count the rest of the file -> ``settled``. ``tokens_ready`` fires twice: first with the
context's report (the three numbers, the chart), then with the whole file's.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal

from sessionlens.engine import (
    DEFAULT_SETTINGS,
    CompactionPlan,
    CompactionSettings,
    ContextPoint,
    TokenReport,
    analyze_compactions,
    context_series,
    context_window_for_model,
    count_context_tokens,
    count_tokens,
    default_session_dirs,
    discover_sessions,
    load_transcript,
    plan_compaction,
)

if TYPE_CHECKING:
    from sessionlens.engine import Transcript

from .prefs import Prefs
from .tasks import CancelCheck, Progress, TaskHandle, TaskRunner
from .transcript.timeline_rows import RowFilter, TimelineRow, build_rows, filter_rows

#: How long the file must be quiet before a grown transcript is reloaded (ms).
RELOAD_DEBOUNCE_MS = 700
#: Pause before the next engine step starts (ms), so the UI paints the last result first
#: instead of painting while a worker competes for the GIL.
PAINT_FIRST_MS = 120


@dataclass(frozen=True, slots=True)
class LoadedSession:
    """What the load job hands back: the transcript and its list-mode rows."""

    transcript: Transcript
    rows: tuple[TimelineRow, ...]
    #: entry id -> position on the active path (the charts' x axis)
    path_pos: dict[str, int]


@dataclass(frozen=True, slots=True)
class TokenView:
    """What the count job hands back: the report and the context series along the path."""

    report: TokenReport
    series: tuple[ContextPoint, ...]
    #: chart arrays: path position and tokens of each series point, and which were reported
    xs: Any
    ys: Any
    reported: Any
    #: engine forensics of every compaction in the file (why each one fired)
    forensics: tuple[Any, ...] = ()


def describe_error(exc: BaseException) -> str:
    """Engine errors already say what and where; anything else also names its type."""
    if type(exc).__module__.startswith("sessionlens."):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


class SessionController(QObject):
    """Holds the open transcript, its tokens and plan; runs engine steps off the UI thread."""

    busy_changed = Signal(bool)
    progress = Signal(str, int, int)          # stage, done, total
    loaded = Signal(object)                   # Transcript
    rows_changed = Signal(object, object)     # rows, visible indexes or None
    visible_changed = Signal(object)          # visible indexes or None
    tokens_ready = Signal(object)             # TokenView
    plan_ready = Signal(object)               # CompactionPlan
    plan_failed = Signal(str)
    entry_selected = Signal(str)
    sessions_ready = Signal(object)           # list[SessionInfo]
    sessions_failed = Signal(str)
    settings_changed = Signal(object)         # CompactionSettings
    failed = Signal(str)
    settled = Signal()                        # load, count and plan are all done

    def __init__(self, tasks: TaskRunner, prefs: Prefs, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._tasks = tasks
        self._prefs = prefs
        self.transcript: Transcript | None = None
        self.path_pos: dict[str, int] = {}
        self.rows: tuple[TimelineRow, ...] = ()
        self.tree_mode = False
        self.row_filter = RowFilter()
        self.tokens: TokenView | None = None
        self.plan: CompactionPlan | None = None
        self.auto_plan: CompactionPlan | None = None
        self.cut_entry_id: str | None = None
        self.selected_id: str | None = None
        self.encoding = prefs.encoding()
        self.settings = self._settings_from_prefs()
        self._load_handle: TaskHandle | None = None
        #: The background count of the whole file, while it runs.
        self._file_count: TaskHandle | None = None
        self._busy = False
        self._watcher = QFileSystemWatcher(self)
        self._watcher.fileChanged.connect(self._on_file_changed)
        self._reload_timer = QTimer(self, singleShot=True, interval=RELOAD_DEBOUNCE_MS)
        self._reload_timer.timeout.connect(self._reload_if_grown)
        self._next_step: Callable[[], None] | None = None
        self._step_timer = QTimer(self, singleShot=True, interval=PAINT_FIRST_MS)
        self._step_timer.timeout.connect(self._run_next_step)

    # settings -------------------------------------------------------------------------------
    def _settings_from_prefs(self) -> CompactionSettings:
        o = self._prefs.compaction_overrides()
        return dataclasses.replace(
            DEFAULT_SETTINGS,
            context_window=o.get("context_window", DEFAULT_SETTINGS.context_window),
            reserve_tokens=o.get("reserve_tokens", DEFAULT_SETTINGS.reserve_tokens),
            keep_recent_tokens=o.get("keep_recent_tokens", DEFAULT_SETTINGS.keep_recent_tokens))

    def apply_settings(self, settings: CompactionSettings, encoding: str) -> None:
        """Use new compaction settings / tokenizer: recount if needed, then re-plan."""
        recount = encoding != self.encoding
        self.settings, self.encoding = settings, encoding
        self.settings_changed.emit(settings)
        if self.transcript is None:
            return
        if recount:
            self._start_count(self.transcript)
        else:
            self._start_plan(self.transcript, None, auto=True)

    def context_window(self) -> int:
        """The window the chart draws: the plan's, else the settings', else the model's."""
        if self.plan is not None:
            return int(self.plan.context_window)
        if self.settings.context_window:
            return int(self.settings.context_window)
        h = self.transcript.header if self.transcript is not None else None
        return int(context_window_for_model(h.provider if h else None, h.model_id if h else None))

    def threshold(self) -> int:
        """Where compaction fires: the plan's threshold, else the settings' for the window."""
        if self.plan is not None:
            return int(self.plan.threshold)
        return int(self.settings.threshold(self.context_window()))

    # opening --------------------------------------------------------------------------------
    @property
    def path(self) -> Path | None:
        return self.transcript.path if self.transcript is not None else None

    def is_busy(self) -> bool:
        return self._busy

    def _set_busy(self, busy: bool) -> None:
        if busy != self._busy:
            self._busy = busy
            self.busy_changed.emit(busy)

    def open(self, path: Path, *, keep_selection: bool = False) -> None:
        """Load ``path`` off the UI thread (cancels a load already running)."""
        path = Path(path)
        if self._load_handle is not None:
            self._load_handle.cancel()
        self._stop_file_count()
        self._set_busy(True)
        self.progress.emit("load", 0, 0)
        window = self.settings.context_window
        keep = self.selected_id if keep_selection else None

        def job(report: Progress, cancelled: CancelCheck) -> LoadedSession:
            t = load_transcript(path, on_progress=report, cancel=cancelled)
            rows = build_rows(t, context_window=window, cancel=cancelled)
            return LoadedSession(t, rows, {eid: n for n, eid in enumerate(t.active_path)})

        self._load_handle = self._tasks.run(
            job, on_done=lambda r: self._on_loaded(r, keep), on_error=self._on_error,
            on_progress=lambda d, t: self.progress.emit("load", d, t), group="load", big=True)

    def reload(self) -> None:
        if self.path is not None:
            self.open(self.path, keep_selection=True)

    def cancel(self) -> None:
        """Stop loading/counting; whatever finished already stays on screen."""
        self._tasks.cancel_all()
        self._stop_file_count()
        self._step_timer.stop()
        self._next_step = None
        self._load_handle = None
        self._set_busy(False)
        self.progress.emit("", 0, 0)
        self.settled.emit()

    def _on_loaded(self, result: LoadedSession, keep: str | None) -> None:
        self._load_handle = None
        t = result.transcript
        old = self.path
        self.transcript, self.rows = t, result.rows
        self.path_pos = result.path_pos
        self.tokens = self.plan = self.auto_plan = None
        self.cut_entry_id = None
        self.tree_mode = False
        if old is not None and old != t.path and str(old) in self._watcher.files():
            self._watcher.removePath(str(old))
        if str(t.path) not in self._watcher.files():
            self._watcher.addPath(str(t.path))
        self._prefs.add_recent(t.path)
        self._prefs.set_last_session(t.path)
        self.loaded.emit(t)
        self.rows_changed.emit(self.rows, None)
        if not self.row_filter.is_empty:
            self.set_filter(self.row_filter)
        self.selected_id = None
        if keep is not None and keep in t.index:
            self.select(keep)
        # the rows paint first: starting the context's count at once made the longest UI
        # stalls worse (benchmarks/gui_responsiveness.py, 6 runs each) for no steady gain
        self._after_paint(lambda: self._count_if_current(t))

    def _after_paint(self, step: Callable[[], None]) -> None:
        """Run ``step`` once the UI has had a moment to paint (one pending step at a time)."""
        self._next_step = step
        self._step_timer.start()

    def _run_next_step(self) -> None:
        step, self._next_step = self._next_step, None
        if step is not None:
            step()

    def _count_if_current(self, t: Transcript) -> None:
        if t is self.transcript:
            self._start_count(t)

    def _on_error(self, exc: BaseException) -> None:
        self._load_handle = None
        self._set_busy(False)
        self.progress.emit("", 0, 0)
        self.failed.emit(describe_error(exc))
        self.settled.emit()

    # counting and planning --------------------------------------------------------------------
    def _start_count(self, t: Transcript) -> None:
        """Count what the model sees first (quick); the rest of the file follows the plan."""
        self._set_busy(True)
        self.progress.emit("count", 0, 0)
        encoding, settings = self.encoding, self.settings
        self._stop_file_count()

        def job(_report: Progress, cancelled: CancelCheck) -> TokenView:
            r = count_context_tokens(t, encoding, cancel=cancelled)
            series = context_series(t, r)  # the same series from either report's scope
            xs = np.fromiter((p.index for p in series), dtype=np.int64, count=len(series))
            ys = np.fromiter((p.tokens for p in series), dtype=np.int64, count=len(series))
            rep = np.fromiter((p.reported for p in series), dtype=bool, count=len(series))
            # forensics (the chart's compaction markers) follow with the whole file's count,
            # unless that count is already known
            forensics = analyze_compactions(t, settings, r) if r.complete else ()
            return TokenView(r, series, xs, ys, rep, forensics)

        self._tasks.run(job, on_done=lambda v: self._on_counted(t, v), on_error=self._on_error,
                        on_progress=lambda d, n: self.progress.emit("count", d, n), group="count",
                        big=True)

    def _on_counted(self, t: Transcript, view: TokenView) -> None:
        if t is not self.transcript:
            return
        self.tokens = view
        self.tokens_ready.emit(view)
        self._after_paint(lambda: self._plan_if_current(t))

    def _count_rest_of_file(self) -> bool:
        """Count every entry in the background once the context is shown; True while it runs.

        Only the calling worker counts (``helpers=False``): the UI thread keeps a core.
        Estimates and the series do not change with the report's scope, so the view keeps
        them, swaps the report and gains the compactions' forensics (from the full report's
        estimates, so they cost no second measuring pass).
        """
        t, view = self.transcript, self.tokens
        if t is None or view is None or view.report.complete:
            return False
        if self._file_count is not None:
            return True
        encoding, settings = view.report.encoding, self.settings
        self.progress.emit("count", 0, len(t.entries))

        def job(report: Progress, cancelled: CancelCheck) -> TokenView:
            r = count_tokens(t, encoding, on_progress=report, cancel=cancelled, helpers=False)
            return dataclasses.replace(view, report=r,
                                       forensics=analyze_compactions(t, settings, r))

        def failed(exc: BaseException) -> None:
            self._file_count = None
            self._on_error(exc)

        self._file_count = self._tasks.run(
            job, on_done=lambda v: self._on_file_counted(t, v), on_error=failed,
            on_progress=lambda d, n: self.progress.emit("count", d, n), group="count-file",
            big=True)
        return True

    def _stop_file_count(self) -> None:
        if self._file_count is not None:
            self._file_count.cancel()
            self._file_count = None

    def _on_file_counted(self, t: Transcript, view: TokenView) -> None:
        self._file_count = None
        if t is not self.transcript:
            return
        self.tokens = view
        self.tokens_ready.emit(view)
        self._finish()

    def _plan_if_current(self, t: Transcript) -> None:
        if t is self.transcript and self.tokens is not None:
            self._start_plan(t, None, auto=True)

    def _start_plan(self, t: Transcript, cut: str | None, *, auto: bool) -> None:
        settings = self.settings
        report = self.tokens.report if self.tokens is not None else None
        self.progress.emit("plan", 0, 0)

        def job(_r: Progress, _c: CancelCheck) -> CompactionPlan:
            return plan_compaction(t, settings, tokens=report, cut_entry_id=cut)

        self._tasks.run(job, on_done=lambda p: self._on_planned(t, p, auto),
                        on_error=lambda exc: self._on_plan_error(exc, auto), group="plan")

    def _on_planned(self, t: Transcript, plan: CompactionPlan, auto: bool) -> None:
        if t is not self.transcript:
            return
        if auto:
            self.auto_plan = plan
        self.plan = plan
        self.plan_ready.emit(plan)
        self._finish()

    def _on_plan_error(self, exc: BaseException, auto: bool) -> None:
        """No plan for this cut: a user cut keeps the last plan on screen, an automatic one clears."""
        if auto:
            self.plan = self.auto_plan = None
        self.plan_failed.emit(describe_error(exc))
        self._finish()

    def _finish(self) -> None:
        if self._count_rest_of_file():
            return  # settles when the whole file is counted
        self.progress.emit("", 0, 0)
        self._set_busy(False)
        self.settled.emit()

    def set_cut(self, entry_id: str | None) -> None:
        """Re-plan with the cut at ``entry_id`` (None: back to the automatic cut)."""
        if self.transcript is None:
            return
        self.cut_entry_id = entry_id
        if entry_id is None and self.auto_plan is not None:
            self.plan = self.auto_plan
            self.plan_ready.emit(self.auto_plan)
            return
        self._start_plan(self.transcript, entry_id, auto=False)

    # timeline ---------------------------------------------------------------------------------
    def select(self, entry_id: str) -> None:
        if self.transcript is not None and entry_id in self.transcript.index \
                and entry_id != self.selected_id:
            self.selected_id = entry_id
            self.entry_selected.emit(entry_id)

    def set_filter(self, flt: RowFilter) -> None:
        self.row_filter = flt
        rows = self.rows

        def job(_r: Progress, cancelled: CancelCheck) -> Any:
            return filter_rows(rows, flt, cancelled)

        self._tasks.run(job, on_done=lambda vis: self._on_filtered(rows, vis),
                        on_error=self._on_error, group="filter")

    def _on_filtered(self, rows: tuple[TimelineRow, ...], visible: tuple[int, ...] | None) -> None:
        if rows is self.rows:
            self.visible_changed.emit(visible)

    def set_tree_mode(self, tree: bool) -> None:
        """Switch between the active path and the whole tree (rows rebuilt on the pool)."""
        t = self.transcript
        if t is None or tree == self.tree_mode:
            return
        self.tree_mode = tree
        window = self.settings.context_window

        def job(_r: Progress, cancelled: CancelCheck) -> tuple[TimelineRow, ...]:
            return build_rows(t, tree=tree, context_window=window, cancel=cancelled)

        self._tasks.run(job, on_done=lambda rows: self._on_rows(t, rows), on_error=self._on_error,
                        group="rows", big=True)

    def _on_rows(self, t: Transcript, rows: tuple[TimelineRow, ...]) -> None:
        if t is not self.transcript:
            return
        self.rows = rows
        self.rows_changed.emit(rows, None)
        if not self.row_filter.is_empty:
            self.set_filter(self.row_filter)

    # the machine's sessions ---------------------------------------------------------------------
    def discover(self, dirs: list[Path] | None = None) -> None:
        def job(_r: Progress, _c: CancelCheck) -> list[Any]:
            return list(discover_sessions(dirs if dirs is not None else default_session_dirs()))

        self._tasks.run(job, on_done=self.sessions_ready.emit, group="discover",
                        on_error=lambda exc: self.sessions_failed.emit(describe_error(exc)))

    # a transcript that grows while open ----------------------------------------------------------
    def _on_file_changed(self, path: str) -> None:
        if self.path is not None and Path(path) == self.path:
            self._reload_timer.start()

    def _reload_if_grown(self) -> None:
        t = self.transcript
        if t is None:
            return
        try:
            size = t.path.stat().st_size
        except OSError:
            return
        if str(t.path) not in self._watcher.files():
            self._watcher.addPath(str(t.path))  # replaced files drop out of the watch list
        if size != t.file_size and not self._busy:
            self.reload()
