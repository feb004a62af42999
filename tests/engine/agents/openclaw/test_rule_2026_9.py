"""openclaw 2026.9's own rules, case by case (the differential tests check them against its code)."""

from __future__ import annotations

import pytest

from fixtures.factories import TranscriptBuilder, text_of
from sessionlens.engine.agents.openclaw.rule_2026_9 import (
    openclaw_estimate_context,
    openclaw_find_cut_point,
    openclaw_prepare,
    openclaw_usage_tokens,
)
from sessionlens.engine.errors import PlanError
from sessionlens.engine.model import Entry, Message, TextBlock, Usage
from sessionlens.engine.plan.planner import plan_compaction
from sessionlens.engine.settings import CompactionSettings
from sessionlens.engine.tokens.counts import estimate_entry_tokens

OC = "openclaw-2026.9"


def _path(b: TranscriptBuilder) -> list[Entry]:
    return list(b.build().path_entries())


def _est(path: list[Entry]) -> list[int]:
    return [estimate_entry_tokens(e, "openclaw") for e in path]


def _turns(b: TranscriptBuilder, n: int, usage: int | None = None) -> None:
    for _ in range(n):
        b.user(text_of(1_000))
        b.assistant(text_of(1_000), usage=usage)


def test_keep_recent_is_divided_by_reported_over_estimated() -> None:
    plain, heavy = TranscriptBuilder(), TranscriptBuilder()
    _turns(plain, 6)
    _turns(heavy, 6, usage=48_000)  # the provider counts 4x the 12,000 estimated tokens
    keep = 4_000
    a = openclaw_prepare(_path(plain), keep, _est(_path(plain)))
    b = openclaw_prepare(_path(heavy), keep, _est(_path(heavy)))
    assert a.keep_used == keep and b.keep_used == pytest.approx(keep / 4)
    assert a.cut is not None and b.cut is not None
    assert b.cut.first_kept_index > a.cut.first_kept_index  # fewer estimated tokens kept
    plan = plan_compaction(heavy.build(), CompactionSettings(keep_recent_tokens=keep),
                           cut_rule=OC)
    assert plan.keep_recent_applied == pytest.approx(1_000)
    assert "divided keepRecentTokens 4,000 by reported/estimated 4.00" in plan.cut_reason


def test_manual_compact_cuts_again_with_zero_when_everything_would_be_kept() -> None:
    b = TranscriptBuilder()
    _turns(b, 2)
    cfg = CompactionSettings(keep_recent_tokens=20_000)
    with pytest.raises(PlanError, match="Nothing to compact: the whole region is kept"):
        plan_compaction(b.build(), cfg, cut_rule=OC)
    plan = plan_compaction(b.build(), cfg, cut_rule=OC, manual=True, hard_boundary=False)
    assert plan.first_kept_entry_id == b.entries[-1].id  # the newest cut point
    assert "cut again with 0" in plan.cut_reason and not plan.hard_boundary


def test_the_region_starts_at_what_the_previous_compaction_kept() -> None:
    b = TranscriptBuilder()
    _turns(b, 3)
    kept = b.entries[2]
    comp = b.compaction("old", first_kept=kept.id)
    b.user(text_of(10))
    b.assistant(text_of(10))
    cfg = CompactionSettings(keep_recent_tokens=500)
    pi = pytest.raises(PlanError, match="Nothing to compact")
    with pi:  # pi: only 20 tokens after the compaction
        plan_compaction(b.build(), cfg, cut_rule="pi-0.58")
    plan = plan_compaction(b.build(), cfg, cut_rule=OC)
    assert plan.summarize_entry_ids[0] == kept.id and comp.id not in plan.summarize_entry_ids
    assert plan.previous_summary == "old"


def test_a_hook_compaction_or_reset_last_stops_it_but_another_compaction_does_not() -> None:
    b = TranscriptBuilder()
    _turns(b, 3)
    b.compaction("by a hook", first_kept=b.entries[2].id, from_hook=True)
    assert openclaw_prepare(_path(b), 100, _est(_path(b))).refused
    del b.lines[-1]["fromHook"]  # the same compaction, not written by a hook
    prep = openclaw_prepare(_path(b), 100, _est(_path(b)))
    assert not prep.refused and prep.cut is not None and prep.region_start == 2
    b.reset()
    assert openclaw_prepare(_path(b), 100, _est(_path(b))).refused


def test_a_reset_summarizes_what_it_retained_first() -> None:
    b = TranscriptBuilder()
    u = b.user(text_of(50))
    b.bash("ls", text_of(50))  # not retained by a reset
    call = b.call("read", path="/a")
    a = b.assistant(text_of(50), call)
    r = b.result(call, text_of(50))
    stray = b.result("call_nowhere", text_of(50))  # pairs with nothing: dropped
    reset = b.reset("idle", firstKeptEntryId=u.id)
    _turns(b, 2)
    plan = plan_compaction(b.build(), CompactionSettings(keep_recent_tokens=1_500), cut_rule=OC)
    assert plan.summarize_entry_ids[:3] == (u.id, a.id, r.id)
    assert stray.id not in plan.summarize_entry_ids and plan.previous_summary is None
    assert plan.boundary_entry_id == reset.id


def test_cut_lands_before_a_trailing_result_and_excluded_bash_is_no_cut() -> None:
    b = TranscriptBuilder()
    b.user(text_of(100))
    call = b.call("read", path="/a")
    a = b.assistant(text_of(10), call)
    b.result(call, text_of(900))
    path = _path(b)
    cut = openclaw_find_cut_point(path, 0, len(path), 500, _est(path))
    assert path[cut.first_kept_index].id == a.id and cut.is_split_turn
    b2 = TranscriptBuilder()
    b2.user(text_of(100))
    b2.bash("ls", text_of(500), exclude=True)
    b2.assistant(text_of(10))
    p2 = _path(b2)
    cut2 = openclaw_find_cut_point(p2, 0, len(p2), 5, _est(p2))
    assert p2[cut2.first_kept_index].role == "assistant" and cut2.turn_start_index == 0


def test_usage_reading() -> None:
    assert openclaw_usage_tokens(Usage(input=10, total_tokens=99, context_usage=500)) == 500
    b = TranscriptBuilder()
    b.user(text_of(10))
    b.message(Message(role="assistant", content=(TextBlock("x"),), usage=Usage(),
                      stop_reason="stop"))  # zero usage: skipped, unlike pi
    b.user(text_of(10))
    path = _path(b)
    assert openclaw_estimate_context(path, _est(path)) == (sum(_est(path)), 0, None)
    b.message(Message(role="assistant", content=(TextBlock("y"),), api="cli",
                      usage=Usage(total_tokens=7), stop_reason="stop"))
    path = _path(b)
    # a cli assistant without contextUsage ends the search: everything is estimated
    assert openclaw_estimate_context(path, _est(path))[2] is None
