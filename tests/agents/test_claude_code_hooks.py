"""Claude Code 2.1.332's compaction hooks answered by SessionLens, through the real binary.

The hooks are configured in the temporary HOME's ``~/.claude/settings.json`` as
``sessionlens integrate claude-code`` writes them; the command is this tree's engine.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from agents.drivers.claude_code import (
    AUTO_ENV,
    ClaudeDriver,
    claude_binary,
    compaction_requests,
    driver,
)
from agents.drivers.sessionlens_side import PYTHONPATH, channel, journal, write_prefs
from sessionlens.engine.integrate.journal import JournalEntry
from sessionlens.engine.integrate.journal_tail import journal_compaction_id
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.persist.pins import add_pins

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(claude_binary() is None, reason="Claude Code not installed")]

FIRST = "First question: what is in this folder? Keep the vault layout a/b/c."
FOCUS = "Always keep the vault layout and every file name."


def hooks(d: ClaudeDriver, base: Path) -> None:
    settings = {"hooks": {event: [{"matcher": "", "hooks": [{
        "type": "command", "timeout": 60,
        "command": shlex.join(channel(base, "hook", "claude-code", name))}]}]
        for event, name in (("PreCompact", "pre-compact"), ("PostCompact", "post-compact"))}}
    (d.home / ".claude").mkdir(parents=True, exist_ok=True)
    (d.home / ".claude" / "settings.json").write_text(json.dumps(settings), "utf-8")


def session(d: ClaudeDriver, base: Path) -> None:
    """A first turn, its user message pinned, then turns until Claude Code compacts."""
    env = {**AUTO_ENV, "PYTHONPATH": PYTHONPATH}
    d.turn(FIRST, env={"PYTHONPATH": PYTHONPATH})
    assert d.session_id is not None
    transcript = load_transcript(d.run().session_file)
    first = next(e.id for e in transcript.entries
                 if e.message is not None and e.message.role == "user")
    add_pins(transcript, [first], base / "state")
    d.turn("Read the notes", env=env)
    d.turn("After that", env=env)


def test_precompact_instructions_reach_the_request_and_the_audit_is_journaled(
        tmp_path: Path) -> None:
    base = tmp_path / "sessionlens"
    write_prefs(base, focus=FOCUS)
    with driver(tmp_path / "cc") as d:
        hooks(d, base)
        session(d, base)
        requests = d.server.requests
        at = compaction_requests(requests)
        assert at, [t.result for t in d.turns]
        asked = json.dumps(requests[at[0]].body, ensure_ascii=False)
    assert FOCUS in asked                      # the standing focus reached the request
    assert FIRST in asked.split("CRITICAL: Respond with TEXT ONLY")[-1]   # the pin, in the ask
    entries = journal(base)
    post = [e for e in entries if e["summarizer"] == "claude-code"]
    assert post, entries
    assert post[0]["agent"] == "claude-code" and post[0]["trigger"] == "auto"
    assert post[0]["writer"] == "agent" and post[0]["audit_passed"] in (True, False)
    assert post[0]["extra"]["summary_chars"] > 0 and post[0]["fallback_reason"] == ""
    # PostCompact runs before Claude Code writes its boundary (2.1.332): the app finds the
    # compaction a journal line is about as the first one written after the line
    written = load_transcript(Path(post[0]["session_file"]))
    boundaries = [e.id for e in written.entries if e.type == "compaction"]
    assert journal_compaction_id(JournalEntry.from_dict(post[0]), written) == boundaries[0]
    # the scripted summary does not carry the pinned message: the audit of the summary
    # Claude Code wrote says so
    assert "pinned" in post[0]["failed_checks"] and post[0]["pins_missing"]


def test_approve_compactions_blocks_the_automatic_one(tmp_path: Path) -> None:
    base = tmp_path / "sessionlens"
    write_prefs(base, approve_compactions=True)
    with driver(tmp_path / "cc") as d:
        hooks(d, base)
        session(d, base)
        assert compaction_requests(d.server.requests) == []
    entries = journal(base)
    assert entries and all(e["writer"] == "none" for e in entries)
    assert "approve compactions" in entries[0]["fallback_reason"]
