"""The engine steps the session controller runs on its workers, and what they hand back.

Each step is a plain function of its inputs (no Qt, no controller state), so the controller
only decides when a step runs and what to do with its result on the UI thread: loading a
file with its rows, counting the replayed context, counting the rest of the file.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from sessionlens.engine import (
    CompactionSettings,
    ContextPoint,
    Overrides,
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
from .transcript.timeline_rows import TimelineRow, build_rows

if TYPE_CHECKING:
    from sessionlens.engine import Transcript


@dataclass(frozen=True, slots=True)
class LoadedSession:
    """What the load job hands back: the transcript and its list-mode rows."""

    transcript: Transcript
    #: The openclaw.json settings that govern the file (read on the worker, with the load).
    config: CompactionSettings
    #: The session's contextTokens in sessions.json, a window source (read with the load).
    store_window: Setting | None
    #: Whether a sessions.json sits beside the file (evidence it is an OpenClaw file).
    store_beside: bool
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


def load_session(path: Path, overrides: Overrides, window: int | None, report: Progress,
                 cancelled: CancelCheck) -> LoadedSession:
    """Load ``path`` with the settings that govern it and its list-mode rows (rows are sized
    against ``window``, else the window the settings resolve to)."""
    t = load_transcript(path, on_progress=report, cancel=cancelled)
    config, store_window, beside = config_for(t.path), store_window_for(t), store_beside_for(t)
    rows = build_rows(t, context_window=window or resolve_settings(
        t, overrides, config, store_window, beside).window, cancel=cancelled)
    return LoadedSession(t, config, store_window, beside, rows,
                         {eid: n for n, eid in enumerate(t.active_path)})


def count_context_view(t: Transcript, encoding: str, settings: CompactionSettings,
                       cancelled: CancelCheck) -> TokenView:
    """The replayed context's three numbers and the chart's series (quick: at most a window's
    worth is tokenized)."""
    r = count_context_tokens(t, encoding, cancel=cancelled)
    series = context_series(t, r)  # the same series from either report's scope
    xs = np.fromiter((p.index for p in series), dtype=np.int64, count=len(series))
    ys = np.fromiter((p.tokens for p in series), dtype=np.int64, count=len(series))
    rep = np.fromiter((p.reported for p in series), dtype=bool, count=len(series))
    # forensics (the chart's compaction markers) follow with the whole file's count,
    # unless that count is already known
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
