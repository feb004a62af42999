"""``SearchIndex``: the one object both faces use to index the machine's sessions and query them.

It opens the index file per call (so any thread or process may hold its own), answers a
corrupt index by rebuilding it and trying once more, and keeps the user's added folders in
``roots.json`` beside the file. Paths are explicit: the caller says which cache folder,
which agent folders (default: every registered agent's, ``default_session_dirs``) and which
embeddings endpoint, if any.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import TypeVar

from sessionlens.engine.errors import ConfigError
from sessionlens.engine.sessions.discovery import default_session_dirs

from .embeddings import EmbeddingsClient
from .fate import follow_chains
from .index_db import connect, index_dir, rebuild
from .indexer import IndexStats, update_files
from .query import Filters, SearchResults, indexed_entry_text, run_query
from .roots import add_root, read_roots, remove_root
from .search_settings import DEFAULT_SEARCH_SETTINGS, SearchSettings
from .vectors import embed_missing, prune_vectors

__all__ = ["IndexSummary", "SearchIndex", "search_index_dir"]

T = TypeVar("T")
#: SQLite errors a rebuild cannot cure (another process, the disk): reported, not rebuilt.
_NOT_CORRUPTION = ("locked", "busy", "disk i/o", "readonly", "full", "unable to open")


def search_index_dir(cache_dir: Path | str) -> Path:
    """Where the index lives inside a cache folder (``<cache>/search``)."""
    return index_dir(cache_dir)


@dataclass(frozen=True, slots=True)
class IndexSummary:
    """How much the index holds (the panel's status line)."""

    files: int
    chunks: int
    bytes: int
    vectors: int


class SearchIndex:
    """Index and query every session transcript; see the module docstring."""

    def __init__(self, folder: Path | str, settings: SearchSettings = DEFAULT_SEARCH_SETTINGS,
                 *, embeddings: EmbeddingsClient | None = None,
                 session_dirs: Callable[[], Sequence[Path]] | None = None) -> None:
        self.folder = Path(folder)
        self.settings = settings
        self.embeddings = embeddings
        self._session_dirs = session_dirs or default_session_dirs

    def _run(self, op: Callable[[sqlite3.Connection], T]) -> T:
        for attempt in range(2):
            try:
                with connect(self.folder, self.settings) as conn:
                    return op(conn)
            except sqlite3.DatabaseError as exc:
                text = str(exc).lower()
                if attempt or any(word in text for word in _NOT_CORRUPTION):
                    raise ConfigError(f"{self.folder}: search index: {exc}") from exc
                rebuild(self.folder, self.settings, force=True)
        raise AssertionError("unreachable")

    # the user's folders ---------------------------------------------------------------------
    def roots(self) -> list[Path]:
        return read_roots(self.folder)

    def add_root(self, path: Path | str) -> list[Path]:
        return add_root(self.folder, path)

    def remove_root(self, path: Path | str) -> list[Path]:
        return remove_root(self.folder, path)

    def session_dirs(self) -> list[Path]:
        """Every folder an update walks: the agents' own and the user's added ones."""
        return [*self._session_dirs(), *self.roots()]

    # indexing -------------------------------------------------------------------------------
    def update(self, paths: Sequence[Path | str] = (), *,
               on_progress: Callable[[int, int], None] | None = None,
               cancel: Callable[[], bool] | None = None, workers: int = 1,
               helpers: bool = True) -> IndexStats:
        """Index what changed; ``paths`` (files or folders) are indexed too and kept."""
        dirs = self.session_dirs()
        pinned = [Path(p).expanduser().resolve() for p in paths]

        def op(conn: sqlite3.Connection) -> IndexStats:
            stats = update_files(conn, self.settings, dirs, pinned, on_progress=on_progress,
                                 cancel=cancel, workers=workers, helpers=helpers)
            if self.embeddings is not None:
                added = embed_missing(conn, self.embeddings, cancel=cancel)
                if stats.removed:
                    prune_vectors(conn)
                stats = replace(stats, vectors_added=added)
            return stats

        return self._run(op)

    def summary(self) -> IndexSummary:
        def op(conn: sqlite3.Connection) -> IndexSummary:
            files, size = conn.execute("SELECT count(*), coalesce(sum(size), 0) FROM files"
                                       ).fetchone()
            chunks = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
            vectors = conn.execute("SELECT count(*) FROM vectors").fetchone()[0]
            return IndexSummary(int(files), int(chunks), int(size), int(vectors))

        return self._run(op)

    # querying -------------------------------------------------------------------------------
    def search(self, query: str, *, paths: Sequence[Path | str] = (), agent: str | None = None,
               since: datetime | None = None, limit: int | None = None) -> SearchResults:
        """The best hits, best first (hybrid when an embeddings endpoint is configured)."""
        filters = Filters(agent or None,
                          tuple(Path(p).expanduser().resolve() for p in paths),
                          since.timestamp() if since is not None else None)
        client = self.embeddings

        def embed(text: str) -> Sequence[float]:
            assert client is not None
            return client.embed([text])[0]

        def op(conn: sqlite3.Connection) -> SearchResults:
            return run_query(conn, query, self.settings, filters=filters, limit=limit,
                             embed_query=embed if client is not None else None,
                             model_key=client.model_key if client is not None else None)

        results = self._run(op)
        # the fate of each hit is trace's, along its chain into successors (search.fate)
        fates = follow_chains(results.hits, lambda h: h.fate, lambda h: h.path,
                              lambda h: h.entry_id)
        return replace(results, hits=tuple(replace(h, fate=f)
                                           for h, f in zip(results.hits, fates, strict=True)))

    def entry_text(self, path: Path | str, entry_id: str) -> str:
        """What the index holds of one entry's text ("" when it holds none)."""
        return self._run(lambda conn: indexed_entry_text(conn, Path(path), entry_id))
