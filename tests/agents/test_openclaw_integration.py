"""OpenClaw 2026.9.6 itself, its automatic compaction through the SessionLens provider.

The driver (``drivers.openclaw``) runs ``openclaw agent --local`` turns against the scripted
model; ``sessionlens integrate openclaw`` edits the temporary HOME's openclaw.json (the
plugin's folder, its channel, ``agents.defaults.compaction.provider``). Session ``alpha``
compacts through SessionLens (three turns, ~5 minutes on a shared machine; the fallbacks
through the real agent are in test_openclaw_fallbacks.py). Pins: the user
pinned the first message's text in a session file; SessionLens finds it among the
messages OpenClaw hands over by that text.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.drivers import openclaw as oc
from agents.drivers.sessionlens_side import PYTHONPATH, journal, write_prefs
from fixtures.factories import TranscriptBuilder
from fixtures.scripted_model import Reply, Request, ScriptedModel
from sessionlens.engine._io.folders import user_folders
from sessionlens.engine.integrate.install import apply_changes, plan_changes
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.persist.pins import add_pins
from sessionlens.engine.summarize.prompts import SYSTEM_PROMPT

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not oc.available(), reason="Node 24 / openclaw not installed")]

PINNED = "Remember this decision: the meeting room is 4B, never the lobby."
SECRET = "sk-ant-api03-" + "Q7xK2mP9vL4nR8sT1wY6zB3cD5fG0hJ"
OURS = ("## Decisions\n- SL-MARK: room 4B was decided\n## Open TODOs\n- none\n"
        "## Constraints/Rules\n- keep answers short\n## Pending user asks\n- none\n"
        "## Exact identifiers\n- 4B\n")


def is_sessionlens(r: Request) -> bool:
    return SYSTEM_PROMPT[:60] in r.system_text()


class Responder(oc.Responder):
    def __call__(self, request: Request) -> Reply:
        if is_sessionlens(request):
            return Reply(OURS)
        return super().__call__(request)


def session_to_compaction(run: oc.OpenClawRun, session: str) -> None:
    run.turn(session, PINNED + f" The staging key is {SECRET}.")
    bulk = " ".join(f"filler{i}" for i in range(5000))
    run.turn(session, "Here is a long paste to remember:\n" + bulk + "\nThat was the paste.")
    run.turn(session, "After the automatic compaction: which room?")


def test_automatic_compaction_goes_through_sessionlens(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    base = tmp_path / "sessionlens"
    with ScriptedModel(Responder()) as model:
        write_prefs(base, server_url=model.url, template="safeguard", quality_retries=0,
                    identifier_policy="off")
        b = TranscriptBuilder()
        b.user(PINNED)
        pinned_file = b.write(tmp_path / "pinned.jsonl")
        t = load_transcript(pinned_file)
        add_pins(t, [t.entries[0].id], base / "state")
        run = oc.OpenClawRun(tmp_path / "home", model)
        monkeypatch.setenv("OPENCLAW_STATE_DIR", str(run.home / ".openclaw"))
        apply_changes(plan_changes("openclaw", user_folders(base), home=run.home))
        monkeypatch.setattr(run, "env", lambda: {**oc.OpenClawRun.env(run),
                                                  "PYTHONPATH": PYTHONPATH})
        session_to_compaction(run, "alpha")
        ours = [r for r in model.requests if is_sessionlens(r)]
        builtin_alpha = [r for r in model.requests if not r.tool_names()
                         and not is_sessionlens(r)]
    log = "\n".join(run.log)[-3000:]
    assert ours, log
    assert all(SECRET not in json.dumps(r.body) for r in ours)
    assert builtin_alpha == [], log
    entries = journal(base)
    first = entries[0]
    assert first["agent"] == "openclaw" and first["writer"] == "sessionlens", entries
    assert first["pins_kept"] and first["audit_passed"] is True
    # the summary OpenClaw stored and sent on is SessionLens's, the pinned message in it
    after = [r for r in model.requests if r.tool_names()][-1]
    assert "SL-MARK: room 4B was decided" in json.dumps(after.body)
    assert PINNED in json.dumps(after.body, ensure_ascii=False)
