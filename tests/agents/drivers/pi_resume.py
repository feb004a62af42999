"""A successor SessionLens writes for pi, resumed by the pi 1.6.0 binary.

``resume_successor`` takes a session lying in pi's sessions folder of a temporary HOME (one
pi 1.6 wrote there, or a real sample put there), has SessionLens compact it as a user would
(``sessionlens compact FILE --provider offline --write successor --instructions ...``, the
CLI in a subprocess with its own ``--basedir``), reads the successor's replayed context
(``inspect --json``), resumes the successor with ``pi --mode rpc --session SUCCESSOR``, sends
one prompt, and returns what pi sent its model and what the file holds afterwards.

``pi_written_session`` plays a short session through pi's RPC mode first: turns, a ``read``
tool round trip, a context overflow (pi hides the failed attempt with a ``context_edit``,
compacts and retries), pi's own ``/compact`` with focus instructions (compactions with pi
1.6's ``systemMessage``), and turns after it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.drivers.pi import _LONG, FOCUS, _configure, _is_summary_request, _Rpc
from agents.drivers.sessionlens_side import ROOT
from fixtures.scripted_model import Reply, Request, Script, ScriptedModel, ToolCall

__all__ = ["RESUME_PROMPT", "RESUMED_ANSWER", "Resumed", "pi_home", "pi_written_session",
           "place_sample", "resume_successor", "scripted_server", "sessionlens"]

RESUME_PROMPT = "after the resume: what do the notes say?"
RESUMED_ANSWER = "resumed answer"
SL_FOCUS = "Focus on the notes and the release day"
RESUME_WINDOW = 200_000


def pi_script() -> Script:
    """Answers for the pi-written session, then RESUMED_ANSWER for ever."""
    script = Script.of([
        Reply("first answer " + _LONG),
        Reply("", (ToolCall("read", {"path": "notes.txt"}),)),
        Reply("The notes say to ship on Friday. " + _LONG),
        Reply("after pi's compaction " + _LONG),
        Reply(error="overflow"),
        Reply("answered after the overflow " + _LONG),
        Reply("one more answer " + _LONG),
    ], fallback=Reply(RESUMED_ANSWER))
    return script.when(_is_summary_request, Reply("## Goal\n- pi's own summary: ship on Friday"))


def pi_home(root: Path, server: ScriptedModel) -> tuple[Path, Path]:
    """(HOME, project folder) configured for the scripted server: the pi driver's settings
    with a window of RESUME_WINDOW, so that pi does not compact on its own after the resumed
    turn (the kept tail of a real sample passes the driver's 6,000-token threshold)."""
    home = root / "home"
    cwd = _configure(home, server.url, None)
    models = home / ".pi" / "agent" / "models.json"
    config = json.loads(models.read_text())
    config["providers"]["local"]["models"][0]["contextWindow"] = RESUME_WINDOW
    models.write_text(json.dumps(config))
    return home, cwd


def pi_written_session(home: Path, cwd: Path) -> Path:
    """Play the short session (module docstring); the file pi wrote."""
    rpc = _Rpc(home, cwd)
    try:
        rpc.command({"type": "set_auto_retry", "enabled": False})
        rpc.prompt("hello, please introduce yourself " + _LONG)
        rpc.prompt("read notes.txt please")
        rpc.command({"type": "compact", "customInstructions": FOCUS})
        rpc.prompt("after pi's compaction " + _LONG)
        # pi hides the failed attempt (a context_edit), compacts ("overflow") and retries
        rpc.prompt("this one overflows")
        rpc.prompt("and one more " + _LONG)
    finally:
        rpc.close()
    (found,) = sorted((home / ".pi" / "agent" / "sessions").rglob("*.jsonl"))
    return found


def place_sample(sample: Path, home: Path, cwd: Path) -> Path:
    """A copy of ``sample`` in pi's sessions folder of ``home`` (a temporary one), its header's
    ``cwd`` set to ``cwd``: pi 1.6 refuses to resume a session whose working folder does not
    exist ("Stored session working directory does not exist"), and the sample's is another
    machine's. Nothing else of the sample changes."""
    folder = home / ".pi" / "agent" / "sessions" / "--sample--"
    folder.mkdir(parents=True, exist_ok=True)
    first, rest = sample.read_bytes().split(b"\n", 1)
    header = json.loads(first)
    header["cwd"] = str(cwd)
    copy = folder / sample.name
    copy.write_bytes(json.dumps(header).encode() + b"\n" + rest)
    return copy


def sessionlens(basedir: Path, *words: str) -> dict[str, Any]:
    """``sessionlens WORDS... --json --basedir BASEDIR`` of this tree, its JSON answer."""
    done = subprocess.run([sys.executable, "-m", "sessionlens.engine.cli", *words, "--json",
                           "--basedir", str(basedir)], capture_output=True, text=True,
                          cwd=ROOT, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


@dataclass
class Resumed:
    original: Path
    successor: Path
    #: ``compact --json`` and ``inspect --json`` of the successor before pi resumed it.
    compacted: dict[str, Any]
    before: dict[str, Any]
    #: The model requests pi sent after resuming (summarizations left out).
    requests: list[Request]
    #: The successor's bytes before pi resumed it.
    written: bytes


def resume_successor(original: Path, home: Path, cwd: Path, server: ScriptedModel,
                     basedir: Path) -> Resumed:
    """SessionLens compacts ``original`` into a successor; pi 1.6 resumes it and answers
    RESUME_PROMPT (module docstring)."""
    compacted = sessionlens(basedir, "compact", str(original), "--provider", "offline",
                            "--write", "successor", "--instructions", SL_FOCUS)
    (successor,) = [Path(p) for p in compacted["written"] if ".checkpoint." not in p]
    before = sessionlens(basedir, "inspect", str(successor))
    written = successor.read_bytes()
    start = len(server.requests)
    rpc = _Rpc(home, cwd, ("--session", str(successor)))
    try:
        rpc.prompt(RESUME_PROMPT)
    finally:
        rpc.close()
    requests = [r for r in server.requests[start:] if not _is_summary_request(r)]
    return Resumed(original, successor, compacted, before, requests, written)


def scripted_server(pi_session: bool) -> ScriptedModel:
    """The scripted model: ``pi_script`` when pi plays its session first, else one that
    answers RESUMED_ANSWER to everything."""
    script = pi_script() if pi_session else Script.of([], fallback=Reply(RESUMED_ANSWER))
    return ScriptedModel(script, context_window=RESUME_WINDOW)
