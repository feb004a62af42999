"""The engine steps the session controller runs on its workers, and what they hand back.

Each step is a plain function of its inputs (no Qt, no controller state), so the controller
only decides when a step runs and what to do with its result on the UI thread: loading a
file with its rows, counting the replayed context, counting the rest of the file.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from sessionlens.engine import (
    CompactionSettings,
    ContextPoint,
    Overrides,
    ResolvedSettings,
    Setting,
    TokenReport,
    analyze_compactions,
    config_for,
    context_series,
    count_context_tokens,
    count_tokens,
    load_transcript,
    resolve_settings,
    store_beside_for,
    store_window_for,
)

from .tasks import CancelCheck, Progress
from .transcript.timeline_rows import PathRows, TimelineRow

if TYPE_CHECKING:
    from sessionlens.engine import Transcript


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


@dataclass(frozen=True, slots=True)
class LoadedSession:
    """What the load job hands back: the transcript, its settings, its list-mode rows (built
    as they are shown) and the context's count, so one job brings the whole first view."""

    transcript: Transcript
    #: The openclaw.json settings that govern the file (read on the worker, with the load).
    config: CompactionSettings
    #: The session's contextTokens in sessions.json, a window source (read with the load).
    store_window: Setting | None
    #: Whether a sessions.json sits beside the file (evidence it is an OpenClaw file).
    store_beside: bool
    rows: Sequence[TimelineRow]
    #: entry id -> position on the active path (the charts' x axis)
    path_pos: dict[str, int]
    #: The settings resolved once (on the worker: it walks the path, ~0.1 s on 100 MB).
    resolved: ResolvedSettings
    #: The replayed context's count (None when no encoding was asked for).
    view: TokenView | None = None


def describe_error(exc: BaseException) -> str:
    """Engine errors already say what and where; anything else also names its type."""
    if type(exc).__module__.startswith("sessionlens."):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


def load_session(path: Path, overrides: Overrides, encoding: str | None, report: Progress,
                 cancelled: CancelCheck) -> LoadedSession:
    """Load ``path`` with the settings that govern it, its list-mode rows (sized against the
    resolved window) and, with an ``encoding``, the context's three numbers and series.

    The context's exact count starts on a thread of its own as soon as the entries exist:
    tiktoken tokenizes without the GIL, so on the other core it overlaps the rest of the
    first view's work here (the settings, the chart's series, the rows), which needs only
    estimates. On a first open of the benchmark's real-entries file that hid ~0.1 s."""
    t = load_transcript(path, on_progress=report, cancel=cancelled)
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="sessionlens-context") as pool:
        counting = None if encoding is None else pool.submit(
            count_context_tokens, t, encoding, cancel=cancelled)
        _ = t.compactions  # found here, on the worker: the views ask for them on the UI thread
        config, store_window, beside = config_for(t.path), store_window_for(t), store_beside_for(t)
        resolved = resolve_settings(t, overrides, config, store_window, beside)
        series = None if counting is None else context_series(t)
        rows = PathRows(t, resolved.window)
        path_pos = {eid: n for n, eid in enumerate(t.active_path)}
        view = None if series is None or counting is None else context_view(
            t, counting.result(), series, resolved.settings)
    return LoadedSession(t, config, store_window, beside, rows, path_pos, resolved, view)


def count_context_view(t: Transcript, encoding: str, settings: CompactionSettings,
                       cancelled: CancelCheck) -> TokenView:
    """The replayed context's three numbers and the chart's series (quick: at most a window's
    worth is tokenized)."""
    r = count_context_tokens(t, encoding, cancel=cancelled)
    return context_view(t, r, context_series(t, r), settings)


def context_view(t: Transcript, r: TokenReport, series: tuple[ContextPoint, ...],
                 settings: CompactionSettings) -> TokenView:
    """The chart's arrays for ``series`` beside the report ``r``; the compactions' forensics
    (the chart's markers) follow with the whole file's count, unless ``r`` already is one."""
    xs = np.fromiter((p.index for p in series), dtype=np.int64, count=len(series))
    ys = np.fromiter((p.tokens for p in series), dtype=np.int64, count=len(series))
    rep = np.fromiter((p.reported for p in series), dtype=bool, count=len(series))
    forensics = analyze_compactions(t, settings, r) if r.complete else ()
    return TokenView(r, series, xs, ys, rep, forensics)


def count_file_view(t: Transcript, view: TokenView, settings: CompactionSettings,
                    report: Progress, cancelled: CancelCheck) -> TokenView:
    """``view`` with the whole file counted (only the calling worker counts: the UI thread
    keeps a core). Estimates and the series do not change with the report's scope, so the
    view keeps them, swaps the report and gains the compactions' forensics (from the full
    report's estimates, so they cost no second measuring pass)."""
    r = count_tokens(t, view.report.encoding, on_progress=report, cancel=cancelled,
                     helpers=False)
    return dataclasses.replace(view, report=r, forensics=analyze_compactions(t, settings, r))


#: Entries freed per step by ``release``: about a millisecond's work each.
RELEASE_CHUNK = 500


def release(old: list[Any]) -> None:
    """Drop the last references to a closed file's objects, its entries a chunk at a time.

    Freeing a 100 MB transcript is one ~50 ms C call that holds the GIL (the UI thread would
    stall on it, even from a worker); freed in chunks, the GIL changes hands in between.
    """
    entries: list[Any] = []
    for obj in old:
        entries.extend(getattr(obj, "entries", ()) if hasattr(obj, "active_path") else ())
    old.clear()
    while entries:
        del entries[-RELEASE_CHUNK:]
