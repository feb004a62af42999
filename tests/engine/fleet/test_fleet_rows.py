"""Per-session rows: the numbers are memory health's own, and a row survives JSON."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixtures.samples import sample_path
from sessionlens.engine.fleet.listing import list_stamps
from sessionlens.engine.fleet.rows import (
    SessionRow,
    audit_session,
    row_from_dict,
    row_to_dict,
    session_row,
)
from sessionlens.engine.lineage.memory_health import examine_memory
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.opened import Overrides, config_for, resolve_settings, store_window_for

pytestmark = pytest.mark.samples


@pytest.mark.parametrize("prefix", ["01_", "03_", "07_", "09_"])
def test_a_row_copies_memory_health(samples_dir: Path, prefix: str) -> None:
    path = sample_path(samples_dir, prefix)
    stamp = next(s for s in list_stamps([path.parent]) if s.path == str(path))
    row = audit_session(stamp)
    assert isinstance(row, SessionRow)
    t = load_transcript(path)
    resolved = resolve_settings(t, Overrides(), config_for(t.path), store_window_for(t, None))
    health = examine_memory(t, resolved.settings, window_source=resolved.context_window.source)
    assert session_row(stamp, t, resolved, health) == row  # pure: the same inputs, the same row
    assert len(row.compactions) == len(health.compactions) == len(t.compactions)
    for c in row.compactions:
        h = health.get(c.compaction_id)
        assert h is not None
        assert (c.dropped, c.severity, c.trigger, c.flags) == (h.dropped, h.severity, h.trigger,
                                                               h.flags)
        assert c.found == sum(k.found for k in h.coverage)
        assert c.total == sum(k.total for k in h.coverage)
    assert dict(row.settings)["window"] == str(resolved.window)
    assert row.model is not None


def test_agents_are_named_by_their_files(samples_dir: Path) -> None:
    rows = {Path(s.path).name[:3]: audit_session(s) for s in list_stamps([samples_dir])
            if Path(s.path).name[:3] in ("01_", "03_", "07_", "09_")}
    assert {k: r.agent for k, r in rows.items() if isinstance(r, SessionRow)} == {
        "01_": "pi", "03_": "openclaw", "07_": "claude-code", "09_": "codex"}


def test_a_row_survives_json(samples_dir: Path) -> None:
    for stamp in list_stamps([samples_dir])[:12]:
        row = audit_session(stamp)
        assert isinstance(row, SessionRow)
        assert row_from_dict(row_to_dict(row)) == row


def test_a_session_with_no_compaction_is_not_loaded(samples_dir: Path) -> None:
    stamp = next(s for s in list_stamps([samples_dir]) if s.compactions == 0)
    row = audit_session(stamp)
    assert isinstance(row, SessionRow)
    assert row.compactions == () and row.model is None and row.settings == ()


def test_sessions_of_an_openclaw_store_are_audited(tmp_path: Path) -> None:
    from fixtures.openclaw_store import unpack_store
    from sessionlens.engine.fleet.fleet_run import run_fleet

    store = unpack_store(tmp_path)
    run = run_fleet([tmp_path], workers=0)
    assert run.failures == ()
    rows = {Path(r.path).name: r for r in run.rows}
    assert set(rows) == {"alpha", "beta"} and all(Path(r.path).parent == store
                                                  for r in run.rows)
    assert [(r.agent, r.agent_id, r.format) for r in rows.values()] == [
        ("openclaw", "main", "openclaw-sqlite")] * 2
    assert len(rows["alpha"].compactions) == 3 and rows["alpha"].model == "m1"
