"""``Recall``: the read-only memory service an agent asks through ``sessionlens mcp``.

One object holds the scope (which folders it may answer about), the search index it queries
and a few loaded transcripts; each public method is one tool, takes plain arguments a model
can give and returns one redacted record of ``results``. Nothing here writes but the search
index, which the search engine maintains in the cache: with the default scope it is the
index ``sessionlens search`` and the app use; with explicit roots it is an index of those
roots alone (``<cache>/recall-index/<hash>``), so asking about a folder never prunes or pins
anything in the app's index.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path

from sessionlens.engine.errors import ConfigError, LoadError, ScopeError, SessionLensError
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.model import Transcript
from sessionlens.engine.search.fate import HitFate
from sessionlens.engine.search.roots import read_roots
from sessionlens.engine.search.search_index import SearchIndex, search_index_dir
from sessionlens.engine.sessions.discovery import default_session_dirs

from . import lookups
from .result_redaction import known_secrets, redact_result, safe_snippet
from .results import (
    CompactionDrops,
    FactTraceResult,
    HitFateView,
    OriginalText,
    SearchAnswer,
    SessionHitView,
    SessionLine,
    SessionList,
    SessionOverview,
)
from .scope import RecallScope

__all__ = ["MAX_PAGE_CHARS", "MAX_SEARCH_HITS", "Recall", "fate_text"]

MAX_SEARCH_HITS = 20
MAX_SESSIONS = 50
MAX_PAGE_CHARS = 20_000
MAX_ENTRY_IDS = 20
_CACHED_TRANSCRIPTS = 3


def fate_text(fate: HitFate) -> str:
    """What compaction did to a hit, in the words ``sessionlens search`` prints."""
    if fate.status == "live":
        return "not compacted yet"
    if fate.status == "kept":
        return f"kept by compaction {fate.compaction_id}"
    if fate.status == "lost":
        return f"lost at compaction {fate.compaction_id} (missing: {', '.join(fate.missing)})"
    return f"replaced by compaction {fate.compaction_id} (nothing specific to check)"


def _parse_since(text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        when = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ConfigError(f"since: {text!r} is not a date (YYYY-MM-DD or an ISO date and "
                          "time)") from None
    return when if when.tzinfo else when.astimezone()


class Recall:
    """See the module docstring. ``roots`` empty: the agents' own folders and the search's
    added folders; else exactly ``roots``."""

    def __init__(self, cache_dir: Path, roots: Sequence[Path | str] = (), *,
                 default_dirs: Callable[[], Sequence[Path]] = default_session_dirs) -> None:
        index_folder = search_index_dir(cache_dir)
        if roots:
            self.scope = RecallScope.of(roots)
            key = hashlib.sha256("\n".join(map(str, self.scope.roots)).encode()).hexdigest()
            index_folder = Path(cache_dir) / "recall-index" / key[:16]
            scope_dirs: Callable[[], Sequence[Path]] = lambda: self.scope.roots  # noqa: E731
        else:
            self.scope = RecallScope.of([*default_dirs(), *read_roots(index_folder)])
            scope_dirs = default_dirs
        self.index = SearchIndex(index_folder, session_dirs=scope_dirs)
        self._lock = threading.Lock()
        #: one index update at a time (a client may send two searches at once)
        self._index_lock = threading.Lock()
        self._index_notes: list[str] = []
        self._loaded: OrderedDict[Path, Transcript] = OrderedDict()

    # loading, inside the scope only ---------------------------------------------------------
    def load(self, path: Path) -> Transcript:
        """The transcript at ``path`` (refused outside the scope; the last few kept while
        their file is unchanged)."""
        p = self.scope.check(path)
        try:
            st = p.stat()
        except OSError as exc:
            raise LoadError(p, exc.strerror or "cannot be read") from None
        with self._lock:
            held = self._loaded.get(p)
            if held is not None and (held.file_size, held.file_mtime_ns) == (
                    st.st_size, st.st_mtime_ns):
                self._loaded.move_to_end(p)
                return held
        transcript = load_transcript(p)
        with self._lock:
            self._loaded[p] = transcript
            while len(self._loaded) > _CACHED_TRANSCRIPTS:
                self._loaded.popitem(last=False)
        return transcript

    def _session(self, session: str) -> Transcript:
        return self.load(self.scope.resolve(session))

    def warm_index(self) -> None:
        """Bring the search index up to date now (the server starts this on a thread, so the
        first search does not wait for a first build); a failure is told by the next search."""
        with self._index_lock:
            try:
                stats = self.index.update()
            except SessionLensError as exc:
                self._index_notes.append(f"index update at start failed: {exc}")
                return
            self._index_notes.extend(f"skipped {p}" for p in stats.problems[:5])

    # the tools ------------------------------------------------------------------------------
    def list_sessions(self, agent: str | None = None, limit: int = 20) -> SessionList:
        found = [s for s in self.scope.sessions() if not agent or s.agent == agent]
        shown = found[:max(1, min(limit, MAX_SESSIONS))]
        return redact_result(SessionList(tuple(SessionLine(
            str(s.path), s.agent, s.session_id, s.format, s.entries, s.compactions,
            s.modified.isoformat().replace("+00:00", "Z"), s.project, s.title)
            for s in shown), len(found), tuple(str(r) for r in self.scope.roots)))

    def search_sessions(self, query: str, limit: int = 5, agent: str | None = None,
                        since: str | None = None) -> SearchAnswer:
        if not self.scope.roots:
            raise ScopeError("no session folders configured: nothing to search")
        when = _parse_since(since)
        limit = max(1, min(limit, MAX_SEARCH_HITS))
        with self._index_lock:
            stats = self.index.update()
            results = self.index.search(query, paths=self.scope.roots, agent=agent,
                                        since=when, limit=limit)
            earlier, self._index_notes = self._index_notes, []
        hits: list[SessionHitView] = []
        for h in results.hits:
            if not self.scope.contains(h.path):
                continue
            # the entry's secrets, found in its whole text: the snippet may show one bare
            known = known_secrets([self.index.entry_text(h.path, h.entry_id)])
            hits.append(redact_result(SessionHitView(
                str(h.path), h.entry_id, h.role, h.agent, h.session_id, h.timestamp,
                round(h.score, 4), safe_snippet(h.snippet, known),
                HitFateView(h.fate.status, fate_text(h.fate), h.fate.compaction_id,
                            tuple(h.fate.missing))), known))
        notes = (*earlier, *results.notes, *(f"skipped {p}" for p in stats.problems[:5]))
        return redact_result(SearchAnswer(results.query, tuple(hits), results.mode,
                                          tuple(notes)))

    def session_overview(self, session: str) -> SessionOverview:
        return redact_result(lookups.session_overview(self._session(session), self.load))

    def trace_fact(self, session: str, text: str) -> FactTraceResult:
        if not text.strip():
            raise ConfigError("text: give the words, path, error or identifier to follow")
        return redact_result(*lookups.fact_trace(self._session(session), text, self.load))

    def compaction_dropped(self, session: str, compaction_id: str | None = None
                           ) -> CompactionDrops:
        return redact_result(*lookups.compaction_drops(self._session(session), compaction_id,
                                                       self.load))

    def original_text(self, session: str, entry_ids: Sequence[str], offset: int = 0,
                      max_chars: int = 4000) -> OriginalText:
        if not entry_ids:
            raise ConfigError("entry_ids: give at least one entry id (from search_sessions, "
                              "trace_fact or compaction_dropped)")
        ids = list(entry_ids)[:MAX_ENTRY_IDS]
        return redact_result(lookups.original_text(
            self._session(session), ids, offset=offset,
            max_chars=max(1, min(max_chars, MAX_PAGE_CHARS))))
