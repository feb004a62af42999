"""SessionController: the open session's state, and the signals views listen to.

Views get this object injected and never call the engine themselves. Every engine call
that can take time goes through ``TaskRunner`` (load, count, plan, row building, filter,
discovery; the steps themselves are ``session_steps``); results arrive here on the UI
thread and are re-announced as signals.
The chain after opening a file is: load -> rows -> count the context's tokens -> plan ->
count the rest of the file -> ``settled``. ``tokens_ready`` fires twice: first with the
context's report (the three numbers, the chart), then with the whole file's.

One truth: on load the engine resolves the compaction settings once (``resolve_settings``:
the app's overrides, the ``openclaw.json`` that governs the file, the transcript's model),
and the one plan and its ``Figures`` are computed from them. Every widget that shows the
window, threshold, tokens before or predicted after reads ``resolved`` and ``figures`` here.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from sessionlens.engine import (
    DEFAULT_SETTINGS,
    CompactionPlan,
    CompactionSettings,
    Figures,
    OpenedTranscript,
    Overrides,
    ResolvedSettings,
    Setting,
    default_session_dirs,
    discover_sessions,
    resolve_settings,
)

if TYPE_CHECKING:
    from sessionlens.engine import Transcript

from .file_count import FileCount
from .file_watch import FileWatch
from .paint_first import PaintFirst
from .prefs import Prefs
from .session_steps import (
    LoadedSession,
    TokenView,
    count_context_view,
    describe_error,
    load_session,
    release,
)
from .tasks import CancelCheck, Progress, TaskHandle, TaskRunner
from .transcript.timeline_rows import RowFilter, TimelineRow, build_rows, filter_rows

__all__ = ["LoadedSession", "SessionController", "TokenView", "describe_error"]

#: Pause between a load's rows and its counts on screen (ms): long enough for one paint.
FIRST_PAINT_MS = 10


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
    settings_changed = Signal(object)         # ResolvedSettings
    failed = Signal(str)
    settled = Signal()                        # load, count and plan are all done

    def __init__(self, tasks: TaskRunner, prefs: Prefs, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._tasks = tasks
        self._prefs = prefs
        self.transcript: Transcript | None = None
        self.path_pos: dict[str, int] = {}
        self.rows: Sequence[TimelineRow] = ()
        self.tree_mode = False
        self.row_filter = RowFilter()
        self.tokens: TokenView | None = None
        self.plan: CompactionPlan | None = None
        self.figures: Figures | None = None
        self.auto_plan: CompactionPlan | None = None
        self.auto_figures: Figures | None = None
        #: The open transcript with its settings resolved once (None until a file loads).
        self.opened: OpenedTranscript | None = None
        self._config: CompactionSettings = DEFAULT_SETTINGS
        self._store_window: Setting | None = None
        self._store_beside = False
        self.cut_entry_id: str | None = None
        self.selected_id: str | None = None
        self.encoding = prefs.encoding()
        self.overrides = prefs.overrides()
        self._load_handle: TaskHandle | None = None
        #: The background count of the whole file.
        self._file_count = FileCount(tasks)
        self._busy = False
        self._watch = FileWatch(self._reload_if_grown, self)
        self._steps = PaintFirst(self)

    # settings -------------------------------------------------------------------------------
    @property
    def resolved(self) -> ResolvedSettings | None:
        return self.opened.resolved if self.opened is not None else None

    @property
    def settings(self) -> CompactionSettings:
        """The complete settings plans use (the resolved ones once a file is open)."""
        r = self.resolved
        return r.settings if r is not None else DEFAULT_SETTINGS

    def apply_overrides(self, overrides: Overrides, encoding: str | None = None) -> None:
        """Use the user's new settings (and tokenizer): resolve again, recount if needed, re-plan.

        The one place keep-recent, reserve and the window are set: the settings dialog and
        the compaction panel both come here, and both store them in the app's prefs."""
        self._prefs.set_overrides(overrides)
        recount = encoding is not None and encoding != self.encoding
        self.overrides = overrides
        if encoding is not None:
            self.encoding = encoding
        t = self.transcript
        if t is None or self.opened is None:
            return
        self.opened = OpenedTranscript(t, self._resolve(t), self.opened.tokens)
        self.settings_changed.emit(self.opened.resolved)
        if recount:
            self._start_count(t)
        else:
            self._start_plan(t, self.cut_entry_id, auto=self.cut_entry_id is None)

    def _resolve(self, t: Transcript) -> ResolvedSettings:
        """The engine's one resolution of the settings that govern ``t``."""
        return resolve_settings(t, self.overrides, self._config, self._store_window,
                                self._store_beside)

    def context_window(self) -> int:
        """The resolved window of the open transcript (every widget draws this one)."""
        r = self.resolved
        return r.window if r is not None else int(self.overrides.context_window or 0)

    def threshold(self) -> int:
        r = self.resolved
        return r.threshold if r is not None else 0

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

    def open(self, path: Path, *, keep_selection: bool = False,
             select: str | None = None) -> None:
        """Load ``path`` off the UI thread (cancels a load already running); ``select`` is
        the entry to select once it is loaded."""
        path = Path(path)
        if self._load_handle is not None:
            self._load_handle.cancel()
        self._file_count.stop()
        self._set_busy(True)
        self.progress.emit("load", 0, 0)
        overrides, encoding = self.overrides, self.encoding
        keep = select or (self.selected_id if keep_selection else None)
        self._load_handle = self._tasks.run(
            lambda report, cancelled: load_session(path, overrides, encoding, report, cancelled),
            on_done=lambda r: self._on_loaded(r, keep), on_error=self._on_error,
            on_progress=lambda d, t: self.progress.emit("load", d, t), group="load", big=True)

    def open_at(self, path: Path, entry_id: str | None) -> None:
        """Show ``entry_id`` of ``path``: selected at once if that file is open, else after
        it has loaded (a search hit, a lineage node)."""
        if self.path is not None and Path(path).resolve() == self.path.resolve():
            if entry_id:
                self.select(entry_id)
            return
        self.open(Path(path), select=entry_id)

    def reload(self) -> None:
        if self.path is not None:
            self.open(self.path, keep_selection=True)

    def cancel(self) -> None:
        """Stop loading/counting; whatever finished already stays on screen."""
        self._tasks.cancel_all()
        self._file_count.stop()
        self._steps.stop()
        self._load_handle = None
        self._set_busy(False)
        self.progress.emit("", 0, 0)
        self.settled.emit()

    def _on_loaded(self, result: LoadedSession, keep: str | None) -> None:
        self._load_handle = None
        t = result.transcript
        old = [self.transcript, self.rows, self.opened, self.tokens, self.plan, self.auto_plan]
        self.transcript, self.rows = t, result.rows
        self._config, self._store_window = result.config, result.store_window
        self._store_beside = result.store_beside
        self.opened = OpenedTranscript(t, result.resolved)
        self.path_pos = result.path_pos
        self.tokens = self.plan = self.auto_plan = None
        self.figures = self.auto_figures = None
        self.cut_entry_id = None
        self.tree_mode = False
        self._watch.watch(t.source_file)  # a database session's path names the database file
        self._prefs.add_recent(t.path)
        self._prefs.set_last_session(t.path)
        self.loaded.emit(t)
        self.settings_changed.emit(self.opened.resolved)
        self.rows_changed.emit(self.rows, None)
        if not self.row_filter.is_empty:
            self.set_filter(self.row_filter)
        self.selected_id = None
        if keep is not None and keep in t.index:
            self.select(keep)
        # the rows paint first, then the context's count (made with the load) is shown
        view = result.view
        if view is not None and view.report.encoding == self.encoding:
            self._steps.after_paint(lambda: self._on_counted(t, view), FIRST_PAINT_MS)
        else:
            self._steps.after_paint(lambda: self._start_count(t) if t is self.transcript else None)
        # the views let go of the last file: its entries are freed on a worker, in chunks
        self._tasks.run(lambda _r, _c: release(old), on_done=lambda _n: None)

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
        self._file_count.stop()
        self._tasks.run(lambda _r, cancelled: count_context_view(t, encoding, settings, cancelled),
                        on_done=lambda v: self._on_counted(t, v), on_error=self._on_error,
                        on_progress=lambda d, n: self.progress.emit("count", d, n), group="count",
                        big=True)

    def _show_tokens(self, view: TokenView) -> None:
        """Adopt a count (the context's, then the whole file's): the opened transcript's
        figures use its report from now on."""
        self.tokens = view
        if self.opened is not None:
            self.opened = self.opened.with_tokens(view.report)
        self.tokens_ready.emit(view)

    def _on_counted(self, t: Transcript, view: TokenView) -> None:
        if t is not self.transcript:
            return
        self._show_tokens(view)
        self._steps.after_paint(lambda: self._plan_if_current(t))

    def _count_rest_of_file(self) -> bool:
        """Count every entry in the background once the context is shown; True while it runs."""
        t, view = self.transcript, self.tokens
        if t is None or view is None or view.report.complete:
            return False
        if not self._file_count.running:
            self.progress.emit("count", 0, len(t.entries))
            self._file_count.start(t, view, self.settings,
                                   on_done=lambda v: self._on_file_counted(t, v),
                                   on_error=self._on_error,
                                   on_progress=lambda d, n: self.progress.emit("count", d, n))
        return True

    def _on_file_counted(self, t: Transcript, view: TokenView) -> None:
        if t is not self.transcript:
            return
        self._show_tokens(view)
        self._finish()

    def _plan_if_current(self, t: Transcript) -> None:
        if t is self.transcript and self.tokens is not None:
            self._start_plan(t, None, auto=True)

    def _start_plan(self, t: Transcript, cut: str | None, *, auto: bool) -> None:
        opened = self.opened
        if opened is None:
            return
        self.progress.emit("plan", 0, 0)

        def job(_r: Progress, _c: CancelCheck) -> tuple[CompactionPlan, Figures]:
            plan = opened.plan(cut_entry_id=cut)
            return plan, opened.figures(plan)

        self._tasks.run(job, on_done=lambda pf: self._on_planned(t, pf[0], pf[1], auto),
                        on_error=lambda exc: self._on_plan_error(exc, auto), group="plan")

    def _on_planned(self, t: Transcript, plan: CompactionPlan, figures: Figures,
                    auto: bool) -> None:
        if t is not self.transcript:
            return
        if auto:
            self.auto_plan, self.auto_figures = plan, figures
        self.plan, self.figures = plan, figures
        self.plan_ready.emit(plan)
        self._finish()

    def _on_plan_error(self, exc: BaseException, auto: bool) -> None:
        """No plan for this cut: a user cut keeps the last plan on screen, an automatic one clears."""
        if auto:
            self.plan = self.auto_plan = None
            self.figures = self.auto_figures = None
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
            self.plan, self.figures = self.auto_plan, self.auto_figures
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
        self._tasks.run(lambda _r, cancelled: filter_rows(rows, flt, cancelled), on_done=lambda vis: self._on_filtered(rows, vis),
                        on_error=self._on_error, group="filter")

    def _on_filtered(self, rows: Sequence[TimelineRow], visible: tuple[int, ...] | None) -> None:
        if rows is self.rows:
            self.visible_changed.emit(visible)

    def set_tree_mode(self, tree: bool) -> None:
        """Switch between the active path and the whole tree (rows rebuilt on the pool)."""
        t = self.transcript
        if t is None or tree == self.tree_mode:
            return
        self.tree_mode = tree
        window = self.context_window() or None
        self._tasks.run(lambda _r, cancelled: build_rows(t, tree=tree, context_window=window,
                                                          cancel=cancelled), on_done=lambda rows: self._on_rows(t, rows), on_error=self._on_error,
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
        self._tasks.run(lambda _r, _c: list(discover_sessions(
            dirs if dirs is not None else default_session_dirs())), on_done=self.sessions_ready.emit, group="discover",
                        on_error=lambda exc: self.sessions_failed.emit(describe_error(exc)))

    # a transcript that grows while open ----------------------------------------------------------
    def _reload_if_grown(self) -> None:
        t = self.transcript
        if t is None:
            return
        try:
            size = t.source_file.stat().st_size
        except OSError:
            return
        if size != t.file_size and not self._busy:
            self.reload()
