"""A driver for pi 1.6.0 (``pi --mode rpc``) against the scripted model, in a temporary HOME.

``run_pi_scenario`` plays one short session through pi's own RPC mode: several turns, a
``read`` tool call round trip, a turn the model answers with a 500 (auto retry off), a
manual compaction with focus instructions, a turn whose reported usage crosses pi's
threshold (pi then compacts on its own), and a turn after each compaction. pi runs on the
pinned Node (>= 22.19) with no network but 127.0.0.1: ``~/.pi/agent/models.json`` points a
provider at the scripted server's ``/v1`` (``openai-completions``), ``settings.json`` sets
a small reserve and keepRecentTokens, and ``PI_OFFLINE=1 PI_SKIP_VERSION_CHECK=1
PI_TELEMETRY=0``. What comes back: the session file pi wrote, every request pi sent, and
which request followed each compaction (the ground truth of the context pi held).
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fidelity.node_runner import NODE_DIR, PINNED_NODE, pi_unavailable
from fixtures.scripted_model import Reply, Request, Script, ScriptedModel, ToolCall

__all__ = ["PI_BIN", "PiScenario", "pi_driver_unavailable", "run_pi_overflow",
           "run_pi_scenario"]

PI_BIN = NODE_DIR / "node_modules" / "@earendil-works" / "pi-coding-agent" / "dist" / "bundle" \
    / "cli.js"
#: The scenario's numbers: the threshold is WINDOW - RESERVE = 6,000.
WINDOW, RESERVE, KEEP = 8_000, 2_000, 300
FOCUS = "Focus on the notes file and what it says"
NOTES = "the notes say: ship on Friday\n"
_LONG = " ".join(f"word{i}" for i in range(240))  # ~1,600 chars, ~400 pi tokens


def pi_driver_unavailable() -> str | None:
    """Why pi 1.6 cannot run here, or None."""
    return pi_unavailable() or (None if PI_BIN.is_file() else f"{PI_BIN} is missing")


@dataclass
class PiScenario:
    """What one run left behind."""

    home: Path
    session_file: Path
    requests: list[Request]
    #: Index into ``requests`` of the first model call after each compaction, in order.
    after_compaction: list[int]
    #: The summarization requests (manual first, then automatic).
    summary_requests: list[Request]
    #: The summaries the scripted model returned, in order.
    summaries: list[str]
    events: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0


def _is_summary_request(r: Request) -> bool:
    text = r.last_user_text()
    return text.startswith("<conversation>") or text.startswith("# Conversation")


class _Rpc:
    """pi --mode rpc over pipes: JSON commands in, JSON events out."""

    def __init__(self, home: Path, cwd: Path, args: tuple[str, ...] = ()) -> None:
        env = {"HOME": str(home), "PATH": f"{PINNED_NODE.parent}:/usr/bin:/bin",
               "PI_OFFLINE": "1", "PI_SKIP_VERSION_CHECK": "1", "PI_TELEMETRY": "0",
               "NO_COLOR": "1", "LANG": os.environ.get("LANG", "C.UTF-8")}
        self.proc = subprocess.Popen([str(PINNED_NODE), str(PI_BIN), "--mode", "rpc", *args],
                                     cwd=cwd,
                                     env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, encoding="utf-8")
        self.events: list[dict[str, Any]] = []
        self._lines: queue.Queue[str] = queue.Queue()
        out = self.proc.stdout
        assert out is not None
        threading.Thread(target=lambda: [self._lines.put(line) for line in out], daemon=True
                         ).start()

    def send(self, command: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(command) + "\n")
        self.proc.stdin.flush()

    def wait(self, done: str, ident: str | None = None, timeout: float = 120) -> dict[str, Any]:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                line = self._lines.get(timeout=1)
            except queue.Empty:
                if self.proc.poll() is not None:
                    break
                continue
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if event.get("type") != "message_update":
                self.events.append(event)
            if event.get("type") == done and (ident is None or event.get("id") == ident):
                return event
        err = self.proc.stderr.read() if self.proc.poll() is not None and self.proc.stderr else ""
        raise TimeoutError(f"pi sent no {done} event{f' for {ident}' if ident else ''}: {err}")

    def command(self, command: dict[str, Any]) -> dict[str, Any]:
        ident = f"c{len(self.events)}"
        self.send({**command, "id": ident})
        reply = self.wait("response", ident)
        if not reply.get("success"):
            raise RuntimeError(f"pi refused {command['type']}: {reply.get('error')}")
        return reply

    def prompt(self, text: str) -> None:
        self.send({"type": "prompt", "message": text})
        self.wait("agent_settled")

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)


def _configure(home: Path, url: str, project: dict[str, Any] | None) -> Path:
    agent = home / ".pi" / "agent"
    agent.mkdir(parents=True)
    (agent / "models.json").write_text(json.dumps({"providers": {"local": {
        "baseUrl": f"{url}/v1", "api": "openai-completions", "apiKey": "scripted-key",
        "models": [{"id": "scripted", "name": "Scripted", "contextWindow": WINDOW,
                    "maxTokens": 1_000, "cost": {"input": 0, "output": 0, "cacheRead": 0,
                                                 "cacheWrite": 0}}]}}}))
    (agent / "settings.json").write_text(json.dumps({
        "defaultProvider": "local", "defaultModel": "scripted",
        "compaction": {"enabled": True, "reserveTokens": RESERVE,
                       "keepRecentTokens": KEEP if project is None else 20_000}}))
    cwd = home / "project"
    cwd.mkdir()
    (cwd / "notes.txt").write_text(NOTES)
    if project is not None:  # a project's .pi/settings.json wins over the global one
        (cwd / ".pi").mkdir()
        (cwd / ".pi" / "settings.json").write_text(json.dumps({"compaction": project}))
    return cwd


def _session_file(home: Path) -> Path:
    """The one session file a scenario leaves under ``home``."""
    files = sorted((home / ".pi" / "agent" / "sessions").rglob("*.jsonl"))
    assert len(files) == 1, files
    return files[0]


def _script(summaries: list[str]) -> Script:
    def summary(_r: Request) -> Reply:
        text = f"## Goal\n- summary {len(summaries) + 1}: the notes file says ship on Friday"
        summaries.append(text)
        return Reply(text)

    script = Script.of([
        Reply("first answer " + _LONG),
        Reply("", (ToolCall("read", {"path": "notes.txt"}),)),
        Reply("The notes say to ship on Friday. " + _LONG),
        Reply(error="server"),
        Reply("back after the error " + _LONG),
        # reported usage above the threshold (8,000 - 2,000): pi compacts after this turn
        Reply("after the manual compaction " + _LONG, input_tokens=7_000),
        Reply("after the automatic compaction"),
    ], fallback=Reply("fallback"))
    return script.when(_is_summary_request, summary)


def run_pi_scenario(tmp: Path, *, project: dict[str, Any] | None = None) -> PiScenario:
    """Play the scenario in ``tmp`` (its HOME); see the module docstring."""
    start = time.monotonic()
    summaries: list[str] = []
    with ScriptedModel(_script(summaries), context_window=WINDOW) as server:
        home = tmp / "home"
        cwd = _configure(home, server.url, project)
        rpc = _Rpc(home, cwd)
        after: list[int] = []
        try:
            rpc.command({"type": "set_auto_retry", "enabled": False})
            rpc.prompt("hello, please introduce yourself " + _LONG)
            rpc.prompt("read notes.txt please")
            rpc.prompt("a turn the model fails")
            rpc.prompt("try again " + _LONG)
            rpc.command({"type": "compact", "customInstructions": FOCUS})
            after.append(len(server.requests))
            rpc.prompt("after the manual compaction")
            # the reply above reported 7,000 tokens: pi compacted once the turn ended
            after.append(len(server.requests))
            rpc.prompt("after the automatic compaction")
        finally:
            rpc.close()
        requests = list(server.requests)
    # the first model call after each compaction that is not a summarization
    firsts = [next(i for i in range(k, len(requests)) if not _is_summary_request(requests[i]))
              for k in after]
    return PiScenario(home, _session_file(home), requests, firsts,
                      [r for r in requests if _is_summary_request(r)], summaries, rpc.events,
                      time.monotonic() - start)


def run_pi_overflow(tmp: Path) -> PiScenario:
    """A shorter run: the model answers a turn with a context overflow; pi 1.6 hides the
    failed attempt (a ``context_edit`` with a null replacement), compacts ("overflow") and
    retries the turn, then one more turn."""
    start = time.monotonic()
    summaries: list[str] = []
    script = Script.of([
        Reply("first answer " + _LONG), Reply("second answer " + _LONG), Reply(error="overflow"),
        Reply("answered after the overflow"), Reply("one more")], fallback=Reply("fallback"))

    def summary(_r: Request) -> Reply:
        summaries.append(f"## Goal\n- overflow summary {len(summaries) + 1}")
        return Reply(summaries[-1])

    script.when(_is_summary_request, summary)
    with ScriptedModel(script, context_window=WINDOW) as server:
        home = tmp / "home"
        cwd = _configure(home, server.url, None)
        rpc = _Rpc(home, cwd)
        try:
            rpc.command({"type": "set_auto_retry", "enabled": False})
            rpc.prompt("hello " + _LONG)
            rpc.prompt("second " + _LONG)
            rpc.prompt("this one overflows")
            after = [len(server.requests)]
            rpc.prompt("one more turn")
        finally:
            rpc.close()
        requests = list(server.requests)
    retried = next(i for i in range(len(requests)) if "overflows" in requests[i].last_user_text()
                   and i > 2 and not _is_summary_request(requests[i]) and requests[i - 1]
                   is not None and _is_summary_request(requests[i - 1]))
    return PiScenario(home, _session_file(home), requests, [retried, after[0]],
                      [r for r in requests if _is_summary_request(r)], summaries, rpc.events,
                      time.monotonic() - start)
