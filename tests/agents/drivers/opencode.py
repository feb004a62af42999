"""OpenCode 1.18.33 run headless against the scripted model (``opencode run --pure``, ``-c``).

Each run gets its own HOME with ``~/.config/opencode/opencode.json``: a provider ``scripted``
(``npm`` ``@ai-sdk/anthropic``, which the binary carries, ``options.baseURL`` at the scripted
server) whose model ``m`` has ``limit.context`` 20,000. ``--pure`` runs without external
plugins; the npm registry is unreachable on purpose (a dead proxy, ``npm_config_offline``):
OpenCode's background install of ``@opencode-ai/plugin`` fails and it runs on. Each turn
costs about 26 s here (OpenCode's own start-up). Sessions land in
``~/.local/share/opencode/opencode.db``.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from agents.drivers.headless import HeadlessSession, offline_env, write_config
from fixtures.scripted_model import Reply, Request, Script, ScriptedModel, ToolCall

REPO = Path(__file__).resolve().parents[3]
VERSION = "1.18.33"
BINARY = REPO / "tests/fidelity/node/node_modules/opencode-linux-x64/bin/opencode"
WINDOW = 20_000
SUMMARY = "## Goal\n- the OpenCode scenario\n\n## Next\n- continue"


def available() -> bool:
    return BINARY.is_file()


def is_summary_request(request: Request) -> bool:
    return "context summarization agent" in request.system_text()[:300]


def scenario_script() -> Script:
    """The first answer reports 19,000 input tokens: OpenCode compacts on its own."""
    script = Script.of([Reply("First answer.", input_tokens=19_000), Reply("Continued.")],
                       fallback=Reply("OK."))
    script.when(lambda r: "title generator" in r.system_text()[:300], Reply("A title"))
    script.when(is_summary_request, Reply(SUMMARY))
    return script


class OpenCodeSession(HeadlessSession):
    def configure(self) -> None:
        write_config(self.home / ".config/opencode/opencode.json", {
            "provider": {"scripted": {
                "npm": "@ai-sdk/anthropic", "name": "Scripted",
                "options": {"baseURL": self.server.url + "/v1", "apiKey": "scripted"},
                "models": {"m": {"name": "m", "limit": {"context": WINDOW, "output": 4000}}}}},
            "model": "scripted/m", "autoupdate": False, "share": "disabled"})

    @property
    def db(self) -> Path:
        return self.home / ".local/share/opencode/opencode.db"

    def turn(self, prompt: str, *, resume: bool) -> subprocess.CompletedProcess[str]:
        env = offline_env(self.home, {
            "OPENCODE_DISABLE_AUTOUPDATE": "1", "npm_config_offline": "true",
            "HTTPS_PROXY": "http://127.0.0.1:9", "HTTP_PROXY": "http://127.0.0.1:9"})
        args = [str(BINARY), "run", "--pure", *(["-c"] if resume else []), prompt]
        return self.run_turn(args, env, timeout=180)


def run_scenario(root: Path) -> tuple[OpenCodeSession, list[Request]]:
    """A turn OpenCode compacts inside (automatically), then a turn after it."""
    with ScriptedModel(scenario_script()) as server:
        session = OpenCodeSession(root, server)
        for n, prompt in enumerate(("first turn", "second turn")):
            done = session.turn(prompt, resume=n > 0)
            assert done.returncode == 0, done.stderr[-2000:]
        return session, list(server.requests)


#: OpenCode's ``compaction.preserve_recent_tokens`` in the replay scenario: the first turn
#: (a long answer) does not fit, the two after it do, so the compaction keeps a tail.
TAIL_TOKENS = 500
_LONG = " ".join(f"word{i}" for i in range(700))
NOTES = "ship on Friday\n"
REPLAY_PROMPTS = ("first turn: read notes.txt", "second turn", "third turn", "fourth turn")


class TailSession(OpenCodeSession):
    """The scenario's configuration plus ``compaction.preserve_recent_tokens``."""

    def configure(self) -> None:
        super().configure()
        write_config(self.home / ".config/opencode/opencode.json", {
            **json.loads((self.home / ".config/opencode/opencode.json").read_text("utf-8")),
            "compaction": {"preserve_recent_tokens": TAIL_TOKENS}})
        (self.work / "notes.txt").write_text(NOTES, encoding="utf-8")


def replay_script() -> Script:
    """A ``read`` round trip and a long answer; a turn the model refuses (400); two short
    turns, the second reporting 19,000 input tokens (OpenCode compacts, keeping them as its
    tail, and continues on its own); a turn after the compaction."""
    script = Script.of([
        Reply("", (ToolCall("read", {"filePath": "notes.txt"}),)),
        Reply("The notes say ship on Friday. " + _LONG),
        Reply(error="invalid"),
        Reply("Second answer."), Reply("Third answer.", input_tokens=19_000),
        Reply("Continued."), Reply("Fourth answer.")], fallback=Reply("OK."))
    script.when(lambda r: "title generator" in r.system_text()[:300], Reply("A title"))
    script.when(is_summary_request, Reply(SUMMARY))
    return script


def run_replay_scenario(root: Path) -> tuple[OpenCodeSession, list[Request]]:
    """The replay scenario (``replay_script``), one ``opencode run`` per prompt."""
    with ScriptedModel(replay_script()) as server:
        session = TailSession(root, server)
        prompts = (REPLAY_PROMPTS[0], "a turn the model refuses", *REPLAY_PROMPTS[1:])
        for n, prompt in enumerate(prompts):
            session.turn(prompt, resume=n > 0)
        return session, list(server.requests)
