"""Qt-free fixtures shared by every test (the engine-only run collects this file too)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# the scripted LLM servers on 127.0.0.1 (``wire``, ``openai_server``), for every test
from fixtures.llm_wire import openai_server, wire  # noqa: F401
from fixtures.sample_writes import written_sample  # noqa: F401
from fixtures.samples import SAMPLES_DIR


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests marked ``long`` (hundreds of trials) run only when ``-m`` names them."""
    if "long" in (config.getoption("markexpr", "") or ""):
        return
    skip = pytest.mark.skip(reason="many trials: run with -m long")
    for item in items:
        if item.get_closest_marker("long") is not None:
            item.add_marker(skip)


@pytest.fixture(scope="session", autouse=True)
def _tiktoken_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Point tiktoken at an empty cache of our own so a stray machine cache cannot hide a bug."""
    os.environ["TIKTOKEN_CACHE_DIR"] = str(tmp_path_factory.mktemp("tiktoken-cache"))


@pytest.fixture(scope="session", autouse=True)
def _user_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Subcommands run in-process keep their count cache in a temp folder, not the user's."""
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("xdg-cache"))


@pytest.fixture(scope="session")
def samples_dir() -> Path:
    """The real samples folder; skips the test when it is absent."""
    if not SAMPLES_DIR.is_dir():
        pytest.skip(f"real samples not found at {SAMPLES_DIR}")
    return SAMPLES_DIR
