"""SessionLens's side of an integration test: a basedir, the channel's command, a profile.

The agents call ``sessionlens compact-for-agent`` / ``sessionlens hook ...`` as a command;
in tests that command is this tree's engine run by the venv's Python with ``--basedir`` so
nothing touches the user's real folders. ``HANG`` and ``MISSING`` stand in for a channel
that hangs and one that is not installed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
PYTHONPATH = f"{ROOT / 'engine' / 'src'}"
#: A channel that never answers, and one that is not there.
HANG = [sys.executable, "-c", "import time; time.sleep(600)"]
MISSING = [str(ROOT / "no-such-sessionlens")]
#: A channel that dies without answering.
CRASH = [sys.executable, "-c", "import sys; sys.stderr.write('boom\\n'); sys.exit(3)"]


def channel(basedir: Path, *words: str) -> list[str]:
    """The argv of ``sessionlens WORDS... --basedir BASEDIR`` for this tree."""
    return [sys.executable, "-m", "sessionlens.engine.cli", *words, "--basedir", str(basedir)]


def write_prefs(basedir: Path, *, server_url: str | None = None, **prefs: Any) -> None:
    """``config/integrations.json`` and, with ``server_url``, a profile "scripted" for an
    OpenAI-compatible server there (the summarizer the user chose)."""
    config = basedir / "config"
    config.mkdir(parents=True, exist_ok=True)
    if server_url is not None:
        (config / "profiles.json").write_text(json.dumps({"profiles": [{
            "name": "scripted", "kind": "openai", "base_url": server_url + "/v1",
            "model": "summarizer", "key_env": None, "timeout_s": 20}]}), "utf-8")
        prefs.setdefault("profile", "scripted")
    (config / "integrations.json").write_text(json.dumps(prefs), "utf-8")


def journal(basedir: Path) -> list[dict[str, Any]]:
    path = basedir / "state" / "integrations" / "journal.jsonl"
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]
