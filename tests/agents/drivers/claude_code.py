"""Claude Code 2.1.332 run headless against the scripted model, in a temporary HOME.

``claude -p`` talks to ``ANTHROPIC_BASE_URL`` (the scripted server on 127.0.0.1): streaming
``POST /v1/messages`` for every turn and for its own compaction, ``count_tokens`` on the side.
Each call of :meth:`ClaudeDriver.turn` is one ``claude -p`` process (the first starts the
session, the others ``--resume`` it), so a session is built the way a user builds one from a
shell. The server records every request: the ground truth of the context Claude Code held.

Facts found by running it (2026-12-04, release 2.1.332):
- as root ``--dangerously-skip-permissions`` is refused; ``--allowedTools=Bash,Read`` (one
  argument: a space-separated value swallows the prompt) lets the scripted tool call run;
- ``CLAUDE_CODE_MAX_RETRIES=0`` makes a scripted 529 one failed turn instead of ten retries;
- ``CLAUDE_AUTOCOMPACT_PCT_OVERRIDE=1`` fires the automatic compaction (trigger ``auto``)
  once the context passes 1% of the model's window (``claude-opus-5-5``: 1,000,000, as the
  ``-p --output-format json`` result's ``modelUsage.contextWindow`` reports);
- ``/compact Focus ...`` sends the whole conversation with a last user message that asks for
  ``<analysis>`` and ``<summary>`` ("CRITICAL: Respond with TEXT ONLY..."), and the next turn
  starts from the summary message followed by the message(s) ``preservedSegment`` kept.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents.drivers.headless import offline_env
from fixtures.scripted_model import Reply, Request, Script, ScriptedModel, ToolCall

__all__ = [
    "COMPACT_ASK", "VERSION", "ClaudeDriver", "ClaudeRun", "Turn", "claude_binary",
    "compaction_requests", "is_compaction_request", "project_folder", "run_session",
    "summary_of",
]

VERSION = "2.1.332"
ROOT = Path(__file__).resolve().parents[3]
BINARY = (ROOT / "tests/fidelity/node/node_modules/@anthropic-ai/claude-code-linux-x64"
          / "claude")
#: The words Claude Code's compaction request ends with (its summary prompt).
COMPACT_ASK = "CRITICAL: Respond with TEXT ONLY"
_TIMEOUT = 120
#: Claude Code compacts by itself when the context passes 1% of the window.
AUTO_ENV = {"CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": "1"}


def claude_binary() -> Path | None:
    """The pinned native binary, or None when it is not installed (tests skip)."""
    return BINARY if BINARY.is_file() and os.access(BINARY, os.X_OK) else None


def project_folder(home: Path, cwd: Path) -> Path:
    """Where Claude Code keeps the sessions of ``cwd``: ``/`` (and ``.``) become ``-``."""
    name = str(cwd).replace("/", "-").replace(".", "-").replace("_", "-")
    return home / ".claude" / "projects" / name


def is_compaction_request(request: Request) -> bool:
    return COMPACT_ASK in request.last_user_text()


def compaction_requests(requests: list[Request]) -> list[int]:
    return [i for i, r in enumerate(requests) if is_compaction_request(r)]


def summary_of(n: int) -> str:
    """The summary text the scripted model gives for the ``n``-th compaction (1-based)."""
    return f"Summary {n}: the user works on the vault layout a/b/c; notes.txt was read."


@dataclass(frozen=True)
class Turn:
    """One ``claude -p`` run: its prompt, exit status, the requests it sent (indexes into
    the server's list) and the result object it printed."""

    prompt: str
    returncode: int
    requests: tuple[int, ...]
    result: Mapping[str, Any]


@dataclass
class ClaudeRun:
    home: Path
    project: Path
    session_id: str
    requests: list[Request]
    turns: list[Turn] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def folder(self) -> Path:
        return project_folder(self.home, self.project)

    @property
    def session_file(self) -> Path:
        return self.folder / f"{self.session_id}.jsonl"


def default_script(summaries: list[int] | None = None) -> Script:
    """Text, a Bash tool call round trip (``cat notes.txt``), a 529, then plain answers;
    every compaction request is answered with ``<analysis>`` and ``summary_of(n)``."""
    count = summaries if summaries is not None else [0]

    def summarize(_request: Request) -> Reply:
        count[0] += 1
        return Reply(f"<analysis>what happened</analysis>\n<summary>{summary_of(count[0])}"
                     "</summary>")

    script = Script.of([
        Reply("Hello, first answer."),
        Reply("", (ToolCall("Bash", {"command": "cat notes.txt",
                                     "description": "read the notes"}),)),
        Reply("The notes say a/b/c."),
        Reply(error="overloaded"),
    ], fallback=Reply("Noted."))
    script.when(is_compaction_request, summarize)
    return script


class ClaudeDriver:
    """A temporary HOME and project, a scripted server, and ``claude -p`` turns against it."""

    def __init__(self, root: Path, responder: Callable[[Request], Reply] | None = None,
                 env: Mapping[str, str] | None = None) -> None:
        binary = claude_binary()
        if binary is None:
            raise FileNotFoundError(f"Claude Code is not installed at {BINARY}")
        self.binary = binary
        self.home = root / "home"
        self.project = root / "project"
        self.home.mkdir(parents=True, exist_ok=True)
        self.project.mkdir(parents=True, exist_ok=True)
        (self.project / "notes.txt").write_text("vault layout: a/b/c\n", encoding="utf-8")
        self.server = ScriptedModel(responder or default_script())
        self.extra_env = dict(env or {})
        self.session_id: str | None = None
        self.turns: list[Turn] = []
        self.started = time.monotonic()

    def env(self, more: Mapping[str, str] | None = None) -> dict[str, str]:
        return offline_env(self.home, {
            "LANG": "C.UTF-8", "ANTHROPIC_BASE_URL": self.server.url,
            "ANTHROPIC_API_KEY": "sk-scripted", "DISABLE_TELEMETRY": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1",
            "CLAUDE_CODE_MAX_RETRIES": "0", "TMPDIR": str(self.home),
            **self.extra_env, **(more or {})})

    def turn(self, prompt: str, *, resume: str | None = None,
             env: Mapping[str, str] | None = None, tools: str = "Bash,Read",
             flags: Sequence[str] = ()) -> Turn:
        """One ``claude -p`` process; resumes this driver's session unless told otherwise.
        ``tools`` is the ``--allowedTools`` value; ``flags`` go before the prompt (each in
        ``--flag=value`` form: a variadic flag's separate value would swallow the prompt)."""
        sid = resume or self.session_id
        args = [str(self.binary), "-p", "--output-format", "json", f"--allowedTools={tools}",
                *flags]
        if sid is not None:
            args += ["--resume", sid]
        before = len(self.server.requests)
        done = subprocess.run([*args, "--", prompt], cwd=self.project, env=self.env(env),
                              capture_output=True, text=True, timeout=_TIMEOUT, check=False)
        try:
            result = json.loads(done.stdout.strip().splitlines()[-1]) if done.stdout else {}
        except (ValueError, IndexError):
            result = {"stdout": done.stdout, "stderr": done.stderr}
        if self.session_id is None and resume is None:
            self.session_id = str(result.get("session_id") or "") or None
        turn = Turn(prompt, done.returncode, tuple(range(before, len(self.server.requests))),
                    result)
        self.turns.append(turn)
        return turn

    def run(self) -> ClaudeRun:
        if self.session_id is None:
            raise RuntimeError("no session: the first turn failed")
        return ClaudeRun(self.home, self.project, self.session_id, self.server.requests,
                         list(self.turns), time.monotonic() - self.started)

    def close(self) -> None:
        self.server.close()


@contextmanager
def driver(root: Path | None = None, **kw: Any) -> Iterator[ClaudeDriver]:
    """A driver in ``root`` (a fresh temp folder when None, removed afterwards)."""
    own = root is None
    base = Path(tempfile.mkdtemp(prefix="claude-code-")) if root is None else root
    d = ClaudeDriver(base, **kw)
    try:
        yield d
    finally:
        d.close()
        if own:
            shutil.rmtree(base, ignore_errors=True)


def run_session(d: ClaudeDriver, *, extra_turns: int = 0, manual: bool = True,
                auto: bool = True) -> ClaudeRun:
    """The main scenario: a first turn, a tool call round trip, a 529 turn, a turn after
    it, ``extra_turns`` more, then (with ``auto``) every turn so far run under
    ``CLAUDE_AUTOCOMPACT_PCT_OVERRIDE=1``, so that Claude Code compacts on its own before
    one of them (the context, about 13k tokens, passes 1% of 1,000,000), and a turn after
    it; then (with ``manual``) ``/compact Focus on ...`` and a turn after it."""
    env = AUTO_ENV if auto else None
    d.turn("First question: what is in this folder?", env=env)
    d.turn("Read the notes", env=env)
    d.turn("This one fails", env=env)
    d.turn("After the error", env=env)
    for k in range(extra_turns):
        d.turn(f"Extra turn {k + 1}: tell me more about part {k + 1} of the layout", env=env)
    if auto:
        d.turn("After the automatic compaction")
    if manual:
        d.turn("/compact Focus on the vault layout")
        d.turn("After the manual compaction")
    return d.run()


def slim_request(request: Request) -> dict[str, Any]:
    """A recorded request, small enough to commit: the system prompt (less its billing header
    block) and the tool list as sha256 of their JSON without cache marks (the session file
    holds them whole), the messages as sent."""
    body = request.body
    system = [b for b in body.get("system") or []
              if not str(b.get("text", "")).startswith(BILLING_HEADER)]
    return {"path": request.path, "model": body.get("model"),
            "system_sha256": json_sha256(without_cache_marks(system)),
            "tools_sha256": json_sha256(without_cache_marks(body.get("tools"))),
            "tool_names": request.tool_names(), "messages": body.get("messages"),
            "compaction": is_compaction_request(request)}


#: The first system block of every request Claude Code sends (not in its request records).
BILLING_HEADER = "x-anthropic-billing-header:"


def without_cache_marks(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: without_cache_marks(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [without_cache_marks(v) for v in value]
    return value


def json_sha256(value: Any) -> str:
    import hashlib
    return hashlib.sha256(json.dumps(value, sort_keys=True, ensure_ascii=False,
                                     separators=(",", ":")).encode()).hexdigest()


#: The committed scenarios: name -> keyword arguments of :func:`run_session`.
SCENARIOS: dict[str, dict[str, Any]] = {
    "main": {},
    "short": {"auto": False},
    "long": {"auto": False, "extra_turns": 4},
}


def write_fixture(run: ClaudeRun, dest: Path) -> Path:
    """Copy the session file and the slim requests into ``dest`` (one folder per scenario)."""
    dest.mkdir(parents=True, exist_ok=True)
    target = dest / run.session_file.name
    shutil.copyfile(run.session_file, target)
    with (dest / "requests.jsonl").open("w", encoding="utf-8") as f:
        for r in run.requests:
            f.write(json.dumps(slim_request(r), ensure_ascii=False) + "\n")
    (dest / "turns.json").write_text(json.dumps(
        [{"prompt": t.prompt, "returncode": t.returncode, "requests": list(t.requests)}
         for t in run.turns], indent=1) + "\n", encoding="utf-8")
    return target


def main() -> None:  # pragma: no cover - run by hand to refresh the committed fixtures
    out = ROOT / "tests/fixtures/agents" / f"claude-code-{VERSION}"
    for name, kw in SCENARIOS.items():
        with driver() as d:
            run = run_session(d, **kw)
            for old in (out / name).glob("*.jsonl"):
                old.unlink()
            print(name, write_fixture(run, out / name), f"{run.seconds:.1f} s")


if __name__ == "__main__":  # pragma: no cover
    main()
