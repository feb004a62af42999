"""What the headless drivers share: a temporary HOME and working folder under the run's root,
JSON configuration written into it, an environment with nothing but 127.0.0.1 to reach
(Codex, Gemini CLI, OpenCode, Claude Code, ``pi -p``), and turns run as subprocesses (no
stdin), timed and kept in order (Codex, Gemini CLI, OpenCode)."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fixtures.scripted_model import ScriptedModel

__all__ = ["HeadlessSession", "TimedTurns", "make_folders", "offline_env", "write_config"]


def make_folders(root: Path, home: str = "home") -> tuple[Path, Path]:
    """``root/<home>`` and ``root/work``, created."""
    dirs = root / home, root / "work"
    for d in dirs:
        d.mkdir(parents=True, exist_ok=True)
    return dirs


def write_config(path: Path, config: dict[str, Any]) -> None:
    """``config`` as JSON at ``path`` (its folder created)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(config), encoding="utf-8")


def offline_env(home: Path, more: Mapping[str, str], *,
                path: str = "/usr/bin:/bin") -> dict[str, str]:
    """PATH, HOME and NO_PROXY=127.0.0.1 (nothing else of the caller's environment), then
    ``more``."""
    return {"PATH": path, "HOME": str(home), "NO_PROXY": "127.0.0.1", **more}


class TimedTurns:
    """Mixed into a driver's session: ``run_turn`` runs one command in ``work``, adds its
    time to ``seconds`` and keeps its result in ``outputs``."""

    work: Path
    seconds: float
    outputs: list[subprocess.CompletedProcess[str]]

    def run_turn(self, args: Sequence[str], env: Mapping[str, str],
                 timeout: float) -> subprocess.CompletedProcess[str]:
        start = time.monotonic()
        done = subprocess.run(list(args), cwd=self.work, env=dict(env), capture_output=True,
                              text=True, stdin=subprocess.DEVNULL, timeout=timeout, check=False)
        self.seconds += time.monotonic() - start
        self.outputs.append(done)
        return done


@dataclass
class HeadlessSession(TimedTurns):
    """A session in ``root`` (``root/home``, ``root/work``) talking to ``server``; a driver
    adds its configuration in ``configure``."""

    root: Path
    server: ScriptedModel
    seconds: float = 0.0
    outputs: list[subprocess.CompletedProcess[str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.home, self.work = make_folders(self.root)
        self.configure()

    def configure(self) -> None:
        """Write the agent's configuration under ``home`` (nothing by default)."""
