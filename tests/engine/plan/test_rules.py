"""Which agent wrote a file, the rule it gets by default, and what the plan says about it."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from fixtures.agent_lines import META, TURN, asst, cc_load, cx_load, event, text_msg, user
from fixtures.factories import TranscriptBuilder, text_of, usage_row
from fixtures.samples import sample_path
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.model import Transcript
from sessionlens.engine.plan.planner import plan_compaction
from sessionlens.engine.plan.rules import (
    CUT_RULES,
    DEFAULT_CUT_RULE,
    default_cut_rule,
    file_agent,
    rule_label,
    rule_note,
)
from sessionlens.engine.settings import CompactionSettings

SMALL = CompactionSettings(keep_recent_tokens=50, context_window=100_000)


def _session(path: str = "/tmp/x/s.jsonl") -> TranscriptBuilder:
    b = TranscriptBuilder(path=path)
    for _ in range(3):
        b.user(text_of(100))
        b.assistant(text_of(100), usage=5_000)
    return b


def _at(path: str) -> Transcript:
    return replace(_session().build(), path=Path(path))


def test_every_rule_is_named_by_agent_and_version_and_described() -> None:
    assert set(CUT_RULES) == {"pi-1.6", "pi-0.73", "pi-0.58", "openclaw-2026.9", "pi-2025.12",
                              "tool-frames", "claude-code-2.1", "codex-0.17"}
    for name, info in CUT_RULES.items():
        assert info.name == name and info.description and info.source
        if info.agent != "sessionlens":
            assert re.fullmatch(rf"{info.agent}-\d{{4}}\.\d+|{info.agent}-\d\.\d+", name)
    assert "0.58.3" in CUT_RULES["pi-0.58"].source
    # each pi rule says which releases it covers
    assert "1.6.0" in CUT_RULES["pi-1.6"].source and "1.6.x" in CUT_RULES["pi-1.6"].source
    assert "0.63.1 to 0.73.1" in CUT_RULES["pi-0.73"].source
    assert "2026.9.6" in CUT_RULES["openclaw-2026.9"].source
    assert "2.1.332" in CUT_RULES["claude-code-2.1"].source
    assert "0.171.0" in CUT_RULES["codex-0.17"].source
    assert DEFAULT_CUT_RULE in CUT_RULES


@pytest.mark.parametrize(("path", "agent"), [
    ("/home/u/.openclaw/agents/main/sessions/abc.jsonl", "openclaw"),
    ("/srv/state/agents/ops/sessions/abc.jsonl", "openclaw"),
    ("/home/u/.clawdbot/sessions/abc.jsonl", "openclaw"),
    ("/home/u/.pi/agent/sessions/--home-u-proj--/2026-01-01T00-00-00-000Z_abc.jsonl", "pi"),
    ("/backup/sessions/--home-u-proj--/x.jsonl", "pi"),
    ("/tmp/anywhere/x.jsonl", "pi"),
])
def test_v3_files_are_told_apart_by_their_folder(path: str, agent: str) -> None:
    guess = file_agent(_at(path))
    assert guess.agent == agent and guess.reason


def test_v3_files_are_told_apart_by_what_only_openclaw_writes() -> None:
    assert file_agent(_session().build()).agent == "pi"
    assert file_agent(_session().build(), store_beside=True).agent == "openclaw"
    hook = _session()
    hook.compaction(from_hook=True)
    assert "fromHook" in file_agent(hook.build()).reason
    reset = _session()
    reset.reset()
    assert file_agent(reset.build()).agent == "openclaw"
    snap = _session()
    snap.add("custom", customType="model-snapshot", data={})
    assert "model-snapshot" in file_agent(snap.build()).reason
    usage = _session()
    e = usage.entries[-1]
    assert e.message is not None
    usage.lines[-1]["message"]["usage"] = dict(  # Usage(input=10, total 10, context 12)
        usage_row(10), contextUsage={"state": "available", "totalTokens": 12})
    assert file_agent(usage.build()).agent == "openclaw"
    # the folder wins over content
    pi_dir = replace(hook.build(), path=Path("/h/.pi/agent/sessions/--p--/x.jsonl"))
    assert file_agent(pi_dir).agent == "pi"


def test_claude_code_and_codex_files_get_their_own_rules() -> None:
    cc = cc_load(user("u1", None, "hello " * 400), asst("a1", "u1", [{"type": "text", "text":
                                                                          "hi " * 400}]),
                 user("u2", "a1", "more " * 400),
                 asst("a2", "u2", [{"type": "text", "text": "ok " * 400}], mid="m2"))
    assert file_agent(cc).agent == "claude-code"
    plan = plan_compaction(cc, SMALL)
    assert plan.file_agent == "claude-code" and plan.cut_rule == "claude-code-2.1"
    assert plan.rule_note == "" and plan.kept_entry_ids == ("a2",)
    other = plan_compaction(cc, SMALL, cut_rule="openclaw-2026.9")
    assert "Claude Code file planned with the openclaw-2026.9 rule" in other.rule_note
    cx = cx_load(META, TURN, text_msg("user", "x"), event("task_started"))
    # Codex files get Codex's own rule; another rule is named as not theirs
    assert file_agent(cx).agent == "codex" and default_cut_rule(cx) == "codex-0.17"
    assert rule_note("codex-0.17", "codex") == ""
    assert "Codex file planned with the openclaw-2026.9 rule" in rule_note(
        "openclaw-2026.9", "codex")


def test_the_default_rule_follows_the_file_and_the_note_says_when_it_does_not() -> None:
    pi = _session().build()
    oc = _session(path="/h/.openclaw/agents/main/sessions/s.jsonl").build()
    assert default_cut_rule(pi) == "pi-1.6" and default_cut_rule(oc) == "openclaw-2026.9"
    own = plan_compaction(pi, SMALL)
    assert own.cut_rule == "pi-1.6" and own.file_agent == "pi" and own.rule_note == ""
    other = plan_compaction(pi, SMALL, cut_rule="openclaw-2026.9")
    assert "pi file planned with the openclaw-2026.9 rule" in other.rule_note
    assert "SessionLens's own" in rule_note("tool-frames", "openclaw")
    forced = plan_compaction(pi, replace(SMALL, cut_rule="tool-frames"))
    assert forced.cut_rule == "tool-frames"
    assert rule_label("openclaw-2026.9", "openclaw") == "openclaw-2026.9 (default for OpenClaw files)"
    assert rule_label("tool-frames", "pi") == "tool-frames (chosen; the default for pi files is pi-1.6)"
    assert rule_label("claude-code-2.1", "claude-code") == (
        "claude-code-2.1 (default for Claude Code files)")


@pytest.mark.samples
@pytest.mark.parametrize(("prefix", "agent"), [
    ("01_", "pi"), ("03_", "openclaw"), ("04_", "openclaw"), ("07_", "claude-code"),
    ("09_", "codex")])
def test_the_samples(samples_dir: Path, prefix: str, agent: str) -> None:
    assert file_agent(load_transcript(sample_path(samples_dir, prefix))).agent == agent
