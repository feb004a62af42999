"""The row cache: a rerun reuses the rows of unchanged sessions and audits the changed."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from fixtures.fleet_sessions import write_fleet
from sessionlens.engine.fleet.fleet_run import run_fleet
from sessionlens.engine.fleet.listing import list_stamps
from sessionlens.engine.fleet.row_cache import CACHE_FILE, RowCache

pytestmark = pytest.mark.samples


def test_a_rerun_reuses_unchanged_files_and_audits_changed_ones(tmp_path: Path,
                                                                samples_dir: Path) -> None:
    paths = write_fleet(tmp_path / "fleet", samples_dir, 8, seed=5)
    cache = RowCache(tmp_path / "state")
    first = run_fleet([tmp_path / "fleet"], workers=0, cache=cache)
    assert (first.audited, first.reused) == (8, 0)
    again = run_fleet([tmp_path / "fleet"], workers=0, cache=cache)
    assert (again.audited, again.reused) == (0, 8)
    assert again.rows == first.rows
    # one file grows: only it is audited again, and its row says what it holds now
    with open(paths[2], "a", encoding="utf-8") as fh:
        fh.write('{"type":"message","id":"zz000001","parentId":null,"timestamp":'
                 '"2026-06-01T00:00:00.000Z","message":{"role":"user","content":"more",'
                 '"timestamp":1}}\n')
    third = run_fleet([tmp_path / "fleet"], workers=0, cache=cache)
    assert (third.audited, third.reused) == (1, 7)
    changed = next(r for r in third.rows if r.path == str(paths[2]))
    assert changed.size == paths[2].stat().st_size
    assert (tmp_path / "state" / CACHE_FILE).is_file()


def test_the_cache_is_used_by_a_cluster_run_too(tmp_path: Path, samples_dir: Path) -> None:
    write_fleet(tmp_path / "fleet", samples_dir, 3, seed=6)
    cache = RowCache(tmp_path / "state")
    serial = run_fleet([tmp_path / "fleet"], workers=0, cache=cache)
    cluster = run_fleet([tmp_path / "fleet"], workers=1, cache=cache)
    assert (cluster.audited, cluster.reused) == (0, 3)
    assert cluster.rows == serial.rows


def test_an_unreadable_cache_only_means_auditing(tmp_path: Path, samples_dir: Path) -> None:
    write_fleet(tmp_path / "fleet", samples_dir, 2, seed=7)
    state = tmp_path / "state"
    state.mkdir()
    (state / CACHE_FILE).write_bytes(b"this is not a database" * 100)
    cache = RowCache(state)
    stamp = list_stamps([tmp_path / "fleet"])[0]
    assert cache.get(stamp) is None
    run = run_fleet([tmp_path / "fleet"], workers=0, cache=cache)
    assert run.audited == 2 and run.failures == ()


def test_a_row_of_another_engine_version_is_not_reused(tmp_path: Path, samples_dir: Path) -> None:
    write_fleet(tmp_path / "fleet", samples_dir, 2, seed=8)
    cache = RowCache(tmp_path / "state")
    run_fleet([tmp_path / "fleet"], workers=0, cache=cache)
    cache.close()
    with sqlite3.connect(tmp_path / "state" / CACHE_FILE) as db:
        db.execute("UPDATE rows SET version = 'older'")
    again = run_fleet([tmp_path / "fleet"], workers=0, cache=RowCache(tmp_path / "state"))
    assert (again.audited, again.reused) == (2, 0)


def test_touching_a_file_without_changing_it_is_a_change(tmp_path: Path,
                                                         samples_dir: Path) -> None:
    """The key is size and mtime (no hash of every file on every run): a touched file is
    audited again, which costs time, never a wrong row."""
    paths = write_fleet(tmp_path / "fleet", samples_dir, 2, seed=9)
    cache = RowCache(tmp_path / "state")
    run_fleet([tmp_path / "fleet"], workers=0, cache=cache)
    st = paths[0].stat()
    os.utime(paths[0], ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    again = run_fleet([tmp_path / "fleet"], workers=0, cache=cache)
    assert (again.audited, again.reused) == (1, 1)
