"""SessionLens reads what Codex 0.171.0 wrote as Codex did it: records, triggers, window,
summary, and a replayed context equal to the request Codex sent after each compaction.

The committed scenario (``fixtures/agents/codex-0.171.0/scenario``) runs without the binary;
the slow test runs the binary on three scenario lengths and checks the same."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agents.codex_checks import (
    FIXTURE,
    cuts_after_compactions,
    load_prefix,
    replay_matches,
    rollout_lines,
)
from agents.drivers import codex
from sessionlens.engine.agents.codex.compacted import SUMMARY_PREFIX
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.model import Transcript
from sessionlens.engine.opened import resolve_settings

ROLLOUT = FIXTURE / "rollout.jsonl"


def _requests(folder: Path = FIXTURE) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (folder / "requests.jsonl").read_text().splitlines()]


@pytest.fixture(scope="module")
def scenario() -> Transcript:
    return load_transcript(ROLLOUT)


def test_new_record_kinds_are_read_not_dropped(scenario: Transcript) -> None:
    raw = rollout_lines(ROLLOUT)
    kinds = {"world_state": sum(o["type"] == "world_state" for o in raw),
             "token_usage_record": sum(o["type"] == "token_usage_record" for o in raw),
             "thread_settings_applied": sum(o["payload"].get("type") == "thread_settings_applied"
                                            for o in raw if o["type"] == "event_msg"),
             "item_completed": sum(o["payload"].get("type") == "item_completed"
                                   for o in raw if o["type"] == "event_msg")}
    assert all(kinds.values())
    got = {k: sum(e.type == k for e in scenario.entries) for k in kinds}
    assert got == kinds
    usage = [e.extra["usage"]["total_tokens"] for e in scenario.entries
             if e.type == "token_usage_record"]
    assert usage == [o["payload"]["usage"]["total_tokens"] for o in raw
                     if o["type"] == "token_usage_record"]
    settings = next(e for e in scenario.entries if e.type == "thread_settings_applied")
    assert (settings.extra["model"], settings.extra["model_provider_id"]) == ("m", "local")
    assert scenario.diagnostics == ()


def test_triggers_are_codex_own(scenario: Transcript) -> None:
    sent = [r["trigger"] for r in _requests() if r["kind"] == "compaction"]
    assert sent == ["manual", "auto"]
    assert [c.extra["trigger"] for c in scenario.compactions] == sent


def test_tokens_before_is_the_context_not_the_summarizer_call(scenario: Transcript) -> None:
    raw = rollout_lines(ROLLOUT)
    outputs = [i for i, o in enumerate(raw) if (o.get("metadata") or {}).get("compaction_output")]
    before = [[o["payload"]["info"]["last_token_usage"]["total_tokens"] for o in raw[:i]
               if o["type"] == "event_msg" and o["payload"]["type"] == "token_count"][-1]
              for i in outputs]
    assert [c.tokens_before for c in scenario.compactions] == before
    # the automatic one fired on the turn that reported AUTO_PUSH input tokens
    assert before[1] >= codex.AUTO_PUSH
    summarizer = [c.extra["summarizer_usage"]["total_tokens"] for c in scenario.compactions]
    assert all(s < b for s, b in zip(summarizer, before, strict=True))


def test_the_window_is_the_recorded_one(scenario: Transcript) -> None:
    resolved = resolve_settings(scenario)
    assert resolved.window == 258_400
    assert "recorded in the file" in resolved.context_window.source


def test_the_summary_is_the_message_not_the_kept_messages(scenario: Transcript) -> None:
    raw = [o["payload"] for o in rollout_lines(ROLLOUT) if o["type"] == "compacted"]
    for comp, payload, body in zip(scenario.compactions, raw,
                                   (codex.SUMMARY_MANUAL, codex.SUMMARY_AUTO), strict=True):
        assert comp.summary == payload["message"] == f"{SUMMARY_PREFIX}\n{body}"
        assert comp.extra["summary_body_chars"] == len(body)
        assert "Show me notes.txt." not in (comp.summary or "")


def test_the_error_turn_and_the_tool_round_trip(scenario: Transcript) -> None:
    errors = [e.message for e in scenario.entries
              if e.message is not None and e.message.stop_reason == "error"]
    assert len(errors) == 1 and errors[0].error_message
    calls = [b for e in scenario.entries if e.message is not None for b in e.message.tool_calls]
    results = [e.message for e in scenario.entries
               if e.message is not None and e.message.role == "toolResult"]
    assert [c.name for c in calls] == ["exec_command"]
    assert [r.tool_call_id for r in results] == [calls[0].id] and "alpha" in results[0].text


def test_replay_after_each_compaction_is_what_codex_sent(tmp_path: Path) -> None:
    after = [r for r in _requests() if r["kind"] == "turn"]
    cuts = cuts_after_compactions(ROLLOUT)
    assert len(cuts) == len(after) == 2
    for n, (cut, request) in enumerate(zip(cuts, after, strict=True)):
        t = load_prefix(ROLLOUT, cut, tmp_path / str(n))
        assert replay_matches(t, request["input"]) == []


@pytest.mark.slow
@pytest.mark.skipif(not codex.available(), reason="codex binary not installed")
@pytest.mark.parametrize("n_extra", [0, 3, 6])
def test_fresh_runs_replay_as_codex_sent(tmp_path: Path, n_extra: int) -> None:
    run = codex.run_scenario(tmp_path / "run", n_extra=n_extra, extra_words=400 * n_extra)
    t = load_transcript(run.rollout)
    assert [c.extra["trigger"] for c in t.compactions] == [
        codex.compaction_trigger(run.requests[i]) for i in run.compactions]
    for n, (cut, i) in enumerate(zip(cuts_after_compactions(run.rollout), run.after,
                                     strict=True)):
        prefix = load_prefix(run.rollout, cut, tmp_path / str(n))
        assert replay_matches(prefix, codex.input_texts(run.requests[i])) == []
