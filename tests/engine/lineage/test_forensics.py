"""Forensics of compactions already in a transcript: context, trigger, flags."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import pytest

from fixtures.factories import TranscriptBuilder, text_of
from fixtures.openclaw_store import unpack_store
from fixtures.samples import sample_path
from sessionlens.engine.lineage.forensics import analyze_compactions
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.opened import open_transcript
from sessionlens.engine.settings import CompactionSettings
from sessionlens.engine.tokens.counts import estimate_entry_tokens

CFG = CompactionSettings(context_window=50_000, reserve_tokens=10_000, reserve_tokens_floor=0)


def _turn(b: TranscriptBuilder, usage: int, size: int = 100) -> str:
    u = b.user(text_of(size))
    b.assistant(text_of(size), usage=usage)
    return u.id


def test_threshold_trigger_and_numbers() -> None:
    b = TranscriptBuilder()
    _turn(b, 20_000)
    keep = _turn(b, 45_000)
    b.compaction(text_of(50), first_kept=keep, tokens_before=45_000)
    (f,) = analyze_compactions(b.build(), CFG)
    assert f.trigger == "threshold" and f.overflow_entry_id is None
    assert f.reported_context_tokens == 45_000 == f.context_tokens == f.recorded_tokens_before
    assert f.threshold == 40_000 and f.context_window == 50_000
    assert f.threshold_share == pytest.approx(45_000 / 40_000)
    assert f.utilisation == pytest.approx(45_000 / 50_000)
    assert f.estimated_context_tokens == 400  # four messages of 100
    assert f.replaced_tokens == 200 and f.summary_tokens == 50
    assert f.flags == () and f.on_active_path and not f.hard_boundary


def test_manual_far_below_threshold_is_flagged() -> None:
    b = TranscriptBuilder()
    _turn(b, 5_000)
    b.compaction(text_of(10))  # hard boundary: first kept = itself
    (f,) = analyze_compactions(b.build(), CFG)
    assert f.trigger == "manual" and f.hard_boundary
    assert f.replaced_tokens == 200
    assert "far-below-threshold" in f.flags and "summary-not-smaller" not in f.flags


def test_overflow_retry_is_recognised_through_retries_and_metadata() -> None:
    b = TranscriptBuilder()
    _turn(b, 30_000)
    b.user(text_of(100))
    err = b.assistant("", stop_reason="error",
                      error_message="400 prompt is too long: 210000 tokens > 200000 maximum")
    b.model_change()
    b.compaction(text_of(10))
    (f,) = analyze_compactions(b.build(), CFG)
    assert f.trigger == "overflow-retry" and f.overflow_entry_id == err.id
    assert "far-below-threshold" not in f.flags  # an overflow is never "too early"


def test_an_unrelated_error_is_not_an_overflow() -> None:
    b = TranscriptBuilder()
    _turn(b, 45_000)
    b.assistant("", stop_reason="error", error_message="429 rate limit exceeded")
    b.compaction(text_of(10))
    (f,) = analyze_compactions(b.build(), CFG)
    assert f.trigger == "threshold"


def test_summary_not_smaller_and_growth_across_the_chain() -> None:
    b = TranscriptBuilder()
    _turn(b, 45_000, size=50)
    first = b.compaction(text_of(200))  # replaces 100 tokens with 200
    _turn(b, 46_000, size=1_000)
    second = b.compaction(text_of(400))
    _turn(b, 47_000, size=1_000)
    third = b.compaction(text_of(420))
    f1, f2, f3 = analyze_compactions(b.build(), CFG)
    assert f1.compaction_id == first.id and "summary-not-smaller" in f1.flags
    assert f2.previous_compaction_id == first.id and f2.previous_summary_tokens == 200
    assert f2.replaced_tokens == 200 + 2_000  # the previous summary plus the new turn
    assert "summary-growth" in f2.flags and "summary-not-smaller" not in f2.flags
    assert f3.compaction_id == third.id and "summary-growth" not in f3.flags  # 420 < 1.1 x 400
    assert f2.compaction_id == second.id


def test_the_tail_one_compaction_kept_is_replaced_by_the_next() -> None:
    b = TranscriptBuilder()
    _turn(b, 20_000)
    keep = _turn(b, 45_000, size=500)  # kept verbatim by the first compaction: 1,000 tokens
    b.compaction(text_of(50), first_kept=keep)
    _turn(b, 46_000, size=300)  # summarized by the second: 600 tokens
    kept = _turn(b, 47_000)
    b.compaction(text_of(40), first_kept=kept)
    f1, f2 = analyze_compactions(b.build(), CFG)
    assert f1.replaced_tokens == 200
    assert f2.replaced_tokens == 50 + 1_000 + 600  # previous summary, its kept tail, new turn
    assert f2.estimated_context_tokens == 50 + 1_000 + 600 + 200


def test_a_cut_inside_the_kept_tail_is_no_hard_boundary() -> None:
    b = TranscriptBuilder()
    _turn(b, 20_000)
    keep = _turn(b, 45_000, size=500)  # the first compaction keeps this turn (1,000 tokens)
    later = _turn(b, 45_500, size=50)  # ...and this one (100 tokens)
    b.compaction(text_of(50), first_kept=keep)
    _turn(b, 46_000, size=300)
    b.compaction(text_of(40), first_kept=later)  # cut inside that kept tail
    _f1, f2 = analyze_compactions(b.build(), CFG)
    assert not f2.hard_boundary
    assert f2.replaced_tokens == 50 + 1_000  # the previous summary and the tail before the cut


def test_off_path_compactions_are_examined_on_their_own_branch() -> None:
    b = TranscriptBuilder()
    _turn(b, 45_000)
    fork = b.leaf
    b.user(text_of(100))
    off = b.compaction(text_of(10))
    b.leaf = fork
    _turn(b, 46_000)
    t = b.build()
    (f,) = analyze_compactions(t, CFG)
    assert f.compaction_id == off.id and not f.on_active_path
    assert off.id not in t.active_path
    assert f.context_tokens == 45_000 + 100  # usage plus the user message after it


@pytest.mark.samples
def test_sample03_compactions_match_the_file(samples_dir) -> None:
    path = sample_path(samples_dir, "03_")
    objs = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    expected = []
    for k, obj in enumerate(objs):
        if obj["type"] != "compaction":
            continue
        last = next(o for o in reversed(objs[:k]) if o["type"] == "message")
        msg = last["message"]
        overflowed = (msg["role"] == "assistant" and msg.get("stopReason") == "error"
                      and "context window" in (msg.get("errorMessage") or ""))
        expected.append((obj["id"], obj.get("tokensBefore"), overflowed,
                         math.ceil(len(obj["summary"]) / 4)))
    t = load_transcript(path)
    found = analyze_compactions(t, CompactionSettings())
    assert [(f.compaction_id, f.recorded_tokens_before, f.trigger == "overflow-retry",
             f.summary_tokens) for f in found] == expected
    assert any(e[2] for e in expected)  # the sample does hold an overflow retry
    for f in found:
        assert f.estimated_context_tokens >= 0 and f.context_window > 0
        entry = t.entry(f.compaction_id)
        assert f.summary_tokens == estimate_entry_tokens(entry)


def test_a_reset_bounds_the_region_and_hides_older_summaries() -> None:
    b = TranscriptBuilder()
    _turn(b, 45_000)
    b.compaction(text_of(500))
    b.reset()
    _turn(b, 12_000, size=10)
    comp = b.compaction(text_of(5))
    first, second = analyze_compactions(b.build(), CFG)
    assert second.compaction_id == comp.id and second.previous_compaction_id is None
    assert second.estimated_context_tokens == 20 and second.reported_context_tokens == 12_000
    assert second.previous_summary_tokens == 500  # the chain still links the summaries
    assert "summary-growth" not in second.flags


def test_overflow_search_stops_at_the_previous_boundary() -> None:
    b = TranscriptBuilder()
    b.user()
    b.assistant("", stop_reason="error", error_message="prompt is too long")
    b.compaction(text_of(5))
    b.compaction(text_of(5))  # a second one straight after: nothing new overflowed
    first, second = analyze_compactions(b.build(), CFG)
    assert first.trigger == "overflow-retry" and second.trigger != "overflow-retry"


def test_a_compaction_between_tool_results_and_the_next_call_fired_mid_turn() -> None:
    b = TranscriptBuilder()
    _turn(b, 30_000)
    b.user(text_of(100))
    call = b.call("read", path="/big")
    b.assistant("", call, usage=39_000)
    b.result(call, text_of(4_000))
    b.compaction(text_of(10))
    (plain,) = analyze_compactions(b.build(), CFG)
    (checked,) = analyze_compactions(b.build(), replace(CFG, mid_turn_precheck_enabled=True))
    assert plain.mid_turn and checked.mid_turn
    assert plain.trigger == "threshold" and checked.trigger == "mid-turn-precheck"


def test_a_compaction_after_a_finished_turn_is_not_mid_turn() -> None:
    b = TranscriptBuilder()
    _turn(b, 45_000)
    b.compaction(text_of(10))
    (f,) = analyze_compactions(b.build(), replace(CFG, mid_turn_precheck_enabled=True))
    assert not f.mid_turn and f.trigger == "threshold"


def test_a_big_active_transcript_under_the_threshold_is_the_size_guard() -> None:
    b = TranscriptBuilder()
    _turn(b, 5_000)
    _turn(b, 6_000)
    b.compaction(text_of(10))
    t = b.build(line_bytes=1_000)
    (manual,) = analyze_compactions(t, CFG)
    cfg = replace(CFG, truncate_after_compaction=True)  # the size guard needs it
    (guard,) = analyze_compactions(t, replace(cfg, max_active_transcript_bytes=4_004))
    (small,) = analyze_compactions(t, replace(cfg, max_active_transcript_bytes=4_005))
    (no_truncate,) = analyze_compactions(t, replace(CFG, max_active_transcript_bytes=4_004))
    assert guard.active_bytes == 4 * 1_001  # the four messages before it
    assert (manual.trigger, guard.trigger, small.trigger) == ("manual", "size-guard", "manual")
    assert no_truncate.trigger == "manual"
    assert "far-below-threshold" in manual.flags and "far-below-threshold" not in guard.flags


def test_store_compactions_get_the_trigger_openclaw_decided(tmp_path: Path) -> None:
    """Two automatic compactions before a prompt (OpenClaw 2026.8+ counts the pending
    prompt: the context alone was below the 24,000 threshold the first time), then the
    manual ``/compact Focus on ...`` sent through the gateway."""
    opened = open_transcript(unpack_store(tmp_path / "home") / "alpha")
    found = analyze_compactions(opened.transcript, opened.resolved.settings)
    assert [f.trigger for f in found] == ["threshold", "threshold", "manual"]
    assert all(f.threshold == 24_000 for f in found)
    assert found[0].context_tokens < 24_000  # only the pending prompt put it over
