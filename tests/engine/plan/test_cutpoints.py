"""Cut points: valid positions, the keepRecentTokens walk, snapping, split turns, user cuts."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fixtures.factories import TranscriptBuilder, text_of, transcripts
from sessionlens.engine.errors import PlanError
from sessionlens.engine.model import Entry
from sessionlens.engine.plan.cutpoints import (
    find_turn_start_index,
    find_valid_cut_points,
    hard_boundary_cut,
    is_cut_entry,
    region_bounds,
    snap_user_cut,
)
from sessionlens.engine.plan.prepare import find_cut_point
from sessionlens.engine.plan.rules import CUT_RULES as ALL_RULES
from sessionlens.engine.tokens.counts import estimate_entry_tokens

#: The rules that cut by keepRecentTokens (codex-0.17 summarizes the whole history and has no
#: positional cut: tests/engine/plan/test_cut_codex.py)
CUT_RULES = {name: info for name, info in ALL_RULES.items() if name != "codex-0.17"}

#: Rules that never leave a kept tool result without its call.
FRAME_SAFE_RULES = ("tool-frames", "pi-2025.12")


def _path(b: TranscriptBuilder) -> list[Entry]:
    return list(b.build().path_entries())


def _est(path: list[Entry]) -> list[int]:
    return [estimate_entry_tokens(e) for e in path]


def _ids(path: list[Entry], idx: list[int]) -> list[str]:
    return [path[i].id for i in idx]


def test_valid_cut_points_never_tool_results_nor_metadata() -> None:
    b = TranscriptBuilder()
    u = b.user()
    c = b.call("read", path="/a")
    a = b.assistant("x", c)
    r = b.result(c)
    m = b.model_change()
    bs = b.bash()
    cm = b.custom_message()
    br = b.branch_summary()
    path = _path(b)
    assert _ids(path, find_valid_cut_points(path, 0, len(path))) == [
        u.id, a.id, bs.id, cm.id, br.id]
    assert not is_cut_entry(r) and not is_cut_entry(m)


def test_a_user_message_displaced_between_call_and_result_is_not_a_cut() -> None:
    b = TranscriptBuilder()
    b.user()
    c = b.call("read", path="/a")
    a = b.assistant("x", c)
    displaced = b.user("steer")
    b.result(c)
    after = b.user("next")
    path = _path(b)
    valid = _ids(path, find_valid_cut_points(path, 0, len(path)))
    assert displaced.id not in valid
    assert a.id in valid and after.id in valid


def test_aborted_or_errored_calls_do_not_hold_a_frame_open() -> None:
    b = TranscriptBuilder()
    b.user()
    b.assistant("x", b.call("read", path="/a"), stop_reason="aborted")
    u1 = b.user("again")
    b.assistant("x", b.call("read", path="/b"), stop_reason="error")
    u2 = b.user("and again")
    path = _path(b)
    valid = _ids(path, find_valid_cut_points(path, 0, len(path)))
    assert u1.id in valid and u2.id in valid


def test_region_starts_after_the_last_compaction_or_reset() -> None:
    b = TranscriptBuilder()
    b.user()
    b.assistant()
    comp = b.compaction()
    b.user()
    path = _path(b)
    assert region_bounds(path) == (3, 2) and path[2].id == comp.id
    b.reset()
    b.user()
    path = _path(b)
    assert region_bounds(path) == (5, 4)
    assert region_bounds(path[:2]) == (0, None)


def test_turn_start_is_the_previous_user_bash_or_custom_entry() -> None:
    b = TranscriptBuilder()
    b.user()
    bash = b.bash()
    b.assistant()
    b.assistant()
    path = _path(b)
    assert find_turn_start_index(path, 3, 0) == 1 and path[1].id == bash.id
    assert find_turn_start_index(path, 3, 2) is None


def _two_turns() -> TranscriptBuilder:
    """user(100) asst-call(10) result(500) asst(10) | user(100) asst-call result(500) asst(10)"""
    b = TranscriptBuilder()
    for _ in range(2):
        b.user(text_of(100))
        c = b.call("read", path="/a")
        b.assistant(text_of(10), c)
        b.result(c, text_of(500))
        b.assistant(text_of(10))
    return b


def test_tool_frames_rule_moves_back_to_the_tool_frame_start() -> None:
    path = _path(_two_turns())
    # from the end: 10 + 500 (+ asst 12ish) -> crossing 300 happens at the result (index 6)
    cut = find_cut_point(path, 0, len(path), 300, _est(path), "tool-frames")
    assert path[cut.first_kept_index].role == "assistant" and cut.first_kept_index == 5
    assert cut.is_split_turn and cut.turn_start_index == 4
    assert "start of its tool frame" in cut.reason
    kept = sum(_est(path)[cut.first_kept_index:])
    assert kept >= 300


def test_pi_rule_moves_forward_to_the_next_valid_cut() -> None:
    path = _path(_two_turns())
    cut = find_cut_point(path, 0, len(path), 300, _est(path), "pi-0.58")
    assert cut.first_kept_index == 7  # the closing assistant, after the result
    assert "moved forward" in cut.reason
    assert sum(_est(path)[7:]) < 300  # pi may keep less than asked


def test_openclaw_rule_cuts_at_the_nearest_candidate_after_the_stop() -> None:
    path = _path(_two_turns())
    cut = find_cut_point(path, 0, len(path), 300, _est(path), "openclaw-2026.9")
    assert cut.first_kept_index == 7 and cut.is_split_turn and cut.turn_start_index == 4


def test_cut_on_a_user_message_is_not_a_split_turn() -> None:
    path = _path(_two_turns())
    est = _est(path)
    need = sum(est[4:])
    for rule in CUT_RULES:
        if rule == "pi-2025.12":
            continue  # sized by reported usage, not by these estimates
        cut = find_cut_point(path, 0, len(path), need, est, rule)
        assert cut.first_kept_index == 4 and not cut.is_split_turn
        assert cut.turn_start_index is None


def test_cut_snaps_back_over_metadata_but_not_past_a_message() -> None:
    b = TranscriptBuilder()
    b.user(text_of(100))
    b.assistant(text_of(100))
    tl = b.thinking_level()
    b.model_change()
    b.user(text_of(100))
    b.assistant(text_of(100))
    path = _path(b)
    cut = find_cut_point(path, 0, len(path), 150, _est(path), "tool-frames")
    assert path[cut.first_kept_index].id == tl.id
    assert not cut.is_split_turn  # the first message kept is the user message
    assert "metadata" in cut.reason
    # pi and OpenClaw decide the split by the row the cut lands on: a metadata row is not a
    # user message, so the turn before it counts as split
    for rule in ("pi-0.58", "openclaw-2026.9"):
        agent = find_cut_point(path, 0, len(path), 150, _est(path), rule)
        assert path[agent.first_kept_index].id == tl.id, rule
        assert agent.is_split_turn and agent.turn_start_index == 0, rule


def test_pi_calls_a_cut_on_a_bash_run_a_split_turn_with_an_empty_prefix() -> None:
    b = TranscriptBuilder()
    b.user(text_of(100))
    b.assistant(text_of(100))
    bash = b.bash("ls", text_of(100))
    b.assistant(text_of(100))
    path = _path(b)
    pi = find_cut_point(path, 0, len(path), 150, _est(path), "pi-0.58")
    assert path[pi.first_kept_index].id == bash.id
    assert pi.is_split_turn and pi.turn_start_index == pi.first_kept_index
    assert "empty prefix" in pi.reason
    oc = find_cut_point(path, 0, len(path), 150, _est(path), "openclaw-2026.9")
    assert oc.first_kept_index == pi.first_kept_index and not oc.is_split_turn


def test_snap_stops_at_the_region_start() -> None:
    b = TranscriptBuilder()
    b.user(text_of(100))
    b.compaction()
    b.model_change()
    u = b.user(text_of(100))
    b.assistant(text_of(100))
    path = _path(b)
    start, _ = region_bounds(path)
    for rule in ("tool-frames", "pi-0.58", "openclaw-2026.9"):
        cut = find_cut_point(path, start, len(path), 150, _est(path), rule)
        assert cut.first_kept_index == start, rule  # the model_change, not the compaction
    assert path[start + 1].id == u.id


def test_small_region_keeps_everything() -> None:
    path = _path(_two_turns())
    for rule in CUT_RULES:
        cut = find_cut_point(path, 0, len(path), 10**9, _est(path), rule)
        assert cut.first_kept_index == 0


def test_user_turns_rule_measures_reported_usage_deltas() -> None:
    b = TranscriptBuilder()
    b.user(text_of(5))
    b.assistant(text_of(5), usage=10_000)
    u2 = b.user(text_of(5))
    b.assistant(text_of(5), usage=30_000)
    b.assistant(text_of(5), usage=0, stop_reason="aborted")
    u3 = b.user(text_of(5))
    b.assistant(text_of(5), usage=45_000)
    path = _path(b)
    est = _est(path)
    # kept from u3 = 45000 - 30000 = 15000; from u2 = 45000 - 10000 = 35000
    cut = find_cut_point(path, 0, len(path), 15_000, est, "pi-2025.12")
    assert path[cut.first_kept_index].id == u3.id
    cut = find_cut_point(path, 0, len(path), 15_001, est, "pi-2025.12")
    assert path[cut.first_kept_index].id == u2.id
    assert "35000 tokens by reported usage" in cut.reason


def test_unknown_rule_is_a_plan_error() -> None:
    path = _path(_two_turns())
    with pytest.raises(PlanError, match="unknown cut rule"):
        find_cut_point(path, 0, len(path), 1, _est(path), "nope")  # type: ignore[arg-type]


def test_hard_boundary_keeps_nothing() -> None:
    cut = hard_boundary_cut(9)
    assert cut.first_kept_index == 9 and cut.hard_boundary and not cut.is_split_turn


def test_user_cut_on_a_tool_result_moves_to_its_call() -> None:
    path = _path(_two_turns())
    cut = snap_user_cut(path, 0, len(path), 2)  # a toolResult
    assert cut.first_kept_index == 1 and path[1].role == "assistant"
    assert "tool result must stay with the call" in cut.reason and "earlier" in cut.reason


def test_reasons_count_one_entry_in_the_singular() -> None:
    """QA: ``plan --cut`` said "moved 1 entries earlier" and "over 1 metadata entries"."""
    path = _path(_two_turns())
    one = snap_user_cut(path, 0, len(path), 2)
    assert "moved 1 entry earlier" in one.reason and "1 entries" not in one.reason
    b = TranscriptBuilder()
    b.user(text_of(100))
    b.assistant(text_of(100))
    b.model_change()
    b.user(text_of(100))
    b.assistant(text_of(100))
    snapped = _path(b)
    cut = find_cut_point(snapped, 0, len(snapped), 150, _est(snapped), "tool-frames")
    assert "over 1 metadata entry that belongs with it" in cut.reason
    pi = find_cut_point(snapped, 0, len(snapped), 150, _est(snapped), "pi-0.58")
    assert "over 1 row that belongs with it" in pi.reason


def test_user_cut_ties_go_earlier_and_far_points_go_to_the_nearest() -> None:
    b = TranscriptBuilder()
    u = b.user()
    b.model_change()
    b.thinking_level()
    b.label(u.id)
    a = b.assistant()
    path = _path(b)
    assert snap_user_cut(path, 0, len(path), 1).first_kept_index == 0
    assert snap_user_cut(path, 0, len(path), 2).first_kept_index == 0  # tie -> earlier
    moved = snap_user_cut(path, 0, len(path), 3)
    assert path[moved.first_kept_index].id == a.id and "later" in moved.reason
    assert "not a message" in moved.reason


def test_user_cut_inside_a_frame_names_the_frame() -> None:
    b = TranscriptBuilder()
    b.user()
    c = b.call("read", path="/a")
    b.assistant("x", c)
    b.user("steer")
    b.result(c)
    path = _path(b)
    cut = snap_user_cut(path, 0, len(path), 2)
    assert cut.first_kept_index == 1 and "between a tool call and its results" in cut.reason


def test_user_cut_outside_region_is_rejected() -> None:
    path = _path(_two_turns())
    with pytest.raises(PlanError, match="outside"):
        snap_user_cut(path, 3, len(path), 1)


# ------------------------------------------------------------------------- properties

def _pairs_intact(path: list[Entry], start: int, cut: int) -> bool:
    """No tool result at/after the cut answers a call made before it (within the region)."""
    calls_before = {c.id for e in path[start:cut] if e.message is not None
                    for c in e.message.tool_calls}
    return not any(e.role == "toolResult" and e.message is not None
                   and e.message.tool_call_id in calls_before for e in path[cut:])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(t=transcripts(), keep=st.integers(min_value=0, max_value=12_000),
       rule=st.sampled_from(sorted(CUT_RULES)))
def test_property_cut_is_never_a_tool_result_and_never_splits_a_pair(t, keep, rule) -> None:
    """Every rule cuts inside the region and never at a tool result; the frame-safe rules
    never keep a result whose call was summarized (pi and OpenClaw do not promise that)."""
    path = list(t.path_entries())
    start, _ = region_bounds(path)
    est = _est(path)
    cut = find_cut_point(path, start, len(path), keep, est, rule)
    assert start <= cut.first_kept_index <= len(path)
    if cut.first_kept_index < len(path):
        assert path[cut.first_kept_index].role != "toolResult"
    if rule in FRAME_SAFE_RULES:
        assert _pairs_intact(path, start, cut.first_kept_index)
    if cut.is_split_turn:
        assert cut.turn_start_index is not None and cut.turn_start_index <= cut.first_kept_index
    assert find_cut_point(path, start, len(path), keep, est, rule) == cut


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(t=transcripts(), keep=st.integers(min_value=0, max_value=12_000))
def test_property_kept_tail_reaches_keep_recent_unless_region_is_smaller(t, keep) -> None:
    path = list(t.path_entries())
    start, _ = region_bounds(path)
    est = _est(path)
    msg_tokens = [est[i] if path[i].type == "message" else 0 for i in range(len(path))]
    region_total = sum(msg_tokens[start:])
    cut = find_cut_point(path, start, len(path), keep, est, "tool-frames")
    kept = sum(msg_tokens[cut.first_kept_index:])
    assert kept >= keep or region_total < keep
    # pi's exact rule may stop short, but never by more than the tool results it skipped
    pi = find_cut_point(path, start, len(path), keep, est, "pi-0.58")
    valid = find_valid_cut_points(path, start, len(path))
    earlier = [v for v in valid if v < pi.first_kept_index]
    if region_total >= keep and earlier:
        assert sum(msg_tokens[earlier[-1]:]) >= keep


def test_region_without_any_cut_point() -> None:
    b = TranscriptBuilder()
    b.compaction()
    b.result("call_x", text_of(50))  # an orphan result right after a compaction
    b.model_change()
    path = _path(b)
    for rule in CUT_RULES:
        cut = find_cut_point(path, 1, len(path), 10, _est(path), rule)
        assert cut.first_kept_index == 1 and "no valid cut point" in cut.reason
    with pytest.raises(PlanError, match="no valid cut point"):
        snap_user_cut(path, 1, len(path), 2)


def test_user_turns_rule_falls_back_to_estimates_without_usage() -> None:
    b = TranscriptBuilder()
    b.user(text_of(100))
    b.assistant(text_of(100))
    u2 = b.user(text_of(100))
    b.assistant(text_of(100))
    path = _path(b)
    cut = find_cut_point(path, 0, len(path), 150, _est(path), "pi-2025.12")
    assert path[cut.first_kept_index].id == u2.id and "estimated size" in cut.reason
