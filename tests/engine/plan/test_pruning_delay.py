"""How much later pruning makes the compaction: tokens and turns the trigger moves."""

from __future__ import annotations

import math

import pytest

from fixtures.agent_lines import asst, cc_load, result, tool_use, user
from fixtures.factories import TranscriptBuilder, text_of
from sessionlens.engine.plan.pruning import PRUNED_MARKER
from sessionlens.engine.plan.pruning_delay import pruning_delay
from sessionlens.engine.settings import CompactionSettings
from sessionlens.engine.tokens.counts import estimate_entry_tokens

CFG = CompactionSettings(context_window=50_000, reserve_tokens=10_000, reserve_tokens_floor=0)
MARKER = math.ceil(len(PRUNED_MARKER) / 4)


def _session(last_usage: int, turns: int = 5, result_size: int = 2_000) -> TranscriptBuilder:
    b = TranscriptBuilder()
    for k in range(turns):
        b.user(text_of(10))
        c = b.call("read", path=f"/f{k}")
        b.assistant(text_of(10), c)
        b.result(c, text_of(result_size))
        b.assistant(text_of(10), usage=last_usage if k == turns - 1 else None)
    return b


def test_pruning_moves_the_trigger_by_what_it_saves() -> None:
    t = _session(41_000).build()
    d = pruning_delay(t, CFG, keep_turns=3)
    saved = 2 * (2_000 - MARKER)
    assert d.delay_tokens == d.preview.tokens_saved == saved
    assert d.context_tokens == 41_000 and d.pruned_context_tokens == 41_000 - saved
    assert d.threshold == 40_000
    assert d.due_without_pruning and not d.due_with_pruning  # pruning alone avoids it
    assert d.headroom_tokens == 0 and d.pruned_headroom_tokens == 40_000 - (41_000 - saved)
    per_turn = sum(estimate_entry_tokens(e) for e in t.entries) / 5  # ~2,000 of them results
    assert 2_030 <= per_turn < 2_100 and d.growth_per_turn == pytest.approx(per_turn)
    assert d.turns_gained == pytest.approx(saved / per_turn)


def test_a_plan_can_pass_its_own_numbers() -> None:
    d = pruning_delay(_session(10_000).build(), CFG, context_window=100_000,
                      context_tokens=95_000)
    assert d.threshold == 90_000 and d.context_tokens == 95_000
    assert d.due_without_pruning and d.due_with_pruning  # 2 results do not save 5,000


def test_no_user_turn_means_no_turn_estimate() -> None:
    b = TranscriptBuilder()
    b.assistant("hello", usage=100)
    d = pruning_delay(b.build(), CFG)
    assert d.growth_per_turn is None and d.turns_gained is None and d.delay_tokens == 0


def test_another_agents_file_is_said_not_to_prune_this_way() -> None:
    """Session pruning is OpenClaw's: a Claude Code file's preview says whose figures these are."""
    t = cc_load(user("u1", None, "read it"), asst("a1", "u1", [tool_use("t1")]),
                user("r1", "a1", [result("t1", "x" * 4000)]),
                asst("a2", "r1", [{"type": "text", "text": "done"}]))
    d = pruning_delay(t, CompactionSettings(context_window=50_000))
    assert d.agent == "Claude Code"
    assert d.agent_note is not None and d.agent_note.startswith(
        "Claude Code does not prune tool results this way: session pruning is an OpenClaw "
        "feature")
    oc = pruning_delay(TranscriptBuilder().build(), CompactionSettings(context_window=50_000))
    assert oc.agent == "OpenClaw" and oc.agent_note is None
