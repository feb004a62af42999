"""The load job brings the whole first view, its context count made beside the rest."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from fixtures.scenarios import small_session
from sessionlens.engine import LoadCancelled, Overrides, load_transcript, resolve_settings
from sessionlens.gui.session_steps import count_context_view, load_session


def _quiet(_done: int, _total: int) -> None:
    return None


def test_the_load_job_counts_the_context_as_the_count_job_does(tmp_path: Path) -> None:
    path = small_session().write(tmp_path / "s.jsonl")
    loaded = load_session(path, Overrides(), "o200k_base", _quiet, lambda: False)
    assert loaded.view is not None
    t = load_transcript(path)
    settings = resolve_settings(t, Overrides(), loaded.config, loaded.store_window,
                                loaded.store_beside).settings
    alone = count_context_view(t, "o200k_base", settings, lambda: False)
    got, want = loaded.view.report, alone.report
    assert got.scope == want.scope == "context"
    assert (got.exact_context, got.estimate_context, got.reported_context) == (
        want.exact_context, want.estimate_context, want.reported_context)
    assert got.exact_context > 0
    # the series worked out while the count ran is the one made from the count
    assert [(p.entry_id, p.tokens, p.reported) for p in loaded.view.series] == [
        (p.entry_id, p.tokens, p.reported) for p in alone.series]
    assert list(loaded.view.ys) == [p.tokens for p in alone.series]
    assert len(loaded.rows) > 0 and loaded.path_pos[t.active_path[-1]] == len(t.active_path) - 1


def test_without_an_encoding_nothing_is_counted(tmp_path: Path) -> None:
    path = small_session().write(tmp_path / "s.jsonl")
    loaded = load_session(path, Overrides(), None, _quiet, lambda: False)
    assert loaded.view is None and len(loaded.transcript.entries) > 0


def test_a_cancel_during_the_count_ends_the_load_job(tmp_path: Path) -> None:
    path = small_session().write(tmp_path / "s.jsonl")
    asked_by: list[str] = []

    def cancelled() -> bool:  # only the context's count, on its own thread, is cancelled
        asked_by.append(threading.current_thread().name)
        return asked_by[-1].startswith("sessionlens-context")

    with pytest.raises(LoadCancelled, match="counting cancelled"):
        load_session(path, Overrides(), "o200k_base", _quiet, cancelled)
    assert any(name.startswith("sessionlens-context") for name in asked_by)
