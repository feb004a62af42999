"""pi 0.58's own rules, case by case (the differential tests check them against pi's code)."""

from __future__ import annotations

from fixtures.factories import TranscriptBuilder, text_of
from sessionlens.engine.agents.pi.rule_0_58 import (
    pi_context_entries,
    pi_find_cut_point,
    pi_prepare,
    pi_threshold_tokens,
    pi_usage_tokens,
)
from sessionlens.engine.model import Entry, Message, TextBlock, Usage
from sessionlens.engine.plan.cutpoints import find_valid_cut_points
from sessionlens.engine.tokens.counts import estimate_entry_tokens


def _path(b: TranscriptBuilder) -> list[Entry]:
    return list(b.build().path_entries())


def _est(path: list[Entry]) -> list[int]:
    return [estimate_entry_tokens(e, "pi") for e in path]


def _assistant(b: TranscriptBuilder, usage: Usage | None, stop: str = "stop",
               text: str = "ok") -> Entry:
    return b.message(Message(role="assistant", content=(TextBlock(text),), provider="p",
                             model="m", usage=usage, stop_reason=stop))


def test_a_zero_usage_still_counts_for_tokens_before() -> None:
    """pi takes the last usable assistant's usage even when it is all zeros (a gateway or
    adapter message), then adds what follows; SessionLens's older rules skip it."""
    b = TranscriptBuilder()
    b.user(text_of(100))
    _assistant(b, Usage(input=50_000, total_tokens=50_000))
    b.user(text_of(100))
    _assistant(b, Usage(), text=text_of(10))
    b.user(text_of(30))
    path = _path(b)
    prep = pi_prepare(path, 20_000, _est(path))
    assert prep.tokens_before == 0 + 30
    assert pi_threshold_tokens(path, _est(path)) == 0


def test_context_usage_is_not_read_and_parts_add_up() -> None:
    assert pi_usage_tokens(Usage(input=10, total_tokens=99, context_usage=500)) == 99
    assert pi_usage_tokens(Usage(input=10, output=2, cache_read=3, cache_write=4)) == 19


def test_a_tool_call_without_a_result_does_not_hold_the_cut_back() -> None:
    b = TranscriptBuilder()
    b.user(text_of(100))
    b.assistant(text_of(10), b.call("read", path="/a"))  # never answered
    after = b.user(text_of(300))
    b.assistant(text_of(10))
    path = _path(b)
    # SessionLens's frame-safe points see an open frame; pi cuts at the next user anyway
    assert 2 not in find_valid_cut_points(path, 0, len(path))
    cut = pi_find_cut_point(path, 0, len(path), 300, _est(path))
    assert path[cut.first_kept_index].id == after.id and not cut.is_split_turn


def test_a_walk_that_stops_on_a_trailing_result_keeps_everything() -> None:
    b = TranscriptBuilder()
    b.user(text_of(50))
    call = b.call("read", path="/a")
    b.assistant(text_of(10), call)
    b.result(call, text_of(900))
    path = _path(b)
    cut = pi_find_cut_point(path, 0, len(path), 500, _est(path))
    assert cut.first_kept_index == 0 and "keeps the whole region" in cut.reason


def test_the_region_ignores_resets_and_starts_after_the_last_compaction() -> None:
    b = TranscriptBuilder()
    b.user(text_of(10))
    first = b.assistant(text_of(10))
    comp = b.compaction("older", first_kept=first.id)
    b.reset()
    b.user(text_of(10))
    path = _path(b)
    prep = pi_prepare(path, 20_000, _est(path))
    assert prep.region_start == path.index(comp) + 1 and prep.boundary == path.index(comp)
    assert [path[i].type for i in pi_context_entries(path)] == ["compaction", "message", "message"]
    b.compaction()
    assert pi_prepare(_path(b), 20_000, _est(_path(b))).refused


def test_the_threshold_check_skips_stale_assistants_and_estimates_after_errors() -> None:
    b = TranscriptBuilder()
    b.user(text_of(100))
    _assistant(b, Usage(input=9_000, total_tokens=9_000))
    b.user(text_of(40))
    err = b.message(Message(role="assistant", content=(), provider="p", model="m",
                            stop_reason="error", timestamp_ms=10**13))
    path = _path(b)
    assert err.message is not None
    # an errored last assistant: the context estimate (last usage + what follows it)
    assert pi_threshold_tokens(path, _est(path)) == 9_000 + 40
    b2 = TranscriptBuilder()
    b2.message(Message(role="assistant", content=(TextBlock("x"),), usage=Usage(total_tokens=5),
                       stop_reason="stop", timestamp_ms=0))
    b2.compaction()
    b2.user("hi")
    assert pi_threshold_tokens(_path(b2), _est(_path(b2))) is None  # older than the compaction
