"""OpenClaw 2026.9.6 itself falls back to its built-in summarizer when SessionLens cannot help.

test_openclaw_plugin.py checks the plugin's throws under OpenClaw's own plugin loader; here
the real agent (``openclaw agent --local``, driver ``drivers.openclaw``) compacts three
sessions automatically with ``sessionlens integrate openclaw`` installed, each with the
channel broken another way: not installed, hanging past its deadline, and answering with
a summary that fails SessionLens's audit. Each time OpenClaw's built-in summarizer runs
after SessionLens's provider threw, the turn after the compaction carries the built-in
summary, and the journal says why. OpenClaw compacted each of these sessions twice (both
journaled, 2026-12-07); three sessions of three turns took 6 min 40 s on a shared machine.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agents.drivers import openclaw as oc
from agents.drivers.sessionlens_side import HANG, MISSING, PYTHONPATH, journal, write_prefs
from fixtures.scripted_model import Reply, Request, ScriptedModel
from sessionlens.engine._io.folders import user_folders
from sessionlens.engine.integrate.install import apply_changes, plan_changes
from sessionlens.engine.summarize.prompts import SYSTEM_PROMPT

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not oc.available(), reason="Node 24 / openclaw not installed")]

HANG_MS = 3000
BUILTIN = "The user is testing SessionLens against OpenClaw."   # in oc.SUMMARY


def is_sessionlens(r: Request) -> bool:
    return SYSTEM_PROMPT[:60] in r.system_text()


class Responder(oc.Responder):
    """SessionLens's summarizer writes nothing worth keeping: its audit fails."""

    def __call__(self, request: Request) -> Reply:
        if is_sessionlens(request):
            return Reply("Nothing happened.")
        return super().__call__(request)


def _channel(run: oc.OpenClawRun, command: list[str], deadline_ms: int) -> None:
    path = run.home / ".openclaw" / "openclaw.json"
    config: dict[str, Any] = json.loads(path.read_text())
    entry = config["plugins"]["entries"]["sessionlens"]["config"]
    entry["command"], entry["deadline_ms"] = command, deadline_ms
    path.write_text(json.dumps(config, indent=2))


def _session(run: oc.OpenClawRun, model: ScriptedModel, session: str) -> list[Request]:
    start = len(model.requests)
    run.turn(session, "Remember: the meeting room is 4B.")
    bulk = " ".join(f"filler{i}" for i in range(5000))
    run.turn(session, "Here is a long paste to remember:\n" + bulk + "\nThat was the paste.")
    run.turn(session, "After the automatic compaction: which room?")
    return list(model.requests[start:])


def test_broken_channel_leaves_openclaw_compacting_with_its_own_summarizer(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    base = tmp_path / "sessionlens"
    with ScriptedModel(Responder()) as model:
        write_prefs(base, server_url=model.url, quality_retries=0)
        run = oc.OpenClawRun(tmp_path / "home", model)
        monkeypatch.setenv("OPENCLAW_STATE_DIR", str(run.home / ".openclaw"))
        apply_changes(plan_changes("openclaw", user_folders(base), home=run.home))
        working = json.loads((run.home / ".openclaw" / "openclaw.json").read_text())[
            "plugins"]["entries"]["sessionlens"]["config"]
        monkeypatch.setattr(run, "env", lambda: {**oc.OpenClawRun.env(run),
                                                  "PYTHONPATH": PYTHONPATH})
        seen: dict[str, list[Request]] = {}
        lines: dict[str, list[dict[str, Any]]] = {}
        for case, command, deadline in (("missing", MISSING, working["deadline_ms"]),
                                        ("hang", HANG, HANG_MS),
                                        ("audit", working["command"], working["deadline_ms"])):
            _channel(run, command, deadline)
            before = len(journal(base))
            seen[case] = _session(run, model, case)
            lines[case] = journal(base)[before:]
    log = "\n".join(run.log)[-3000:]
    # every compaction of each session is journaled with why OpenClaw used its own summary
    assert all(lines.values()), (lines, log)
    assert all(e["writer"] == "agent" for case in lines.values() for e in case), lines
    assert all("not installed" in e["fallback_reason"]
               and "OpenClaw's built-in summarizer ran" in e["fallback_reason"]
               for e in lines["missing"])
    assert all(f"did not answer within {HANG_MS / 1000:g} s" in e["fallback_reason"]
               for e in lines["hang"])
    assert all(e["audit_passed"] is False and "failed its audit" in e["fallback_reason"]
               for e in lines["audit"]), lines["audit"]
    assert [bool([r for r in seen[k] if is_sessionlens(r)]) for k in seen] == [
        False, False, True]
    for case, requests in seen.items():
        builtin = [i for i, r in enumerate(requests)
                   if not r.tool_names() and not is_sessionlens(r)]
        assert builtin, (case, log)                 # OpenClaw's own summarizer ran
        after = [r for r in requests[builtin[-1] + 1:] if r.tool_names()]
        assert after and BUILTIN in json.dumps(after[-1].body), (case, log)
