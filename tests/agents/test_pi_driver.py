"""pi 1.6.0 itself, run headless against the scripted model: what SessionLens reads of the
file pi wrote must be what pi did, and the context SessionLens replays after each compaction
must be the messages pi sent its model on the next turn.

The scenario (``agents.drivers.pi``): turns, a ``read`` tool round trip, a 500 error (auto
retry off), ``/compact`` with focus instructions, a turn whose usage crosses the threshold
(pi compacts by itself), a turn after each compaction; and a shorter run where the model
reports a context overflow (pi hides the attempt, compacts and retries). One run of each
serves every test here.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agents.drivers.pi import (
    FOCUS,
    KEEP,
    NOTES,
    RESERVE,
    WINDOW,
    PiScenario,
    pi_driver_unavailable,
    run_pi_overflow,
    run_pi_scenario,
)
from fixtures.scripted_model import Request, _text_of
from sessionlens.engine.lineage.forensics import analyze_compactions
from sessionlens.engine.lineage.memory_flush import analyze_memory_flush
from sessionlens.engine.load.context_messages import context_messages
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.load.tree import build_transcript
from sessionlens.engine.model import Transcript
from sessionlens.engine.opened import agent_model, open_transcript
from sessionlens.engine.plan.planner import plan_compaction

pytestmark = pytest.mark.slow

SUMMARY_PREFIX = "The conversation history before this point was compacted into the following " \
                 "summary:"


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PiScenario]:
    reason = pi_driver_unavailable()
    if reason is not None:
        pytest.skip(f"needs pi 1.6.0: {reason}")
    scenario = run_pi_scenario(tmp_path_factory.mktemp("pi16"))
    print(f"\npi 1.6.0 scenario: {scenario.seconds:.1f} s, {len(scenario.requests)} requests")
    yield scenario


@pytest.fixture(scope="module")
def transcript(run: PiScenario) -> Transcript:
    return load_transcript(run.session_file)


def _wire(request: Request) -> list[tuple[str, str, tuple[str, ...]]]:
    """(role, text, tool calls) of each message pi sent (OpenAI Chat Completions)."""
    out = []
    for m in request.messages():
        calls = tuple(c["function"]["name"] for c in m.get("tool_calls") or [])
        out.append((m["role"], _text_of(m.get("content")), calls))
    return out


def _as_sent(t: Transcript) -> list[tuple[str, str, tuple[str, ...]]]:
    """SessionLens's replayed context the way pi puts it on the wire: pi-ai's
    ``transformMessages`` skips errored and aborted assistant turns, a summary goes as a
    user message, a tool result as a ``tool`` message."""
    out = []
    for m in context_messages(t):
        msg = t.entry(m.entry_id).message
        if m.role == "assistant" and msg is not None and msg.stop_reason in ("error", "aborted"):
            continue
        role = {"compactionSummary": "user", "toolResult": "tool"}.get(m.role, m.role)
        out.append((role, m.text, m.calls))
    return out


def test_reading_is_what_pi_did(run: PiScenario, transcript: Transcript) -> None:
    t = transcript
    assert t.format == "openclaw-v3"
    assert not [d for d in t.diagnostics if d.severity == "error"], t.diagnostics
    roles = [e.role for e in t.entries if e.message is not None]
    assert roles.count("user") == 6 and roles.count("system") == 1
    assert roles.count("assistant") == 7 and roles.count("toolResult") == 1
    calls = [c for e in t.entries if e.message is not None for c in e.message.tool_calls]
    results = [e.message for e in t.entries if e.role == "toolResult" and e.message is not None]
    assert [c.name for c in calls] == ["read"] and calls[0].arguments == {"path": "notes.txt"}
    assert results[0].tool_call_id == calls[0].id and results[0].text == NOTES
    errors = [e.message for e in t.entries if e.message is not None
              and e.message.stop_reason == "error"]
    assert len(errors) == 1 and errors[0].error_message
    comps = [e for e in t.entries if e.type == "compaction"]
    # both cut inside a turn: pi summarized the history and the turn's prefix apart
    assert len(comps) == 2 and len(run.summaries) == 4
    for k, comp in enumerate(comps):
        assert (comp.summary or "").startswith(run.summaries[2 * k])
        assert run.summaries[2 * k + 1] in (comp.summary or "")
        assert comp.system_message is not None and comp.usage is not None
    assert agent_model(t) is not None and agent_model(t)[:2] == ("local", "scripted")  # type: ignore[index]


def test_reported_usage_is_what_the_model_reported(run: PiScenario,
                                                  transcript: Transcript) -> None:
    """Every answered turn's usage is the scripted server's (input: a quarter of the
    request's JSON unless the script set it; 7,000 on the turn that crosses the threshold)."""
    answered = [r for r in run.requests if not r.last_user_text().startswith(
        ("<conversation>", "# Conversation"))]
    usages = [e.message.usage for e in transcript.entries if e.message is not None
              and e.message.role == "assistant" and e.message.stop_reason != "error"]
    replies = [r for r in answered if r is not answered[3]]  # the 500 has no usage
    inputs = [u.input for u in usages if u is not None]
    expected = [max(1, len(json.dumps(r.body)) // 4) for r in replies]
    expected[4] = 7_000
    assert inputs == expected


def _prefix_until_next_user(t: Transcript, comp_id: str) -> Transcript:
    at = next(i for i, e in enumerate(t.entries) if e.id == comp_id)
    end = next(i for i in range(at + 1, len(t.entries)) if t.entries[i].role == "user")
    return build_transcript(t.path, t.format, t.header, t.entries[:end + 1], ())


def test_replay_after_each_compaction_is_what_pi_sent(run: PiScenario,
                                                      transcript: Transcript) -> None:
    comps = [e for e in transcript.entries if e.type == "compaction"]
    assert len(run.after_compaction) == len(comps) == 2
    for comp, index in zip(comps, run.after_compaction, strict=True):
        sent = _wire(run.requests[index])
        mine = _as_sent(_prefix_until_next_user(transcript, comp.id))
        assert len(mine) == len(sent), (mine, sent)
        for (role, text, calls), (their_role, their_text, their_calls) in zip(
                mine, sent, strict=True):
            assert (role, calls) == (their_role, their_calls)
            if their_text.startswith(SUMMARY_PREFIX):
                assert text and text in their_text  # the summary, wrapped by pi
            else:
                assert text == their_text


def test_the_manual_compaction_carried_the_focus(run: PiScenario) -> None:
    assert all(FOCUS in r.last_user_text() for r in run.summary_requests[:2])
    assert all(FOCUS not in r.last_user_text() for r in run.summary_requests[2:])


def test_triggers_window_and_settings_come_from_pi(run: PiScenario) -> None:
    """pi's file does not record why it compacted: the usage before each says it (3,8xx of
    a 6,000 threshold: manual; 7,000 above it: threshold). The window, reserve and
    keepRecentTokens are pi's own settings, not OpenClaw's defaults."""
    opened = open_transcript(run.session_file)
    r = opened.resolved
    assert r.window == WINDOW and "models.json" in r.context_window.source
    assert r.reserve_tokens.value == RESERVE and r.keep_recent_tokens.value == KEEP
    assert r.threshold == WINDOW - RESERVE > 0
    assert "settings.json" in r.reserve_tokens.source
    found = analyze_compactions(opened.transcript, r.settings)
    assert [f.trigger for f in found] == ["manual", "threshold"]
    flush = analyze_memory_flush(opened.transcript, r.settings)
    assert flush.cycles and all(c.reason == "not-openclaw" for c in flush.cycles)
    assert all("pi runs no memory flush" in c.detail for c in flush.cycles)


def test_the_pi16_rule_plans_what_pi_did(run: PiScenario, transcript: Transcript) -> None:
    """On the prefix just before each recorded compaction, SessionLens's default rule cuts
    where pi 1.6 cut and counts the tokensBefore pi recorded."""
    opened = open_transcript(run.session_file)
    for i, e in enumerate(transcript.entries):
        if e.type != "compaction":
            continue
        sub = build_transcript(transcript.path, transcript.format, transcript.header,
                               transcript.entries[:i], ())
        plan = plan_compaction(sub, opened.resolved.settings, hard_boundary=False)
        assert plan.cut_rule == "pi-1.6"
        assert (plan.first_kept_entry_id, plan.tokens_before) == (e.first_kept_entry_id,
                                                                   e.tokens_before)


def test_inspect_context_of_the_file(run: PiScenario, transcript: Transcript) -> None:
    """The system prompt pi keeps in ``sections`` (content "") is read, not empty."""
    ctx = context_messages(transcript)
    assert ctx[0].role == "system" and len(ctx[0].text) > 500
    assert ctx[1].role == "compactionSummary"


def save_fixture(run: PiScenario, folder: Path) -> list[Path]:
    """Copy what the run wrote into ``folder`` (how tests/fixtures/agents/pi-1.6.0 was made)."""
    folder.mkdir(parents=True, exist_ok=True)
    session = folder / "scenario.jsonl"
    session.write_bytes(run.session_file.read_bytes())
    requests = folder / "scenario.requests.jsonl"
    rows: list[dict[str, Any]] = [{"after_compaction": run.after_compaction}]
    rows += [{"path": r.path, "body": r.body} for r in run.requests]
    requests.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return [session, requests]


@pytest.fixture(scope="module")
def overflow(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PiScenario]:
    reason = pi_driver_unavailable()
    if reason is not None:
        pytest.skip(f"needs pi 1.6.0: {reason}")
    yield run_pi_overflow(tmp_path_factory.mktemp("pi16-overflow"))


def test_overflow_hides_the_attempt_compacts_and_retries(overflow: PiScenario) -> None:
    """pi 1.6 answers a context overflow by hiding the failed attempt (a context_edit with a
    null replacement), compacting ("overflow") and retrying: SessionLens replays the retried
    request exactly, without the hidden attempt, and names the trigger."""
    t = load_transcript(overflow.session_file)
    edits = [e for e in t.entries if e.type == "context_edit"]
    assert len(edits) == 1 and edits[0].replacement is None
    hidden = t.entry(edits[0].target_id or "")
    assert hidden.message is not None and hidden.message.stop_reason == "error"
    comp = next(i for i, e in enumerate(t.entries) if e.type == "compaction")
    upto = build_transcript(t.path, t.format, t.header, t.entries[:comp + 1], ())
    assert hidden.id not in {m.entry_id for m in context_messages(upto)}
    retried, after = overflow.after_compaction
    for sub, index in ((upto, retried), (_prefix_until_next_user(t, t.entries[comp].id), after)):
        sent = _wire(overflow.requests[index])
        mine = _as_sent(sub)
        assert [(r, c) for r, _, c in mine] == [(r, c) for r, _, c in sent]
        for (_, text, _), (_, theirs, _) in zip(mine, sent, strict=True):
            assert text in theirs if theirs.startswith(SUMMARY_PREFIX) else text == theirs
    opened = open_transcript(overflow.session_file)
    found = analyze_compactions(opened.transcript, opened.resolved.settings)
    assert [f.trigger for f in found] == ["overflow-retry"]
