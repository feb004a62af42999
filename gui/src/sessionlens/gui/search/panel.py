"""The search panel: a query box, an agent filter, the ranking, the hits and the index status.

Typing searches after a short pause; Enter or a double-click on a hit opens its transcript
at that entry. The ranking is BM25 unless the user picks an OpenAI-compatible provider
profile as the embeddings endpoint (then hybrid).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtCore import QModelIndex, QTimer
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QProgressBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from sessionlens.engine import IndexStats, ProviderProfile, SearchHit, SearchResults, SessionInfo
from sessionlens.gui.icons import icon
from sessionlens.gui.roles import ItemRole

from .controller import SearchController
from .hit_list import HitDelegate, HitModel

#: Pause after the last keystroke before a query runs (ms).
TYPING_PAUSE_MS = 250


class SearchPanel(QWidget):
    """Search every session on the machine; hits open the transcript at the entry."""

    def __init__(self, controller: SearchController,
                 profiles: Callable[[], Sequence[ProviderProfile]],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._c = controller
        self._profiles = profiles
        self.query = QLineEdit(placeholderText=self.tr(
            "Search every session: words, \"a phrase\", prefix*"), clearButtonEnabled=True)
        self.agent = QComboBox()
        self.agent.addItem(self.tr("All agents"), None)
        self.ranking = QComboBox()
        self.ranking.setToolTip(self.tr("Text ranking (BM25, no network) or hybrid ranking "
                                        "through an OpenAI-compatible embeddings endpoint"))
        self.add_folder = QToolButton()
        self.add_folder.setIcon(icon("action-open"))
        self.add_folder.setToolTip(self.tr("Also search a folder of transcripts…"))
        self.reindex = QToolButton()
        self.reindex.setIcon(icon("action-reload"))
        self.reindex.setToolTip(self.tr("Look for new and changed sessions"))
        self.model = HitModel(self)
        self.list = QListView()
        self.list.setModel(self.model)
        self.list.setItemDelegate(HitDelegate(self.list))
        self.list.setWordWrap(True)
        self.list.setAlternatingRowColors(True)
        self.list.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.list.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.progress = QProgressBar()
        self.progress.setVisible(False)
        self.progress.setMaximumHeight(14)
        self.status = QLabel()
        self.status.setWordWrap(True)
        top = QHBoxLayout()
        top.addWidget(self.query, 1)
        top.addWidget(self.reindex)
        top.addWidget(self.add_folder)
        filters = QHBoxLayout()
        filters.addWidget(self.agent, 1)
        filters.addWidget(self.ranking, 1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addLayout(top)
        lay.addLayout(filters)
        lay.addWidget(self.list, 1)
        lay.addWidget(self.progress)
        lay.addWidget(self.status)
        self._timer = QTimer(self, singleShot=True, interval=TYPING_PAUSE_MS)
        self._timer.timeout.connect(self.run_query)
        self.query.textChanged.connect(lambda _t: self._timer.start())
        self.query.returnPressed.connect(self._open_current_or_search)
        self.agent.currentIndexChanged.connect(lambda _i: self.run_query())
        self.ranking.activated.connect(self._on_ranking)
        self.add_folder.clicked.connect(self._choose_folder)
        self.reindex.clicked.connect(controller.refresh)
        self.list.activated.connect(self._open)
        controller.results_ready.connect(self._on_results)
        controller.indexing.connect(self._on_indexing)
        controller.indexed.connect(self._on_indexed)
        controller.failed.connect(self.status.setText)
        self.fill_rankings()

    # inputs -----------------------------------------------------------------------------
    def fill_rankings(self) -> None:
        """Text ranking, then every provider profile that can serve embeddings."""
        current = self.ranking.currentText()
        self.ranking.clear()
        self.ranking.addItem(self.tr("Text ranking (BM25)"), None)
        for p in self._profiles():
            if p.kind == "openai" and p.base_url and p.model:
                self.ranking.addItem(self.tr("Hybrid via %1").replace("%1", p.name), p)
        at = self.ranking.findText(current)
        self.ranking.setCurrentIndex(max(0, at))

    def set_agents(self, sessions: Sequence[SessionInfo]) -> None:
        """Offer each agent that has sessions on this machine."""
        chosen = self.agent.currentData()
        names = sorted({s.agent or s.format for s in sessions})
        self.agent.blockSignals(True)
        self.agent.clear()
        self.agent.addItem(self.tr("All agents"), None)
        for name in names:
            self.agent.addItem(name, name)
        self.agent.setCurrentIndex(max(0, self.agent.findData(chosen)))
        self.agent.blockSignals(False)

    def focus_query(self) -> None:
        self.query.setFocus()
        self.query.selectAll()

    def run_query(self) -> None:
        self._timer.stop()
        self._c.search(self.query.text(), self.agent.currentData())

    def _on_ranking(self, _i: int) -> None:
        profile = self.ranking.currentData()
        self._c.set_embeddings(profile if isinstance(profile, ProviderProfile) else None)
        self.run_query()

    def _choose_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, self.tr("Search a folder of transcripts"))
        if folder:
            self._c.add_folder(Path(folder))

    # hits -------------------------------------------------------------------------------
    def _open_current_or_search(self) -> None:
        if self.model.hits and not self._timer.isActive():
            self._open(self.model.index(max(0, self.list.currentIndex().row()), 0))
        else:
            self.run_query()

    def _open(self, index: QModelIndex) -> None:
        hit = self.model.data(index, ItemRole)
        if isinstance(hit, SearchHit):
            self._c.open_hit(hit)

    def _on_results(self, results: SearchResults | None) -> None:
        self.model.set_hits(results.hits if results is not None else ())
        if results is None:
            self.status.setText("")
            return
        n = len(results.hits)
        text = self.tr("%n hit(s)", "", n) + self.tr(" · %1 ranking · %2 ms").replace(
            "%1", results.mode).replace("%2", f"{results.seconds * 1000:.0f}")
        if self._c.is_indexing:
            text += self.tr(" · still indexing, more may come")
        for note in results.notes:
            text += f"\n{note}"
        self.status.setText(text)
        if n:
            self.list.setCurrentIndex(self.model.index(0, 0))

    def _on_indexing(self, done: int, total: int) -> None:
        busy = self._c.is_indexing
        self.progress.setVisible(busy)
        if busy:
            self.progress.setRange(0, total if total > 0 else 0)
            if total > 0:
                self.progress.setValue(done)
            self.progress.setFormat(self.tr("Indexing sessions %p%"))

    def _on_indexed(self, stats: IndexStats) -> None:
        text = self.tr("%1 session files indexed").replace("%1", f"{stats.files:,}")
        if stats.indexed:
            text += self.tr(" (%1 updated in %2 s)").replace("%1", str(stats.indexed)).replace(
                "%2", f"{stats.seconds:.1f}")
        if not self._c.query.strip():
            self.status.setText(text)
        self.status.setToolTip("\n".join(stats.problems))
