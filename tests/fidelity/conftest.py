"""The differential run, once per test session: the agents' code and SessionLens side by side.

One Node process takes every file (the real pi/OpenClaw samples when present, plus the seeded
generated sessions); while it works, SessionLens answers the same questions here, so the two
sides run on the two cores in parallel.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from fidelity.compare import Tally, ours, tally
from fidelity.compare_pi import PiTally, ours_pi, tally_pi
from fidelity.generated import generated_session, generated_session_16, keep_values
from fidelity.node_runner import (
    HARNESS,
    HARNESS_PI,
    finish_job,
    node_unavailable,
    pi_unavailable,
    start_job,
)
from fixtures.samples import SAMPLES_DIR

#: The real samples written by pi or OpenClaw (07 and 09 are Claude Code and Codex files).
SAMPLE_PREFIXES = ("01_", "03_", "04_")
GENERATED_SEEDS = range(60)
RESERVE = 16_384
#: keepRecentTokens and windows for today's pi, on every file (issue 33).
PI_KEEPS = (2_000, 8_000, 20_000)
PI_WINDOWS = (40_000, 131_072, 24_000)
#: Generated sessions with what only pi 1.6 writes (context edits, system messages, ...).
PI16_SEEDS = range(40)


@dataclass
class Differential:
    tally: Tally
    files: list[Path]


def _sample_files() -> list[Path]:
    if not SAMPLES_DIR.is_dir():
        return []
    return [m for p in SAMPLE_PREFIXES for m in sorted(SAMPLES_DIR.glob(f"{p}*"))[:1]]


def _settings(keeps: tuple[int, ...], windows: tuple[int, ...]) -> list[dict[str, Any]]:
    return [{"keepRecentTokens": k, "reserveTokens": RESERVE, "contextWindow": w}
            for k, w in zip(keeps, windows, strict=True)]


Settings = list[dict[str, Any]]
Record = dict[str, Any]


def _side_by_side(jobs: list[tuple[Path, Settings]], ours_of: Callable[[Path, Settings], Record],
                  harness: Path) -> list[tuple[Path, Record, Record]]:
    """(file, Node's record, SessionLens's answers) per job: Node works on all of them while
    SessionLens answers here; a record that is not the file's or reports an error fails."""
    proc = start_job({"files": [{"path": str(p), "settings": s} for p, s in jobs]}, harness)
    try:
        mine = {p: ours_of(p, s) for p, s in jobs}
        records = finish_job(proc)
    finally:
        if proc.poll() is None:
            proc.kill()
    out = []
    for (p, _), rec in zip(jobs, records, strict=True):
        assert rec.get("path") == str(p), rec
        assert "error" not in rec, rec.get("error")
        out.append((p, rec, mine[p]))
    return out


@pytest.fixture(scope="session")
def differential(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Differential]:
    reason = node_unavailable()
    if reason is not None:
        pytest.skip(f"differential tests need the agents' own code: {reason}")
    folder = tmp_path_factory.mktemp("generated")
    jobs: list[tuple[Path, Settings]] = [
        (p, _settings((20_000, 3_000), (131_072, 40_000))) for p in _sample_files()]
    for seed in GENERATED_SEEDS:
        path = generated_session(seed).write(folder / f"gen-{seed:03d}.jsonl")
        jobs.append((path, _settings(keep_values(seed), (60_000, 24_000))))
    t = Tally()
    for p, rec, mine in _side_by_side(jobs, ours, HARNESS):
        tally(t, p.name, rec, mine)
    yield Differential(t, [p for p, _ in jobs])


@dataclass
class DifferentialPi:
    tally: PiTally
    files: list[Path]


@pytest.fixture(scope="session")
def differential_pi(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DifferentialPi]:
    """pi 1.6.0 and 0.73.1 (the pinned Node) against SessionLens, on every prefix."""
    reason = pi_unavailable()
    if reason is not None:
        pytest.skip(f"differential tests need today's pi: {reason}")
    folder = tmp_path_factory.mktemp("generated-pi")
    files = _sample_files()
    files += [generated_session(seed).write(folder / f"gen-{seed:03d}.jsonl")
              for seed in GENERATED_SEEDS]
    files += [generated_session_16(seed).write(folder / f"gen16-{seed:03d}.jsonl")
              for seed in PI16_SEEDS]
    settings = _settings(PI_KEEPS, PI_WINDOWS)
    t = PiTally()
    for p, rec, mine in _side_by_side([(p, settings) for p in files], ours_pi, HARNESS_PI):
        tally_pi(t, p.name, rec, mine)
    yield DifferentialPi(t, files)
