"""Codex CLI 0.171.0 run headless against the scripted model (``codex exec`` / ``exec resume``).

Each run gets its own ``CODEX_HOME`` (and HOME) in a temporary folder, with a
``config.toml`` that points a custom ``model_providers`` entry (wire ``responses``) at the
scripted server on 127.0.0.1; analytics are off and retries are zero so an error turn ends at
once. Rollouts land in ``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<ts>-<id>.jsonl``.

``CodexSession`` runs one session turn by turn; ``run_scenario`` plays the standard scenario
(several turns, an ``exec_command`` round trip, an error turn, a manual compaction, an
automatic one at ``model_auto_compact_token_limit``, a turn after each) and says which
request was the compaction request and which the turn after it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from agents.drivers.headless import TimedTurns, make_folders, offline_env
from fixtures.scripted_model import Reply, Request, Script, ScriptedModel, ToolCall

REPO = Path(__file__).resolve().parents[3]
VERSION = "0.171.0"
BINARY = (REPO / "tests/fidelity/node/node_modules/@openai/codex-linux-x64/vendor"
          / "x86_64-unknown-linux-musl/bin/codex")
KEY_VAR = "SCRIPTED_CODEX_KEY"
SUMMARY_MANUAL = ("## Goal\n- keep notes.txt tidy\n\n## Done\n- read notes.txt (alpha, beta)\n\n"
                  "## Next\n- answer the follow-up")
SUMMARY_AUTO = "## Goal\n- keep notes.txt tidy\n\n## Next\n- the automatic compaction's summary"
AUTO_LIMIT = 60_000     # model_auto_compact_token_limit of the scenario
AUTO_PUSH = 90_000      # input tokens reported on the turn that passes it
_SESSION_ID = re.compile(r"session id: ([0-9a-f-]{36})")


def available() -> bool:
    return BINARY.is_file() and os.access(BINARY, os.X_OK)


def is_compaction_request(request: Request) -> bool:
    """Codex marks its summarizing request in ``client_metadata`` (request_kind)."""
    meta = request.body.get("client_metadata")
    turn = meta.get("x-codex-turn-metadata") if isinstance(meta, dict) else None
    return isinstance(turn, str) and '"request_kind":"compact' in turn.replace(" ", "")


def config_toml(url: str, auto_compact_limit: int | None, extra: str = "") -> str:
    limit = ("" if auto_compact_limit is None
             else f"model_auto_compact_token_limit = {auto_compact_limit}\n")
    return (f'model = "m"\nmodel_provider = "local"\n{limit}'
            'approval_policy = "never"\nsandbox_mode = "danger-full-access"\n'
            f"{extra}"
            "[analytics]\nenabled = false\n\n"
            "[model_providers.local]\n"
            f'name = "scripted"\nbase_url = "{url}/v1"\nwire_api = "responses"\n'
            f'env_key = "{KEY_VAR}"\nrequest_max_retries = 0\nstream_max_retries = 0\n')


@dataclass
class CodexSession(TimedTurns):
    """One Codex session in its own home, turn by turn."""

    root: Path
    server: ScriptedModel
    auto_compact_limit: int | None = None
    session_id: str | None = None
    seconds: float = 0.0
    outputs: list[subprocess.CompletedProcess[str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.home, self.work = make_folders(self.root, "codex-home")
        (self.work / "notes.txt").write_text("alpha\nbeta\n", encoding="utf-8")
        (self.home / "config.toml").write_text(
            config_toml(self.server.url, self.auto_compact_limit), encoding="utf-8")

    @property
    def env(self) -> dict[str, str]:
        return offline_env(self.home, {"CODEX_HOME": str(self.home), KEY_VAR: "scripted",
                                       "LANG": "C.UTF-8", "RUST_LOG": "error"})

    def turn(self, prompt: str, *, resume: str | None = None) -> subprocess.CompletedProcess[str]:
        """One ``codex exec`` (resuming this session, or ``resume`` when given)."""
        target = resume or self.session_id
        args = [str(BINARY), "exec", "--skip-git-repo-check", "--color", "never"]
        args += ["resume", target, prompt] if target else [prompt]
        done = self.run_turn(args, self.env, timeout=120)
        if self.session_id is None and resume is None:
            m = _SESSION_ID.search(done.stderr + done.stdout)
            self.session_id = m.group(1) if m else None
        return done

    def rollouts(self) -> list[Path]:
        return sorted((self.home / "sessions").rglob("rollout-*.jsonl"))

    def rollout(self, session_id: str | None = None) -> Path:
        sid = session_id or self.session_id or ""
        found = [p for p in self.rollouts() if p.name.endswith(f"{sid}.jsonl")]
        if not found:
            raise FileNotFoundError(f"no rollout of {sid} under {self.home}")
        return found[0]


    def compact(self) -> list[dict[str, Any]]:
        """A manual compaction: Codex's ``thread/compact/start`` over ``codex app-server``
        (``exec`` has no ``/compact``; it would send the text as a prompt). Returns the
        notifications, up to ``turn/completed``."""
        assert self.session_id, "compact() needs a session (run a turn first)"
        start = time.monotonic()
        proc = subprocess.Popen([str(BINARY), "app-server"], cwd=self.work, env=self.env,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, text=True)
        seen: list[dict[str, Any]] = []
        try:
            assert proc.stdin is not None and proc.stdout is not None
            calls = [("initialize", {"clientInfo": {"name": "sessionlens-tests",
                                                    "version": "1"}}),
                     ("thread/resume", {"threadId": self.session_id}),
                     ("thread/compact/start", {"threadId": self.session_id})]
            for n, (method, params) in enumerate(calls, 1):
                proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": n, "method": method,
                                             "params": params}) + "\n")
                proc.stdin.flush()
                if n == 1:
                    proc.stdin.write('{"jsonrpc": "2.0", "method": "initialized"}\n')
                seen += _until(proc.stdout, _answer_to(n))
            seen += _until(proc.stdout, lambda o: o.get("method") == "turn/completed")
        finally:
            if proc.stdin is not None:
                proc.stdin.close()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            self.seconds += time.monotonic() - start
        return seen


def _answer_to(n: int) -> Callable[[dict[str, Any]], bool]:
    return lambda obj: obj.get("id") == n


def _until(stream: IO[str], done: Callable[[dict[str, Any]], bool]) -> list[dict[str, Any]]:
    """JSON-RPC lines read until one satisfies ``done`` (an error answer raises)."""
    out: list[dict[str, Any]] = []
    for line in stream:
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if not isinstance(obj, dict):
            continue
        out.append(obj)
        if "error" in obj and "id" in obj:
            raise RuntimeError(f"codex app-server refused: {obj['error']}")
        if done(obj):
            return out
    raise RuntimeError("codex app-server closed before answering")


@dataclass(frozen=True)
class Scenario:
    """What a scenario run left: the session, and the indexes (into ``requests``) of each
    compaction request and of the request sent right after it."""

    session: CodexSession
    compactions: tuple[int, ...]
    after: tuple[int, ...]

    @property
    def requests(self) -> list[Request]:
        return self.session.server.requests

    @property
    def rollout(self) -> Path:
        return self.session.rollout()


def compaction_trigger(request: Request) -> str | None:
    """``manual`` / ``auto`` as Codex put it in the compaction request's metadata."""
    meta = request.body.get("client_metadata")
    raw = meta.get("x-codex-turn-metadata") if isinstance(meta, dict) else None
    try:
        comp = json.loads(raw).get("compaction") if isinstance(raw, str) else None
    except ValueError:
        return None
    return comp.get("trigger") if isinstance(comp, dict) else None


def scenario_script(n_extra: int = 0) -> Script:
    """Replies in scenario order; a compaction request gets the summary of its kind."""
    replies = [Reply("", (ToolCall("exec_command", {"cmd": "cat notes.txt"}, "call_cat1"),)),
               Reply("notes.txt holds alpha and beta."), Reply("Noted.")]
    replies += [Reply(f"Extra answer {i + 1}.") for i in range(n_extra)]
    replies += [Reply(error="server"), Reply("Still here after the compaction."),
                Reply("A long answer.", input_tokens=AUTO_PUSH),
                Reply("Done after the automatic compaction.")]
    script = Script.of(replies, fallback=Reply("OK."))
    script.when(lambda r: compaction_trigger(r) == "manual", Reply(SUMMARY_MANUAL))
    script.when(is_compaction_request, Reply(SUMMARY_AUTO))
    return script


def run_scenario(root: Path, *, n_extra: int = 0, auto_compact_limit: int = AUTO_LIMIT,
                 extra_words: int = 0) -> Scenario:
    """The standard scenario: a tool round trip, ``n_extra`` plain turns (``extra_words``
    long each), an error turn, a manual compaction and a turn after it, a turn whose usage
    passes ``auto_compact_limit``, and the turn Codex compacts automatically before."""
    with ScriptedModel(scenario_script(n_extra)) as server:
        session = CodexSession(root, server, auto_compact_limit)
        session.turn("Show me notes.txt.")
        session.turn("Remember that gamma comes next.")
        pad = " ".join(["detail"] * extra_words)
        for i in range(n_extra):
            session.turn(f"Extra turn {i + 1}: keep going. {pad}".rstrip())
        session.turn("This one fails.")
        session.compact()
        session.turn("What did we do so far?")
        session.turn("Write a long answer.")
        session.turn("And after the automatic compaction?")
        comp = tuple(i for i, r in enumerate(server.requests) if is_compaction_request(r))
        after = tuple(i + 1 for i in comp if i + 1 < len(server.requests))
        return Scenario(session, comp, after)


def input_texts(request: Request) -> list[dict[str, Any]]:
    """The request's ``input`` as ``{role, text}`` items, in the form SessionLens's
    ``inspect --json`` ``context`` gives them: a message's text parts joined by newlines,
    a tool call ``tool_call`` "NAME ARGS" (arguments as compact sorted JSON), its output
    ``tool_result``."""
    out: list[dict[str, Any]] = []
    for item in request.messages():
        kind = item.get("type")
        if kind == "function_call":
            args = json.loads(item.get("arguments") or "{}")
            out.append({"role": "tool_call", "text": f"{item.get('name')} "
                        + json.dumps(args, sort_keys=True, separators=(",", ":"))})
            continue
        if kind == "function_call_output":
            output = item.get("output")
            out.append({"role": "tool_result", "text": output if isinstance(output, str)
                        else json.dumps(output)})
            continue
        content = item.get("content")
        parts = content if isinstance(content, list) else [{"text": content or ""}]
        text = "\n".join(str(c.get("text") or "") for c in parts if isinstance(c, dict))
        out.append({"role": item.get("role") or kind, "text": text})
    return out


def request_record(request: Request) -> dict[str, Any]:
    """What a committed fixture keeps of a request: its kind, trigger and input items."""
    return {"kind": "compaction" if is_compaction_request(request) else "turn",
            "trigger": compaction_trigger(request), "input": input_texts(request)}


def record_fixture(dest: Path, root: Path, **scenario: Any) -> Scenario:
    """Run the scenario and keep its rollout (``rollout.jsonl``) and the compaction requests
    and the requests right after them (``requests.jsonl``) in ``dest``."""
    run = run_scenario(root, **scenario)
    dest.mkdir(parents=True, exist_ok=True)
    (dest / "rollout.jsonl").write_bytes(run.rollout.read_bytes())
    keep = sorted(set(run.compactions) | set(run.after))
    with (dest / "requests.jsonl").open("w", encoding="utf-8") as f:
        for i in keep:
            f.write(json.dumps({"index": i} | request_record(run.requests[i])) + "\n")
    return run


if __name__ == "__main__":  # cd tests && PYTHONPATH=. python -m agents.drivers.codex DEST
    import sys
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        record_fixture(Path(sys.argv[1]), Path(scratch))
