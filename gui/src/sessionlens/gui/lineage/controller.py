"""LineageController: the open session's lineage, drift, branches, comparisons and restores.

Every engine call runs on the task pool through the injected ``TaskRunner`` (the one place
that creates background work); results come back here on the UI thread and are announced
as signals. The lineage is built from the same ``build_chain`` object ``sessionlens chain``
prints, so the graph and the CLI show the same facts. Transcripts of the chain are loaded
once and kept (keyed by path, size and mtime) for drift and comparisons.

Mounting (see ``lineage_mount.mount_lineage``)::

    lin = LineageController(session_controller, task_runner, parent=window)
    window.add_workbench_tab(LineagePanel(lin), "Lineage")
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from sessionlens.engine import (
    PersistError,
    RestorePlan,
    analyze_drift,
    branch_outline,
    build_chain,
    build_lineage,
    compare_points,
    load_transcript,
    plan_restore,
    point_transcript,
    restore_checkpoint,
)
from sessionlens.gui.lineage.undo import CompactionUndo
from sessionlens.gui.session_controller import describe_error
from sessionlens.gui.transcript.timeline_rows import TimelineRow, build_rows

if TYPE_CHECKING:
    from sessionlens.engine import (
        BranchOutline,
        DriftReport,
        Lineage,
        LineageDiff,
        LineageNode,
        Transcript,
        WriteResult,
    )
    from sessionlens.gui.session_controller import SessionController
    from sessionlens.gui.tasks import CancelCheck, Progress, TaskRunner


@dataclass(frozen=True, slots=True)
class LineageResult:
    """What one lineage job hands back (all engine objects, plus the rows for titles)."""

    lineage: Lineage
    drift: DriftReport


@dataclass(frozen=True, slots=True)
class OutlineResult:
    """The open transcript's branch outline and its rows (titles, icons) by entry id."""

    transcript: Transcript
    outline: BranchOutline
    rows: dict[str, TimelineRow]


@dataclass(frozen=True, slots=True)
class CompareResult:
    a: LineageNode
    b: LineageNode
    diff: LineageDiff
    #: entry id -> row of the side it lives on (A for removed/summarized, B for added).
    rows: dict[str, TimelineRow]


class TranscriptCache:
    """Loaded transcripts by path, reused while the file's size and mtime are unchanged.

    Jobs on the pool read and fill it, hence the lock.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._items: dict[Path, tuple[int, int, Transcript]] = {}

    def put(self, t: Transcript) -> None:
        with self._lock:
            self._items[Path(t.path)] = (t.file_size, t.file_mtime_ns, t)

    def load(self, path: Path) -> Transcript:
        path = Path(path)
        try:
            st = os.stat(path)
        except OSError:
            st = None
        with self._lock:
            hit = self._items.get(path)
        if hit is not None and st is not None and (hit[0], hit[1]) == (st.st_size,
                                                                       st.st_mtime_ns):
            return hit[2]
        t = load_transcript(path)
        self.put(t)
        return t


class LineageController(QObject):
    """Builds the lineage of whatever the session controller opens; runs compare/restore."""

    busy_changed = Signal(bool)
    lineage_ready = Signal(object)     # LineageResult
    outline_ready = Signal(object)     # OutlineResult
    compare_ready = Signal(object)     # CompareResult
    restore_ready = Signal(object, object)  # LineageNode, RestorePlan (or why it cannot be)
    restored = Signal(object)          # WriteResult
    failed = Signal(str)

    def __init__(self, session: SessionController, tasks: TaskRunner,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._session, self._tasks = session, tasks
        self.cache = TranscriptCache()
        self.result: LineageResult | None = None
        #: The engine's dry run of the restore the user is being asked about.
        self.restore_plan: RestorePlan | None = None
        self.outline: OutlineResult | None = None
        self._pending_entry: tuple[Path, str] | None = None
        #: False while the lineage panel is hidden: building waits until it is shown, so
        #: opening a big file does not also walk its whole chain on the shared workers.
        self._active = True
        self._stale: Transcript | None = None
        #: "Undo this compaction" (the memory-health view may call ``undo.request`` too).
        self.undo = CompactionUndo(session, tasks, parent=self)
        self.undo.undone.connect(lambda _r: self.refresh())
        session.loaded.connect(self._on_session_loaded)

    def set_active(self, active: bool) -> None:
        """Build only while the panel is visible; catch up when it is shown again."""
        self._active = active
        if active and self._stale is not None:
            stale, self._stale = self._stale, None
            self.build_outline(stale)
            self.refresh()

    # building ---------------------------------------------------------------------------------
    def _on_session_loaded(self, t: Transcript) -> None:
        self.cache.put(t)
        pending, self._pending_entry = self._pending_entry, None
        if pending is not None and Path(pending[0]) == Path(t.path):
            self._session.select(pending[1])
        if not self._active:
            self._stale = t
            return
        self.build_outline(t)
        self.refresh()

    def adopt(self, t: Transcript) -> None:
        """Show the lineage of a transcript that was opened before this controller existed."""
        self._on_session_loaded(t)

    def refresh(self) -> None:
        """Rebuild the lineage of the open transcript (on the pool)."""
        path = self._session.path
        if path is None:
            return
        cache = self.cache

        def job(_r: Progress, _c: CancelCheck) -> LineageResult:
            chain = build_chain(path)
            lineage = build_lineage(path, load=cache.load, chain=chain)
            drift = analyze_drift([cache.load(p) for p in lineage.transcript_paths()])
            return LineageResult(lineage, drift)

        self.busy_changed.emit(True)
        self._tasks.run(job, on_done=self._on_lineage, on_error=self._on_error,
                        group="lineage")

    def _on_lineage(self, result: LineageResult) -> None:
        self.result = result
        self.busy_changed.emit(False)
        self.lineage_ready.emit(result)

    def build_outline(self, t: Transcript) -> None:
        def job(_r: Progress, cancelled: CancelCheck) -> OutlineResult:
            rows = {r.entry_id: r for r in build_rows(t, tree=True, cancel=cancelled)}
            return OutlineResult(t, branch_outline(t), rows)

        self._tasks.run(job, on_done=self._on_outline, on_error=self._on_error,
                        group="lineage-outline", big=True)

    def _on_outline(self, result: OutlineResult) -> None:
        if result.transcript is self._session.transcript:
            self.outline = result
            self.outline_ready.emit(result)

    def _on_error(self, exc: BaseException) -> None:
        self.busy_changed.emit(False)
        self.failed.emit(describe_error(exc))

    # navigating ------------------------------------------------------------------------------
    def open_at(self, path: Path | None, entry_id: str | None) -> None:
        """Open ``path`` in the app and select ``entry_id`` once it is loaded."""
        if path is None:
            return
        if self._session.path is not None and Path(self._session.path) == Path(path):
            if entry_id:
                self._session.select(entry_id)
            return
        self._pending_entry = (Path(path), entry_id) if entry_id else None
        self._session.open(Path(path))

    # comparing --------------------------------------------------------------------------------
    def compare(self, a: LineageNode, b: LineageNode) -> None:
        """Compare the two points (a node's file, at its entry when it has one)."""
        cache = self.cache

        def point(n: LineageNode) -> Transcript:
            if n.path is None:
                raise ValueError(f"{n.title} has no file to compare")
            t = cache.load(n.path)
            return point_transcript(t, n.entry_id) if n.entry_id and n.entry_id in t.index \
                else t

        def job(_r: Progress, cancelled: CancelCheck) -> CompareResult:
            ta, tb = point(a), point(b)
            diff = compare_points(ta, tb)
            rows = {r.entry_id: r for r in build_rows(tb, tree=True, cancel=cancelled)}
            rows.update({r.entry_id: r for r in build_rows(ta, tree=True, cancel=cancelled)})
            return CompareResult(a, b, diff, rows)

        self._tasks.run(job, on_done=self.compare_ready.emit, on_error=self._on_error,
                        group="lineage-compare")

    # restoring --------------------------------------------------------------------------------
    def prepare_restore(self, node: LineageNode) -> None:
        """The engine's dry run of the restore (the dialog shows its real file name)."""
        source = node.path
        if source is None:
            self.failed.emit(self.tr("This point has no file to restore from."))
            return

        def job(_r: Progress, _c: CancelCheck) -> RestorePlan | str:
            try:
                return plan_restore(source)
            except PersistError as exc:
                return describe_error(exc)

        self._tasks.run(job, on_done=lambda plan: self._on_restore_planned(node, plan),
                        on_error=self._on_error, group="lineage-restore")

    def _on_restore_planned(self, node: LineageNode, plan: RestorePlan | str) -> None:
        self.restore_plan = plan if not isinstance(plan, str) else None
        self.restore_ready.emit(node, plan)

    def restore(self, node: LineageNode) -> None:
        """Fork ``node``'s file into a new transcript beside it (after the user confirmed)."""
        source = node.path
        if source is None:
            self.failed.emit(self.tr("This point has no file to restore from."))
            return

        planned = self.restore_plan if self.restore_plan is not None and (
            self.restore_plan.source == source.absolute()) else None

        def job(_r: Progress, _c: CancelCheck) -> WriteResult:
            return restore_checkpoint(source, planned=planned)

        self._tasks.run(job, on_done=self._on_restored, on_error=self._on_error,
                        group="lineage-restore")

    def _on_restored(self, result: WriteResult) -> None:
        self.restored.emit(result)
        self.refresh()

    @property
    def current_path(self) -> Path | None:
        return self._session.path

    def node_for_current(self) -> LineageNode | None:
        """The lineage node of the open transcript, if the lineage is built."""
        if self.result is None or self._session.path is None:
            return None
        here = Path(self._session.path).resolve()
        return next((n for n in self.result.lineage.nodes
                     if n.kind == "transcript" and n.path == here), None)
