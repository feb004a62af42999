"""Qt-free fixtures shared by every test (the engine-only run collects this file too)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

#: The real sample transcripts live beside the repository, never inside it.
SAMPLES_DIR = Path(os.environ.get(
    "SESSIONLENS_SAMPLES", Path(__file__).resolve().parents[2] / "shared" / "samples"))


@pytest.fixture(scope="session", autouse=True)
def _tiktoken_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Point tiktoken at an empty cache of our own so a stray machine cache cannot hide a bug."""
    os.environ["TIKTOKEN_CACHE_DIR"] = str(tmp_path_factory.mktemp("tiktoken-cache"))


@pytest.fixture(scope="session")
def samples_dir() -> Path:
    """The real samples folder; skips the test when it is absent."""
    if not SAMPLES_DIR.is_dir():
        pytest.skip(f"real samples not found at {SAMPLES_DIR}")
    return SAMPLES_DIR


def sample_path(samples: Path, prefix: str) -> Path:
    """The sample whose name starts with ``prefix`` (e.g. "01_")."""
    matches = sorted(samples.glob(f"{prefix}*"))
    if not matches:
        pytest.skip(f"sample {prefix}* not found in {samples}")
    return matches[0]
