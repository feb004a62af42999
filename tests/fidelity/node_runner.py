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

__all__ = ["HARNESS", "NODE_DIR", "PINNED", "finish_job", "node_unavailable", "run_job",
           "start_job"]

HERE = Path(__file__).resolve().parent
HARNESS = HERE / "harness.mjs"
NODE_DIR = HERE / "node"
#: The published packages the rules are read from, at the versions pinned in package.json.
PINNED = {"@mariozechner/pi-coding-agent": "0.58.3", "openclaw": "2026.9.6"}


def node_unavailable() -> str | None:
    """Why the agents' code cannot run here, or None when it can."""
    if shutil.which("node") is None:
        return "node is not on PATH"
    for name, version in PINNED.items():
        manifest = NODE_DIR / "node_modules" / name / "package.json"
        if not manifest.is_file():
            return (f"{name} is not installed in {NODE_DIR}/node_modules "
                    "(npm ci --prefix tests/fidelity/node --ignore-scripts)")
        found = json.loads(manifest.read_text(encoding="utf-8")).get("version")
        if found != version:
            return f"{name} {found} is installed, the tests are pinned to {version}"
    return None


def start_job(job: dict[str, Any]) -> subprocess.Popen[str]:
    """Start one Node process for the whole job (see harness.mjs for its shape)."""
    node = shutil.which("node")
    assert node is not None
    proc = subprocess.Popen([node, str(HARNESS)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
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


def run_job(job: dict[str, Any], timeout: float = 600) -> list[dict[str, Any]]:
    return finish_job(start_job(job), timeout)
