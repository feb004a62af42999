"""Type and lint checks, run by the README's test command so a type error fails CI."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _tool(name: str) -> str:
    exe = shutil.which(name, path=str(Path(sys.executable).parent))
    if exe is None:
        pytest.fail(f"{name} is not installed in this environment (it is in gui[test])")
    return exe


def test_mypy_strict_is_clean() -> None:
    proc = subprocess.run([_tool("mypy"), "--strict", "engine/src", "gui/src"], cwd=ROOT,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_is_clean() -> None:
    proc = subprocess.run([_tool("ruff"), "check", "engine", "gui", "tests", "benchmarks",
                           "resources", "packaging"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
