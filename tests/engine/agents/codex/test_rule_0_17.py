"""``codex-0.17``: Codex's compaction as a plan (the binary checks are in tests/agents)."""

from __future__ import annotations

from pathlib import Path

from fixtures.agent_lines import CX_SID, META, event, item, rec, text_msg, usage
from fixtures.agent_lines import cx_load as load
from sessionlens.engine.agents.codex.parse import codex_config_limit
from sessionlens.engine.agents.codex.rule_0_17 import (
    KEEP_USER_TOKENS,
    approx_tokens,
    auto_compact_limit,
    codex_keep,
    truncate_middle,
)
from sessionlens.engine.opened import resolve_settings
from sessionlens.engine.plan.planner import plan_compaction


def test_approx_tokens_and_truncation_as_codex_counts_them() -> None:
    assert approx_tokens("") == 0 and approx_tokens("abcde") == 2 and approx_tokens("é") == 1
    head, mark, tail = truncate_middle("x" * 100, 10)
    assert (len(head), len(tail), mark) == (20, 20, "…15 tokens truncated…")
    assert truncate_middle("short", 10) == ("short",)


def test_recent_user_messages_are_kept_up_to_the_budget_the_oldest_cut() -> None:
    big = "w" * (4 * 9_000)               # 9,000 tokens each
    t = load(META, text_msg("user", "first"), text_msg("assistant", "a"),
             text_msg("user", "<environment_context>x</environment_context>"),
             text_msg("user", big), text_msg("user", big), text_msg("user", big + "!"),
             text_msg("user", "last"))
    users = [e for e in t.entries if e.message is not None]
    keep = codex_keep(users)
    ids = [e.id for e in users]
    # newest first: "last" (1), the 9,001 and 9,000 ones, then 1,998 of the oldest big one
    assert keep.entry_ids == tuple(ids[-4:]) and keep.truncated_id == ids[-4]
    assert keep.tokens == KEEP_USER_TOKENS and keep.truncated_to == 20_000 - 1 - 9_001 - 9_000


def test_default_limit_is_ninety_percent_of_the_model_window() -> None:
    assert auto_compact_limit(None, 258_400) == (244_800, auto_compact_limit(None, 258_400)[1])
    assert "90%" in auto_compact_limit(None, 258_400)[1]


def test_the_limit_comes_from_the_codex_home_config(tmp_path: Path) -> None:
    day = tmp_path / "sessions" / "2026" / "12" / "04"
    day.mkdir(parents=True)
    rollout = day / f"rollout-2026-12-04T00-00-00-{CX_SID}.jsonl"
    (tmp_path / "config.toml").write_text('model = "m"\nmodel_auto_compact_token_limit = 500\n')
    assert codex_config_limit(rollout) == (500, f"model_auto_compact_token_limit in "
                                                f"{tmp_path / 'config.toml'}")
    assert codex_config_limit(tmp_path / "elsewhere.jsonl") is None
    t = load(META, text_msg("user", "hi"), text_msg("assistant", "ok"),
             event("token_count", info=usage(600)), path=rollout)
    plan = plan_compaction(t, resolve_settings(t).settings)
    assert plan.threshold == 500 and plan.should_compact      # 600 >= 500


def test_the_whole_history_is_summarized_and_a_long_one_shrinks() -> None:
    long = "detail " * 4000                 # an assistant turn Codex does not keep
    t = load(META, item("message", role="developer",
                        content=[{"type": "input_text", "text": "rules"}]),
             text_msg("user", "<environment_context>x</environment_context>"),
             text_msg("user", "do it"), text_msg("assistant", long),
             event("token_count", info=usage(29_171)), text_msg("user", "and then?"))
    plan = plan_compaction(t, resolve_settings(t).settings)
    assert plan.cut_rule == "codex-0.17" and plan.hard_boundary and plan.kept_entry_ids == ()
    msgs = [e.id for e in t.entries if e.message is not None]
    assert set(msgs) <= set(plan.summarize_entry_ids)
    assert [t.entry(i).message.text for i in plan.copied_entry_ids] == [  # type: ignore[union-attr]
        "do it", "and then?"]
    assert plan.threshold == 244_800 and not plan.should_compact
    assert plan.predicted_tokens_after < plan.tokens_before


def test_nothing_to_plan_right_after_a_compaction() -> None:
    t = load(META, text_msg("user", "x"), rec("compacted", message="S"))
    try:
        plan_compaction(t, resolve_settings(t).settings)
    except Exception as exc:  # noqa: BLE001 - the engine's NothingToCompact
        assert "Already compacted" in str(exc)
    else:
        raise AssertionError("a plan right after a compaction")
