"""Where the mid-turn precheck would fire: after a tool batch, before the next model call."""

from __future__ import annotations

from dataclasses import replace

from fixtures.factories import TranscriptBuilder, text_of
from sessionlens.engine.plan.precheck import preview_precheck
from sessionlens.engine.settings import CompactionSettings

CFG = CompactionSettings(context_window=50_000, reserve_tokens=10_000, reserve_tokens_floor=0)


def _tool_loop() -> tuple[TranscriptBuilder, list[str], list[str]]:
    """One user turn whose tool results grow the context by 4,000 tokens per call."""
    b = TranscriptBuilder()
    b.user("go")
    results, calls = [], []
    for k in range(5):
        c1, c2 = b.call("read", path=f"/a{k}"), b.call("read", path=f"/b{k}")
        calls.append(b.assistant("", c1, c2, usage=30_000 + 4_000 * k).id)
        b.result(c1, text_of(1_000))
        results.append(b.result(c2, text_of(1_000)).id)  # a batch of two: the second closes it
    b.assistant("done", usage=50_000)
    return b, results, calls


def test_each_batch_gets_its_pressure_and_the_first_over_the_threshold_fires() -> None:
    b, results, calls = _tool_loop()
    pre = preview_precheck(b.build(), CFG)
    assert pre.threshold == 40_000 and not pre.enabled
    assert [p.entry_id for p in pre.points] == results  # one point per batch, not per result
    assert [p.next_entry_id for p in pre.points] == calls[1:] + [b.entries[-1].id]
    # usage of the call plus the two results (1,000 tokens each)
    assert [p.estimated_tokens for p in pre.points] == [32_000, 36_000, 40_000, 44_000, 48_000]
    assert pre.fires_at is not None and pre.fires_at.entry_id == results[2]
    assert pre.fires_at.pressure == 1.0 and pre.points[0].pressure == 0.8


def test_enabled_follows_the_setting_and_a_low_session_never_fires() -> None:
    b = TranscriptBuilder()
    b.user("go")
    c = b.call("read", path="/x")
    b.assistant("", c, usage=1_000)
    b.result(c, "small")
    pre = preview_precheck(b.build(), replace(CFG, mid_turn_precheck_enabled=True))
    assert pre.enabled and len(pre.points) == 1 and pre.fires_at is None
    assert pre.points[0].next_entry_id is None  # the path ends before the next call


def test_only_the_region_after_the_last_compaction_counts() -> None:
    b, _, _ = _tool_loop()
    b.compaction("sum")
    b.user("again")
    c = b.call("read", path="/y")
    b.assistant("", c, usage=2_000)
    last = b.result(c, "tiny")
    pre = preview_precheck(b.build(), CFG)
    assert [p.entry_id for p in pre.points] == [last.id] and pre.fires_at is None
