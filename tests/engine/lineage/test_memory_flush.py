"""Per compaction cycle: did the memory flush run, was it skipped (why), or missed (how)?"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from fixtures.factories import TranscriptBuilder, text_of
from fixtures.openclaw_store import unpack_store
from fixtures.samples import sample_path
from sessionlens.engine.lineage.flush_store import session_record
from sessionlens.engine.lineage.memory_flush import (
    FLUSH_REASON_TEXT,
    MemoryFlushReport,
    analyze_memory_flush,
    flush_threshold,
)
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.model import Message, TextBlock, Usage
from sessionlens.engine.opened import open_transcript
from sessionlens.engine.sessions.store import read_session_store
from sessionlens.engine.settings import DEFAULT_SETTINGS, CompactionSettings

# window 50,000, floor 10,000: compaction over 40,000, flush from 36,000
CFG = CompactionSettings(context_window=50_000, reserve_tokens=10_000, reserve_tokens_floor=10_000)
PROMPT = "Pre-compaction memory flush. Store durable memories now. Reply NO_REPLY."


def _turn(b: TranscriptBuilder, usage: int) -> None:
    b.user(text_of(20))
    b.assistant(text_of(20), usage=usage)


def _flush(b: TranscriptBuilder, usage: int) -> str:
    prompt = b.user(PROMPT).id
    b.assistant("NO_REPLY", usage=usage)
    return prompt


def _report(b: TranscriptBuilder, settings: CompactionSettings = CFG) -> MemoryFlushReport:
    return analyze_memory_flush(b.build(), settings)


def test_thresholds_follow_openclaw() -> None:
    assert flush_threshold(CFG, 50_000) == (4_000, 36_000)
    # the margin is capped at half the room under the floor (newest OpenClaw)
    assert flush_threshold(replace(CFG, memory_flush_soft_threshold_tokens=30_000),
                           50_000) == (20_000, 20_000)
    # a reserve above the floor lowers the compaction threshold, not the flush level
    high = replace(CFG, reserve_tokens=20_000)
    assert high.threshold(50_000) == 30_000 and flush_threshold(high, 50_000)[1] == 36_000


def test_a_flush_before_the_compaction_ran() -> None:
    b = TranscriptBuilder()
    _turn(b, 20_000)
    _turn(b, 37_000)
    prompt = _flush(b, 37_100)
    _turn(b, 41_000)
    comp = b.compaction("sum")
    r = _report(b)
    (c,) = r.cycles
    assert r.turn_ids == (prompt,) and (r.soft_threshold, r.compaction_threshold) == (36_000,
                                                                                      40_000)
    assert (c.index, c.compaction_id, c.status, c.reason) == (1, comp.id, "ran", None)
    assert c.flush_turn_ids == (prompt,) and c.tokens_at_flush is not None
    assert 37_000 <= c.tokens_at_flush < 37_100 and c.peak_tokens >= 41_000
    assert c.compaction_trigger == "threshold"


def test_a_jump_past_both_thresholds_in_one_turn_is_compaction_before_flush() -> None:
    b = TranscriptBuilder()
    _turn(b, 20_000)
    _turn(b, 30_000)
    _turn(b, 45_000)  # from 30k straight past 36k and 40k
    b.compaction("sum")
    (c,) = _report(b).cycles
    assert (c.status, c.reason, c.due_entry_id) == ("missed", "compaction-before-flush", None)
    assert "30,0" in c.detail and "45,0" in c.detail
    assert FLUSH_REASON_TEXT[c.reason] == "compaction fired before the flush"


def test_due_without_a_flush_is_flush_never_ran() -> None:
    b = TranscriptBuilder()
    _turn(b, 37_000)
    due = b.user("next")
    b.assistant("ok", usage=41_000)
    b.compaction("sum")
    r = _report(b)
    (c,) = r.cycles
    assert (c.status, c.reason, c.due_entry_id) == ("missed", "flush-never-ran", due.id)
    assert r.pattern == "never-ran"


def _every_other(cycles: int) -> tuple[TranscriptBuilder, list[str]]:
    """Flush, skip, flush, skip: the counter bug's signature (OpenClaw #12590)."""
    b = TranscriptBuilder()
    comps = []
    for k in range(cycles):
        _turn(b, 37_000)
        if k % 2 == 0:
            _flush(b, 37_100)
        _turn(b, 41_000)
        comps.append(b.compaction("sum").id)
    return b, comps


def test_flush_skip_flush_skip_is_every_other_cycle() -> None:
    b, comps = _every_other(4)
    r = _report(b)
    assert [c.compaction_id for c in r.cycles] == comps  # ends on a compaction: no open cycle
    assert [(c.status, c.reason) for c in r.cycles] == [
        ("ran", None), ("missed", "flush-every-other-cycle"),
        ("ran", None), ("missed", "flush-every-other-cycle")]
    assert r.pattern == "every-other-cycle" and "#12590" in r.cycles[1].detail


def test_two_cycles_are_not_yet_a_pattern() -> None:
    b, _ = _every_other(2)
    r = _report(b)
    assert r.cycles[1].reason == "flush-every-other-cycle" and r.pattern is None


def test_a_manual_compaction_below_the_soft_threshold_is_skipped() -> None:
    b = TranscriptBuilder()
    _turn(b, 10_000)
    _turn(b, 12_000)
    b.compaction("sum")
    (c,) = _report(b).cycles
    assert (c.status, c.reason, c.compaction_trigger) == ("skipped", "below-soft-threshold",
                                                          "manual")


def test_disabled_cli_and_read_only_are_skips_not_misses() -> None:
    def session(provider: str = "test") -> TranscriptBuilder:
        b = TranscriptBuilder()
        for usage in (37_000, 41_000):
            b.user(text_of(20))
            b.message(Message(role="assistant", content=(TextBlock("ok"),), provider=provider,
                              model="m", usage=Usage(input=usage, total_tokens=usage),
                              stop_reason="stop"))
        b.compaction("sum")
        return b

    def verdict(b: TranscriptBuilder, s: CompactionSettings) -> tuple[str, str | None]:
        (c,) = _report(b, s).cycles
        return c.status, c.reason

    assert verdict(session(), CFG) == ("missed", "flush-never-ran")
    assert verdict(session(), replace(CFG, memory_flush_enabled=False)) == ("skipped",
                                                                            "disabled")
    assert verdict(session("claude-cli"), CFG) == ("skipped", "cli-backend")
    assert verdict(session(), replace(CFG, sandbox_mode="all")) == ("skipped",
                                                                    "read-only-workspace")
    writable = replace(CFG, sandbox_mode="all", sandbox_workspace_access="rw")
    assert verdict(session(), writable) == ("missed", "flush-never-ran")
    # "non-main" sandboxes only other sessions: with no store key the session is not judged
    assert verdict(session(), replace(CFG, sandbox_mode="non-main")) == ("missed",
                                                                         "flush-never-ran")


def test_the_open_cycle_is_due_not_due_or_missed() -> None:
    b = TranscriptBuilder()
    _turn(b, 20_000)
    r = _report(b)
    assert [(c.compaction_id, c.status) for c in r.cycles] == [(None, "not-due")]
    _turn(b, 37_000)
    assert _report(b).cycles[-1].status == "due"  # the flush runs before the next turn
    _turn(b, 38_000)
    assert (_report(b).cycles[-1].status, _report(b).cycles[-1].reason) == (
        "missed", "flush-never-ran")
    _flush(b, 38_100)
    assert _report(b).cycles[-1].status == "ran"


def test_after_a_compaction_the_system_prompt_overhead_is_carried() -> None:
    """The first turn after a compaction has no usage yet: estimate + the overhead seen."""
    b = TranscriptBuilder()
    _turn(b, 38_000)  # ~40 tokens of messages: ~37,960 of overhead (system prompt, tools)
    b.assistant(text_of(20), usage=41_000)
    b.compaction(text_of(100))
    due = b.user("first after")
    b.assistant("ok")
    r = _report(b)
    assert r.cycles[1].status == "missed" and r.cycles[1].due_entry_id == due.id


def test_the_window_comes_from_settings_then_store_then_model(tmp_path: Path) -> None:
    b = TranscriptBuilder(str(tmp_path / "t.jsonl"))
    _turn(b, 1_000)
    t = b.build()
    store = tmp_path / "sessions.json"
    store.write_text(json.dumps({"k": {"sessionId": None, "contextTokens": 32768}}),
                     encoding="utf-8")
    record = read_session_store(store).records[0]
    assert analyze_memory_flush(t, CFG, store_record=record).window_source == "settings"
    from_store = analyze_memory_flush(t, DEFAULT_SETTINGS, store_record=record)
    assert (from_store.window_source, from_store.context_window) == ("store", 32768)
    assert from_store.soft_threshold == 32768 - 20_000 - 4_000
    assert analyze_memory_flush(t, DEFAULT_SETTINGS).window_source == "model"


def test_real_samples_04_with_store_05(samples_dir: Path) -> None:
    t = load_transcript(sample_path(samples_dir, "04_"))
    record = session_record(t, sample_path(samples_dir, "05_"))
    r = analyze_memory_flush(t, DEFAULT_SETTINGS, store_record=record)
    raw = json.loads(sample_path(samples_dir, "05_").read_text(encoding="utf-8"))
    window = next(v for v in raw.values() if v.get("sessionId") == t.session_id)["contextTokens"]
    assert r.window_source == "store" and r.context_window == window
    compactions = [e.id for e in t.path_entries() if e.type == "compaction"]
    assert [c.compaction_id for c in r.cycles] == [*compactions, None]
    # the one flush turn sits in the open cycle, and the store stamps exactly that turn
    assert r.cycles[-1].status == "ran" and r.cycles[-1].flush_turn_ids == r.turn_ids
    assert r.store is not None and r.store.matched_turn_id == r.turn_ids[0]
    # every earlier cycle crossed the soft threshold at a turn start with no flush
    assert all(c.status == "missed" and c.due_entry_id is not None for c in r.cycles[:-1])
    assert all(c.peak_tokens > r.compaction_threshold for c in r.cycles[:-1])


def test_real_sample_03_never_flushed(samples_dir: Path) -> None:
    t = load_transcript(sample_path(samples_dir, "03_"))
    record = session_record(t, sample_path(samples_dir, "05_"))
    r = analyze_memory_flush(t, DEFAULT_SETTINGS, store_record=record)
    assert r.turns == () and r.pattern == "never-ran"
    triggers = {c.compaction_trigger for c in r.cycles}
    assert "overflow-retry" in triggers  # the sample's overflow compaction
    assert all(c.status != "ran" for c in r.cycles)


def test_other_agents_have_no_flush_to_miss() -> None:
    b = TranscriptBuilder()
    _turn(b, 37_000)
    _turn(b, 41_000)
    b.compaction("sum")
    for fmt in ("claude-code", "codex", "pi-v1"):
        r = analyze_memory_flush(replace(b.build(), format=fmt), CFG)  # type: ignore[arg-type]
        assert [(c.status, c.reason) for c in r.cycles] == [("skipped", "not-openclaw")]
        assert r.pattern is None


def test_the_store_row_says_the_flush_ran(tmp_path: Path) -> None:
    """OpenClaw 2026.8+ keeps no flush turn in the transcript: the session row's
    memoryFlush (compactionCount 1) says the flush of cycle 2 ran; cycle 1's is not
    recorded, so it is 'unknown', never 'flush never ran'."""
    opened = open_transcript(unpack_store(tmp_path / "home") / "alpha")
    report = analyze_memory_flush(opened.transcript, opened.resolved.settings)
    assert report.store is not None and report.store.kind == "succeeded"
    assert (report.context_window, report.compaction_threshold) == (32_000, 24_000)
    statuses = [c.status for c in report.cycles]
    assert "ran" in statuses and report.pattern is None
    assert not [c for c in report.cycles if c.reason == "flush-never-ran"]
