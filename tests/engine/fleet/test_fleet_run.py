"""The fleet run: a Dask local cluster of two worker processes gives the serial result, a
session that cannot be audited is reported and the run goes on, roots read per worker of
an existing cluster, cancel."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from fixtures.fleet_sessions import write_fleet
from sessionlens.engine.errors import ConfigError
from sessionlens.engine.fleet.fleet_run import run_fleet
from sessionlens.engine.fleet.listing import list_stamps
from sessionlens.engine.fleet.rows import SessionFailure, SessionRow

pytestmark = pytest.mark.samples


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory, samples_dir: Path) -> Path:
    """200 generated sessions from real entries, plus the samples (copied beside them, so
    the run has one folder of this test's own)."""
    root = tmp_path_factory.mktemp("fleet")
    write_fleet(root / "gateway", samples_dir, 200)
    return root


@pytest.mark.slow
def test_local_cluster_of_two_equals_serial(fleet: Path, samples_dir: Path) -> None:
    roots = [fleet, samples_dir]
    serial = run_fleet(roots, workers=0)
    seen: list[tuple[int, int]] = []
    cluster = run_fleet(roots, workers=2, on_progress=lambda d, t, _r: seen.append((d, t)))
    assert serial.mode == "serial" and cluster.mode == "local cluster of 2 processes"
    assert len(serial.rows) >= 200 + 6 and serial.failures == ()
    assert sum(len(r.compactions) for r in serial.rows) >= 200  # every generated one compacts
    assert cluster.rows == serial.rows
    assert cluster.failures == serial.failures
    # progress came as sessions finished, ending at all of them
    total = len(serial.rows)
    assert seen[-1] == (total, total) and len(seen) == total
    assert [d for d, _ in seen] == list(range(1, total + 1))


def _broken(folder: Path, samples_dir: Path) -> tuple[list, Path, Path]:
    """Stamps of a few sessions plus two that cannot be audited: a file that vanished after
    it was listed, and a file that is no transcript."""
    write_fleet(folder, samples_dir, 6, seed=3)
    stamps = list_stamps([folder])
    gone = Path(stamps[1].path)
    gone.unlink()
    junk = folder / "junk.jsonl"
    junk.write_bytes(b"\x89PNG\r\n\x1a\n not a transcript")
    stamps.append(replace(stamps[0], path=str(junk), compactions=None))
    return stamps, gone, junk


@pytest.mark.parametrize("workers", [0, 2])
def test_a_failing_session_is_reported_and_the_run_goes_on(tmp_path: Path, samples_dir: Path,
                                                           workers: int) -> None:
    stamps, gone, junk = _broken(tmp_path, samples_dir)
    run = run_fleet(workers=workers, stamps=stamps)
    assert {f.path for f in run.failures} == {str(gone), str(junk)}
    by_path = {f.path: f for f in run.failures}
    assert by_path[str(gone)].kind == "LoadError" or by_path[str(gone)].kind.endswith("Error")
    assert "no such file" in by_path[str(gone)].error.lower() or "not found" in \
        by_path[str(gone)].error.lower()
    assert by_path[str(junk)].kind == "NotATranscriptError"
    assert len(run.rows) == 5 and all(r.compactions for r in run.rows)


def test_roots_read_per_worker_of_an_existing_cluster(tmp_path: Path, samples_dir: Path) -> None:
    from distributed import LocalCluster

    a, b = tmp_path / "machine-a", tmp_path / "machine-b"
    write_fleet(a, samples_dir, 4, seed=1)
    write_fleet(b, samples_dir, 3, seed=2)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster:
        first, second = sorted(cluster.scheduler_info["workers"])
        run = run_fleet(scheduler=cluster.scheduler_address,
                        worker_roots={first: [a], second: [b]})
    assert run.mode.startswith("scheduler tcp://")
    assert run.failures == ()
    assert sorted(r.path for r in run.rows) == sorted(
        s.path for s in list_stamps([a]) + list_stamps([b]))
    assert run_fleet([a, b], workers=0).rows == run.rows


def test_roots_per_worker_need_a_scheduler(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="--scheduler"):
        run_fleet(workers=0, worker_roots={"w1": [tmp_path]})


def test_cancel_stops_the_run(tmp_path: Path, samples_dir: Path) -> None:
    write_fleet(tmp_path, samples_dir, 6, seed=4)
    calls = iter(range(100))
    run = run_fleet([tmp_path], workers=0, cancel=lambda: next(calls) >= 2)
    assert run.cancelled and len(run.rows) == 2


def test_rows_are_rows_and_failures_failures(tmp_path: Path, samples_dir: Path) -> None:
    shutil.copy(samples_dir / next(p.name for p in samples_dir.glob("04_*")), tmp_path)
    run = run_fleet([tmp_path], workers=0)
    assert [type(r) for r in run.rows] == [SessionRow]
    assert not any(isinstance(r, SessionFailure) for r in run.rows)
    assert [c.number for c in run.rows[0].compactions] == [1, 2, 3]


def test_small_sessions_travel_together_and_big_ones_alone() -> None:
    from sessionlens.engine.fleet.fleet_run import BATCH_BYTES, BATCH_SESSIONS, batches
    from sessionlens.engine.fleet.rows import SessionStamp

    def stamp(n: int, size: int) -> SessionStamp:
        return SessionStamp("h", f"/s{n}", size, 0, 0, "openclaw-v3", None, None, 1)

    small = [(stamp(i, 1000), None) for i in range(BATCH_SESSIONS + 5)]
    big = [(stamp(100, BATCH_BYTES * 2), None), (stamp(101, BATCH_BYTES * 2), None)]
    pinned = [(stamp(200, 1000), "w1"), (stamp(201, 1000), "w1")]
    made = batches(small + big + pinned)
    assert [(len(b), w) for b, w in made] == [(BATCH_SESSIONS, None), (5, None), (1, None),
                                              (1, None), (2, "w1")]
    assert [s for b, _ in made for s in b] == [s for s, _ in small + big + pinned]
