"""SearchController: keeps the machine-wide search index fresh and answers queries, off the UI thread.

Two job groups on the app's one ``TaskRunner``: ``search-index`` brings the index up to date
(the first time it reads every session, later only what changed) and ``search-query``
answers the latest query (typing cancels the previous one). Queries run against whatever
is indexed so far, so hits appear while a first build is still going; when the build ends
the last query runs again on the complete index.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from sessionlens.engine import (
    EmbeddingsClient,
    IndexStats,
    ProviderProfile,
    SearchHit,
    SearchIndex,
    SearchResults,
)
from sessionlens.gui.session_controller import SessionController, describe_error
from sessionlens.gui.tasks import CancelCheck, Progress, TaskRunner


class SearchController(QObject):
    """The panel's model of the search: query in, ``SearchResults`` out, hits opened."""

    results_ready = Signal(object)      # SearchResults
    indexing = Signal(int, int)         # bytes done, total (0, 0: idle)
    indexed = Signal(object)            # IndexStats
    failed = Signal(str)

    def __init__(self, session: SessionController, tasks: TaskRunner, folder: Path, *,
                 session_dirs: Callable[[], Sequence[Path]] | None = None,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._session, self._tasks = session, tasks
        self._folder = folder
        self._session_dirs = session_dirs
        self._embeddings: EmbeddingsClient | None = None
        self.index = SearchIndex(folder, session_dirs=session_dirs)
        self.query = ""
        self.agent: str | None = None
        self.results: SearchResults | None = None
        self._indexing = False
        self.stats: IndexStats | None = None

    # configuration ----------------------------------------------------------------------
    def set_session_dirs(self, dirs: Callable[[], Sequence[Path]] | None) -> None:
        self._session_dirs = dirs
        self._rebuild_index_object()

    def set_embeddings(self, profile: ProviderProfile | None) -> None:
        """Hybrid ranking through ``profile``'s endpoint (None: BM25 only, no network)."""
        if self._embeddings is not None:
            self._embeddings.close()
        self._embeddings = EmbeddingsClient(profile) if profile is not None else None
        self._rebuild_index_object()
        self.refresh()

    def scope(self, folder: Path, dirs: Sequence[Path]) -> None:
        """Search only ``dirs``, in an index of its own at ``folder``.

        An update drops from its index every file it no longer finds, so searching fewer
        folders in the user's own index would empty it of the rest (the screenshot command
        searches one folder this way)."""
        self._folder = folder
        chosen = list(dirs)
        self._session_dirs = lambda: chosen
        self._rebuild_index_object()

    def _rebuild_index_object(self) -> None:
        self.index = SearchIndex(self._folder, embeddings=self._embeddings,
                                 session_dirs=self._session_dirs)

    def add_folder(self, path: Path) -> None:
        self.index.add_root(path)
        self.refresh()

    # indexing ---------------------------------------------------------------------------
    @property
    def is_indexing(self) -> bool:
        return self._indexing

    def refresh(self) -> None:
        """Bring the index up to date (does nothing while an update runs)."""
        if self._indexing:
            return
        self._indexing = True
        index = self.index

        def job(report: Progress, cancelled: CancelCheck) -> IndexStats:
            # one core for the UI: no helper threads, no worker processes
            return index.update(on_progress=report, cancel=cancelled, workers=1, helpers=False)

        self.indexing.emit(0, 0)
        self._tasks.run(job, on_done=self._on_indexed, on_error=self._on_index_error,
                        on_progress=self.indexing.emit, group="search-index")

    def _on_indexed(self, stats: IndexStats) -> None:
        self._indexing = False
        self.stats = stats
        self.indexing.emit(0, 0)
        self.indexed.emit(stats)
        if self.query.strip():
            self.search(self.query, self.agent)

    def _on_index_error(self, exc: BaseException) -> None:
        self._indexing = False
        self.indexing.emit(0, 0)
        self.failed.emit(describe_error(exc))

    # querying ---------------------------------------------------------------------------
    def search(self, query: str, agent: str | None = None) -> None:
        """Answer ``query`` (latest wins); an empty query clears the hits."""
        self.query, self.agent = query, agent
        if not query.strip():
            self.results = None
            self.results_ready.emit(None)
            return
        index = self.index

        def job(_r: Progress, _c: CancelCheck) -> SearchResults:
            return index.search(query, agent=agent, limit=50)

        self._tasks.run(job, on_done=self._on_results,
                        on_error=lambda exc: self.failed.emit(describe_error(exc)),
                        group="search-query")

    def _on_results(self, results: SearchResults) -> None:
        self.results = results
        self.results_ready.emit(results)

    def open_hit(self, hit: SearchHit) -> None:
        """Open the hit's transcript at its entry."""
        self._session.open_at(hit.path, hit.entry_id)

    def close(self) -> None:
        if self._embeddings is not None:
            self._embeddings.close()
