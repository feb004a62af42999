"""Which trigger makes a compaction due: threshold, overflow, size guard, precheck, manual."""

from __future__ import annotations

from dataclasses import replace

import pytest

from fixtures.factories import TranscriptBuilder, text_of
from sessionlens.engine.model import Transcript
from sessionlens.engine.plan.planner import plan_compaction
from sessionlens.engine.plan.triggers import (
    DueTrigger,
    active_window_bytes,
    due_trigger,
    ends_mid_turn,
    format_bytes,
)
from sessionlens.engine.settings import CompactionSettings

CFG = CompactionSettings(context_window=50_000, reserve_tokens=10_000, reserve_tokens_floor=0,
                         keep_recent_tokens=100)  # threshold 40,000


def _sized(b: TranscriptBuilder, size: int = 1000) -> Transcript:
    """Every entry ``size`` bytes long on disk (the builder writes no file)."""
    return b.build(line_bytes=size)


def _session(last_usage: int, turns: int = 4) -> TranscriptBuilder:
    b = TranscriptBuilder()
    for k in range(turns):
        b.user(text_of(50))
        b.assistant(text_of(50), usage=last_usage if k == turns - 1 else 1_000)
    return b


def _due(t: Transcript, settings: CompactionSettings = CFG, manual: bool = False) -> DueTrigger:
    # written for the rule that was the default then (tool-frames, the old "openclaw-2026")
    return due_trigger(t, plan_compaction(t, settings, manual=manual, cut_rule="tool-frames",
                                          keep_recent_tokens=100 if manual else None), settings)


def test_over_the_threshold_is_the_threshold_trigger() -> None:
    due = _due(_session(45_000).build())
    assert due.kind == "threshold" and due.holding == ("threshold",)
    assert "45,000" in due.reason and "40,000" in due.reason


def test_under_everything_is_none() -> None:
    due = _due(_session(20_000).build())
    assert due.kind == "none" and due.holding == ()
    assert "under the threshold 40,000" in due.reason


def test_the_size_guard_fires_under_the_threshold() -> None:
    t = _sized(_session(20_000))
    assert active_window_bytes(t.path_entries()) == 8 * 1001
    cfg = replace(CFG, truncate_after_compaction=True)
    off = _due(t, replace(cfg, max_active_transcript_bytes=8 * 1001 + 1))
    on = _due(t, replace(cfg, max_active_transcript_bytes=8 * 1001))
    assert off.kind == "none" and on.kind == "size"
    assert on.active_bytes == 8008 and on.max_active_bytes == 8008
    assert "maxActiveTranscriptBytes" in on.reason


def test_without_truncate_after_compaction_the_size_guard_does_not_fire() -> None:
    """OpenClaw's size guard needs truncateAfterCompaction: over the size, nothing is due,
    and the reason says why (not "compacted before the next turn")."""
    t = _sized(_session(20_000))
    due = _due(t, replace(CFG, max_active_transcript_bytes=10))
    assert due.kind == "none" and due.holding == ()
    assert "compacted before the next turn" not in due.reason
    assert "needs truncateAfterCompaction: true, so it does not fire" in due.reason


def test_threshold_comes_before_size_but_both_are_listed() -> None:
    t = _sized(_session(45_000))
    due = _due(t, replace(CFG, max_active_transcript_bytes=10, truncate_after_compaction=True))
    assert due.kind == "threshold" and due.holding == ("threshold", "size")


def test_the_active_window_starts_at_the_kept_tail_of_the_last_compaction() -> None:
    b = _session(1_000, turns=3)
    keep = b.user(text_of(10))
    b.assistant("ok", usage=2_000)
    b.compaction("sum", first_kept=keep.id)
    b.user("after")
    t = _sized(b, 100)
    # kept user + assistant + compaction + the new user message
    assert active_window_bytes(t.path_entries()) == 4 * 101
    hard = TranscriptBuilder()
    hard.user("a")
    hard.assistant("b")
    hard.compaction("sum")  # nothing kept: the window starts at the compaction
    hard.user("c")
    assert active_window_bytes(_sized(hard, 10).path_entries()) == 2 * 11


def test_an_overflow_error_at_the_end_is_the_overflow_trigger() -> None:
    b = _session(30_000)
    b.user(text_of(50))
    err = b.assistant("", stop_reason="error",
                      error_message="400 prompt is too long: 210000 tokens > 200000 maximum")
    due = _due(b.build())
    assert due.kind == "overflow" and due.overflow_entry_id == err.id


def test_mid_turn_precheck_only_when_enabled_and_after_tool_results() -> None:
    b = _session(30_000)
    b.user(text_of(50))
    call = b.call("read", path="/big")
    b.assistant("reading", call, usage=39_000)
    b.result(call, text_of(5_000))  # pushes the next call over 40,000
    t = b.build()
    assert ends_mid_turn(t.path_entries())
    plain = _due(t)
    checked = _due(t, replace(CFG, mid_turn_precheck_enabled=True))
    # the agents' threshold check reads the last assistant's usage (39,000: not over);
    # only the precheck sees the pending result push the next call over the threshold
    assert plain.kind == "none" and checked.kind == "mid-turn-precheck"
    assert checked.holding == ("mid-turn-precheck",)


def test_manual_says_manual_and_why_it_would_not_fire_on_its_own() -> None:
    due = _due(_session(20_000).build(), manual=True)
    assert due.kind == "manual" and "no automatic trigger holds" in due.reason
    due = _due(_session(45_000).build(), manual=True)
    assert due.kind == "manual" and due.holding == ("threshold",)


@pytest.mark.parametrize(("n", "text"), [(512, "512 B"), (2048, "2.0 KiB"),
                                         (20 * 1024 ** 2, "20.0 MiB"), (3 * 1024 ** 3, "3.0 GiB")])
def test_format_bytes(n: int, text: str) -> None:
    assert format_bytes(n) == text
