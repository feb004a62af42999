"""pi 1.6.0's automatic compaction through SessionLens (packaging/integrations/pi).

The real pi, headless, against the scripted model; the extension installed where pi finds
it; SessionLens's channel is this tree's ``sessionlens compact-for-agent`` with a basedir.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agents.drivers.pi_headless import PI_SUMMARIZER, PiRun, pi_available, start
from agents.drivers.sessionlens_side import (
    CRASH,
    HANG,
    MISSING,
    PYTHONPATH,
    channel,
    journal,
    write_prefs,
)
from fixtures.scripted_model import Reply, Request, Script, ScriptedModel
from sessionlens.engine.integrate.journal import JournalEntry
from sessionlens.engine.integrate.journal_tail import journal_compaction_id
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.persist.pins import add_pins
from sessionlens.engine.summarize.prompts import SYSTEM_PROMPT

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not pi_available(), reason="pi 1.6 missing")]

EXTENSION = Path(__file__).resolve().parents[2] / "packaging/integrations/pi/sessionlens.js"
PINNED = "Decision: the vault layout stays a/b/c and is never flattened."
SECRET = "sk-ant-api03-" + "Q7xK2mP9vL4nR8sT1wY6zB3cD5fG0hJ"
PI_OWN = "PI OWN SUMMARY of the early turns."
GOOD = ("## Goal\nKeep the vault layout.\n## Constraints & Preferences\n- layout a/b/c\n"
        "## Progress\n### Done\n- discussed the layout\n### In Progress\n- none\n"
        "### Blocked\n- none\n## Key Decisions\n- a/b/c stays\n## Next Steps\n- continue\n"
        "## Critical Context\n- none")


def is_sessionlens(r: Request) -> bool:
    return SYSTEM_PROMPT[:60] in r.system_text()


def is_pi_summarizer(r: Request) -> bool:
    return PI_SUMMARIZER in r.system_text()


def responder(summary: str = GOOD) -> Script:
    script = Script.of([
        Reply(f"Noted. For staging I will use the key {SECRET} from now on."),
        Reply("Fine.", input_tokens=3500),       # passes the threshold: pi compacts
    ], fallback=Reply("The layout is a/b/c, as decided.", input_tokens=900))
    script.when(is_sessionlens, lambda _r: Reply(summary))
    script.when(is_pi_summarizer, lambda _r: Reply(PI_OWN))
    return script


def scenario(tmp_path: Path, server: ScriptedModel, command: list[str],
             deadline_ms: int = 60000) -> tuple[PiRun, Path]:
    base = tmp_path / "sessionlens"
    run = start(tmp_path / "pi", server, extension=EXTENSION,
                env={"PYTHONPATH": PYTHONPATH})
    (run.agent_dir / "sessionlens.json").write_text(json.dumps({
        "command": command, "deadline_ms": deadline_ms,
        "journal": str(base / "state/integrations/journal.jsonl")}), "utf-8")
    assert run.turn(PINNED).returncode == 0
    transcript = load_transcript(run.session_file())
    first_user = next(e.id for e in transcript.entries
                      if e.message is not None and e.message.role == "user")
    add_pins(transcript, [first_user], base / "state")
    assert run.turn("Now the second part: " + "tell me about the layout. " * 40).returncode == 0
    assert run.turn("What was decided?").returncode == 0
    return run, base


def rows(run: PiRun) -> list[dict[str, Any]]:
    return [json.loads(x) for x in run.session_file().read_text("utf-8").splitlines()]


def after_compaction(server: ScriptedModel) -> Request:
    """The request pi sent for the turn after its compaction."""
    return [r for r in server.requests if not is_sessionlens(r) and not is_pi_summarizer(r)][-1]


def test_automatic_compaction_goes_through_sessionlens(tmp_path: Path) -> None:
    with ScriptedModel(responder()) as server:
        base = tmp_path / "sessionlens"
        write_prefs(base, server_url=server.url, focus="the vault layout", quality_retries=0)
        run, _ = scenario(tmp_path, server, channel(base, "compact-for-agent"))
        sent = [r for r in server.requests if is_sessionlens(r)]
        compactions = [r for r in rows(run) if r["type"] == "compaction"]
        assert len(compactions) == 1 and sent, [o.stderr[-500:] for o in run.outputs]
        assert not any(is_pi_summarizer(r) for r in server.requests)
        # the pinned entry from before the cut, word for word, in what pi sends next
        assert PINNED in compactions[0]["summary"]
        assert PINNED in json.dumps(after_compaction(server).body, ensure_ascii=False)
        # the planted secret never reached the summarizing model; the focus did
        assert all(SECRET not in json.dumps(r.body) for r in sent)
        assert any("the vault layout" in json.dumps(r.body) for r in sent)
        [entry] = journal(base)
    assert entry["agent"] == "pi" and entry["trigger"] == "threshold"
    assert entry["writer"] == "sessionlens" and entry["audit_passed"] is True
    assert entry["summarizer"] == "scripted/summarizer"
    assert len(entry["pins_kept"]) == 1 and entry["fallback_reason"] == ""
    # the app opens the audit of the compaction pi wrote after SessionLens answered
    assert journal_compaction_id(JournalEntry.from_dict(entry),
                                 load_transcript(run.session_file())) == compactions[0]["id"]


@pytest.mark.parametrize(("command", "why"), [(HANG, "did not answer within"),
                                              (MISSING, "not installed"),
                                              (CRASH, "crashed (exit 3): boom")])
def test_channel_hanging_missing_or_crashing_pi_compacts_on_its_own(
        tmp_path: Path, command: list[str], why: str) -> None:
    with ScriptedModel(responder()) as server:
        run, base = scenario(tmp_path, server, command, deadline_ms=1500)
        compactions = [r for r in rows(run) if r["type"] == "compaction"]
        assert [c["summary"] for c in compactions] == [PI_OWN]
        assert PI_OWN in json.dumps(after_compaction(server).body)
    [entry] = journal(base)
    assert entry["writer"] == "agent" and why in entry["fallback_reason"]
    assert entry["session"] and entry["trigger"] == "threshold"


@pytest.mark.parametrize("on_failure", ["agent", "cancel"])
def test_failed_audit_takes_the_contracts_fallback(tmp_path: Path, on_failure: str) -> None:
    with ScriptedModel(responder(summary="Nothing much happened.")) as server:
        base = tmp_path / "sessionlens"
        write_prefs(base, server_url=server.url, quality_retries=0,
                    on_audit_failure=on_failure)
        run, _ = scenario(tmp_path, server, channel(base, "compact-for-agent"))
        summaries = [r["summary"] for r in rows(run) if r["type"] == "compaction"]
    entries = journal(base)
    assert entries and all(e["audit_passed"] is False and e["failed_checks"] for e in entries)
    assert all("failed its audit" in e["fallback_reason"] for e in entries)
    if on_failure == "agent":   # pi's own summary, the audit of ours recorded
        assert summaries == [PI_OWN] and [e["writer"] for e in entries] == ["agent"]
    else:   # cancelled: no compaction at all (pi asks again before the next prompt)
        assert summaries == [] and {e["writer"] for e in entries} == {"none"}
