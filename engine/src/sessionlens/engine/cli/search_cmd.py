"""``sessionlens search QUERY [PATH ...]``: find where something was said, in every session.

The index (``<cache>/search``, moved by ``--basedir``) is brought up to date first: the
first run reads every transcript the agents' folders hold (a progress bar on a terminal),
later runs only what changed. Ranking is BM25 unless an embeddings endpoint is given. Each
hit says whether a later compaction in its file kept what was found.
"""

from __future__ import annotations

import argparse
import os
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

from sessionlens.engine._io.user_dirs import user_cache_dir
from sessionlens.engine.errors import ConfigError, LoadError
from sessionlens.engine.search.embeddings import EmbeddingsClient
from sessionlens.engine.search.query import SearchHit, SearchResults
from sessionlens.engine.search.search_index import SearchIndex, search_index_dir
from sessionlens.engine.search.search_settings import (
    DEFAULT_SEARCH_SETTINGS,
    ESTIMATE,
    SearchSettings,
)
from sessionlens.engine.summarize.providers.base import ProviderProfile
from sessionlens.engine.tokens.tokenizer import ENCODING_NAMES, ensure_tiktoken_data

from .args import positive_int
from .output import emit_json, emit_lines, warn

__all__ = ["hit_record", "parse_since", "register", "run"]

_D = DEFAULT_SEARCH_SETTINGS
#: The bar appears only for updates with at least this much to read.
_BAR_MIN_BYTES = 4 << 20


def parse_since(text: str) -> datetime:
    """``2026-03-01`` or ``2026-03-01T14:00`` (local time unless an offset is given)."""
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a date (YYYY-MM-DD or ISO "
                                         "date and time)") from None
    return when if when.tzinfo else when.astimezone()


def _share(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"{value} is not between 0 and 1")
    return value


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("search", help="search every session on this machine (BM25, or hybrid "
                                      "with an embeddings endpoint)")
    p.add_argument("query", help="words (all must occur), \"a phrase\", or prefix*")
    p.add_argument("paths", nargs="*", type=Path, metavar="PATH",
                   help="only these folders or files (indexed too, and kept in the index)")
    p.add_argument("--limit", type=positive_int, default=_D.max_results,
                   help=f"at most N hits (default {_D.max_results})")
    p.add_argument("--agent", help="only this agent's sessions (pi, claude-code, codex, or an "
                                   "OpenClaw agent id such as main)")
    p.add_argument("--since", type=parse_since, metavar="DATE",
                   help="only entries at or after DATE")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--basedir", type=Path, help="keep the index under DIR/cache")
    p.add_argument("--embeddings-url", metavar="URL",
                   help="OpenAI-compatible endpoint for hybrid ranking (e.g. "
                        "http://127.0.0.1:11434/v1)")
    p.add_argument("--embeddings-model", metavar="MODEL", help="embeddings model name")
    p.add_argument("--embeddings-key-env", metavar="VAR",
                   help="environment variable holding the endpoint's API key")
    p.add_argument("--vector-weight", type=_share, default=_D.vector_weight)
    p.add_argument("--text-weight", type=_share, default=_D.text_weight)
    p.add_argument("--candidates", type=positive_int, default=_D.candidate_multiplier,
                   help=f"candidate over-fetch factor (default {_D.candidate_multiplier})")
    p.add_argument("--min-score", type=_share, default=_D.min_score,
                   help=f"hybrid hits under this are dropped (default {_D.min_score})")
    p.add_argument("--chunk-encoding", default=_D.chunk_encoding,
                   choices=(ESTIMATE, *ENCODING_NAMES),
                   help="how chunks are measured (changing it rebuilds the index)")
    p.add_argument("--workers", type=positive_int, default=min(4, os.cpu_count() or 1),
                   help="processes that read transcripts on a big update")
    p.set_defaults(func=run)


def hit_record(hit: SearchHit) -> dict[str, Any]:
    """One ``results[]`` item of the ``--json`` output."""
    f = hit.fate
    return {
        "path": str(hit.path), "entry_id": hit.entry_id, "score": hit.score,
        "snippet": hit.snippet, "agent": hit.agent, "timestamp": hit.timestamp,
        "role": hit.role, "session_id": hit.session_id,
        "highlights": [list(h) for h in hit.highlights],
        "text_score": hit.text_score, "vector_score": hit.vector_score,
        "compaction": {"status": f.status, "compaction_id": f.compaction_id,
                       "checked": list(f.checked), "missing": list(f.missing)},
    }


def _fate_line(hit: SearchHit) -> str:
    f = hit.fate
    if f.status == "live":
        return "not compacted yet"
    if f.status == "kept":
        return f"kept by compaction {f.compaction_id}"
    if f.status == "lost":
        return f"lost at compaction {f.compaction_id} (missing: {', '.join(f.missing)})"
    return f"replaced by compaction {f.compaction_id}"


def _mark(hit: SearchHit) -> str:
    out, pos = [], 0
    for start, end in hit.highlights:
        out += [hit.snippet[pos:start], "«", hit.snippet[start:end], "»"]
        pos = end
    out.append(hit.snippet[pos:])
    return "".join(out)


def _text(results: SearchResults) -> list[str]:
    n = len(results.hits)
    lines = [f"{n} hit{'s' if n != 1 else ''} for {results.query!r} ({results.mode} ranking, "
             f"{results.seconds * 1000:.0f} ms)"]
    for i, h in enumerate(results.hits, 1):
        when = (h.timestamp or "")[:16].replace("T", " ")
        lines.append(f"{i:>2}. {h.score:.2f}  {when:16}  {h.agent or '-'}  {h.role}  "
                     f"{h.path}#{h.entry_id}")
        lines.append(f"    {_mark(h)}")
        lines.append(f"    {_fate_line(h)}")
    return lines


class _Bar:
    """A one-line progress bar on stderr, only when stderr is a terminal."""

    def __init__(self) -> None:
        self.on = sys.stderr.isatty()
        self.shown = False

    def __call__(self, done: int, total: int) -> None:
        if not self.on or total < _BAR_MIN_BYTES:
            return
        width = 30
        filled = int(width * done / total) if total else width
        sys.stderr.write(f"\rindexing sessions [{'#' * filled}{'.' * (width - filled)}] "
                         f"{done / 1e6:,.0f}/{total / 1e6:,.0f} MB")
        sys.stderr.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            sys.stderr.write("\n")


def _embeddings(args: argparse.Namespace) -> EmbeddingsClient | None:
    if not args.embeddings_url:
        if args.embeddings_model:
            raise ConfigError("--embeddings-model needs --embeddings-url")
        return None
    profile = ProviderProfile("embeddings", "openai", base_url=args.embeddings_url,
                              model=args.embeddings_model or "", timeout_s=120.0,
                              key_env=args.embeddings_key_env)
    return EmbeddingsClient(profile)


def run(args: argparse.Namespace) -> int:
    for p in args.paths:
        if not p.exists():
            raise LoadError(p, "no such file or folder")
    settings = SearchSettings(
        chunk_encoding=args.chunk_encoding, vector_weight=args.vector_weight,
        text_weight=args.text_weight, candidate_multiplier=args.candidates,
        min_score=args.min_score, max_results=args.limit)
    cache = user_cache_dir(args.basedir)
    if settings.chunk_encoding != ESTIMATE and args.basedir is not None \
            and not os.environ.get("TIKTOKEN_CACHE_DIR"):
        ensure_tiktoken_data(cache / "tiktoken")
    client = _embeddings(args)
    index = SearchIndex(search_index_dir(cache), settings, embeddings=client)
    bar = _Bar()
    try:
        stats = index.update(args.paths, on_progress=bar, workers=args.workers)
    finally:
        bar.close()
    for problem in stats.problems:
        warn(f"sessionlens search: skipped {problem}")
    try:
        results = index.search(args.query, paths=args.paths, agent=args.agent,
                               since=args.since, limit=args.limit)
    finally:
        if client is not None:
            client.close()
    for note in results.notes:
        warn(f"sessionlens search: {note}")
    if args.json:
        emit_json({"query": results.query, "mode": results.mode,
                   "results": [hit_record(h) for h in results.hits],
                   "index": {"files": stats.files, "updated": stats.indexed,
                             "removed": stats.removed, "seconds": round(stats.seconds, 3)},
                   "notes": list(results.notes)})
        return 0
    emit_lines(_text(results))
    return 0
