"""claude-code-2.1: the newest API round kept (rows of one response together), the region
from what the last compaction kept, the threshold Claude Code compacts at."""

from __future__ import annotations

from fixtures.agent_lines import asst, cc_load, result, tool_use, user
from sessionlens.engine.agents.claude_code.rule_2_1 import (
    claude_code_prepare,
    claude_code_threshold,
)
from sessionlens.engine.plan.planner import plan_compaction
from sessionlens.engine.settings import DEFAULT_SETTINGS


def test_threshold_is_the_window_less_the_summary_buffer_or_its_override_percent() -> None:
    assert claude_code_threshold(1_000_000) == 980_000
    assert claude_code_threshold(200_000, max_output_tokens=8_000) == 192_000
    assert claude_code_threshold(1_000_000, pct_override=1) == 9_800
    assert claude_code_threshold(1_000_000, pct_override=0) == 980_000


def test_the_newest_round_is_kept_with_every_row_of_its_response() -> None:
    t = cc_load(
        user("u1", None, "first"),
        asst("a1", "u1", [{"type": "text", "text": "one"}], mid="m1"),
        user("u2", "a1", "second"),
        asst("a2", "u2", [{"type": "text", "text": "thinking aloud"}], mid="m2"),
        asst("a3", "a2", [tool_use("t1")], mid="m2"),          # same response, second row
        user("r1", "a3", [result("t1")]),
    )
    plan = plan_compaction(t, DEFAULT_SETTINGS, manual=True)
    kept = [i for i in plan.kept_entry_ids if t.entry(i).type == "message"]
    assert kept == ["a2", "a3", "r1"]
    assert not plan.hard_boundary and plan.first_kept_entry_id == "a2"
    assert {"u1", "a1", "u2"} <= set(plan.summarize_entry_ids)


def test_one_round_is_not_enough_to_compact() -> None:
    t = cc_load(user("u1", None, "first"))
    prep = claude_code_prepare(t.path_entries(), [1])
    assert prep.cut is None and "two API rounds" in (prep.nothing or "")
