"""The compaction plan: region, partition, budgets, file ops, errors, properties, fidelity."""

from __future__ import annotations

import json
import math
from types import MappingProxyType

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fixtures.factories import TranscriptBuilder, text_of, transcripts
from fixtures.samples import sample_path
from sessionlens.engine.errors import PlanError
from sessionlens.engine.load.reader import load_transcript_bytes
from sessionlens.engine.model import FileOps
from sessionlens.engine.plan.compaction_plan import CompactionPlan
from sessionlens.engine.plan.planner import context_window_of, plan_compaction
from sessionlens.engine.plan.prepare import prepare_rule, rule_estimator
from sessionlens.engine.plan.rules import CUT_RULES
from sessionlens.engine.settings import CompactionSettings
from sessionlens.engine.tokens.counts import estimate_entry_tokens
from sessionlens.engine.tokens.token_report import EntryTokens, TokenReport

WINDOW = CompactionSettings(context_window=100_000, reserve_tokens=16_384, reserve_tokens_floor=0,
                            keep_recent_tokens=300)


def _session() -> TranscriptBuilder:
    b = TranscriptBuilder()
    b.user(text_of(200))
    c1 = b.call("read", path="/src/a.py")
    c2 = b.call("edit", path="/src/b.py")
    b.assistant(text_of(10), c1, c2, usage=5_000)
    b.result(c1, text_of(400))
    b.result(c2, text_of(20))
    b.assistant(text_of(50), usage=6_000)
    b.user(text_of(200))
    c3 = b.call("write", path="/src/c.py")
    c4 = b.call("read", path="/src/b.py")
    b.assistant(text_of(10), c3, c4, usage=9_000)
    b.result(c3, text_of(20))
    b.result(c4, text_of(20))
    b.assistant(text_of(100), usage=9_500)
    return b


def test_plan_partitions_the_region_in_path_order() -> None:
    t = _session().build()
    plan = plan_compaction(t, WINDOW)
    assert isinstance(plan, CompactionPlan)
    assert plan.summarize_entry_ids + plan.turn_prefix_entry_ids + plan.kept_entry_ids \
        == t.active_path
    assert plan.first_kept_entry_id == plan.kept_entry_ids[0] == "00000006"  # the second user
    assert not plan.is_split_turn and plan.turn_prefix_entry_ids == ()
    assert plan.previous_summary is None and plan.previous_compaction_id is None


def test_tokens_threshold_and_budgets() -> None:
    t = _session().build()
    plan = plan_compaction(t, WINDOW)
    kept = sum(estimate_entry_tokens(t.entry(i)) for i in plan.kept_entry_ids)
    assert plan.tokens_before == 9_500  # last usage, nothing after it
    assert plan.context_tokens == 9_500
    assert plan.threshold == 100_000 - 16_384 and not plan.should_compact
    assert plan.summary_budget_tokens == math.floor(0.8 * 16_384)
    assert plan.kept_tokens == kept
    assert plan.predicted_tokens_after == plan.summary_budget_tokens + kept
    small = CompactionSettings(context_window=25_000, reserve_tokens=16_384, reserve_tokens_floor=0,
                               keep_recent_tokens=300)
    assert plan_compaction(t, small).should_compact  # 9500 > 25000 - 16384
    off = CompactionSettings(context_window=25_000, reserve_tokens=16_384, reserve_tokens_floor=0,
                             keep_recent_tokens=300, enabled=False)
    assert not plan_compaction(t, off).should_compact


def test_file_ops_read_only_versus_modified_sorted() -> None:
    b = _session()
    b.user(text_of(300))
    b.assistant(text_of(300), usage=10_000)
    t = b.build()
    plan = plan_compaction(t, WINDOW)
    assert plan.file_ops == FileOps(read_files=("/src/a.py",),
                                    modified_files=("/src/b.py", "/src/c.py"))


def test_previous_compaction_summary_details_and_region() -> None:
    b = _session()
    comp = b.compaction("old summary " * 50, first_kept="00000006", tokens_before=9_000,
                        file_ops=FileOps(read_files=("/z.py",), modified_files=("/y.py",)))
    b.user(text_of(400))
    b.assistant(text_of(10), b.call("read", path=3), usage=None)  # non-string path: ignored
    b.user(text_of(400))
    b.assistant(text_of(10))
    t = b.build()
    plan = plan_compaction(t, WINDOW, cut_rule="pi-0.58")
    start = t.active_path.index(comp.id) + 1
    assert plan.previous_compaction_id == comp.id == plan.boundary_entry_id
    assert plan.previous_summary == comp.summary
    assert plan.region_entry_ids == t.active_path[start:]
    # pi's region starts after the compaction, yet replay drops the tail it kept: SessionLens
    # summarizes that tail first (pi alone would lose it) and lists its files with the rest
    kept_from = t.active_path.index("00000006")
    tail = t.active_path[kept_from:start - 1]
    assert plan.carried_tail_entry_ids == tail
    assert plan.summarized_entry_ids[:len(tail)] == tail
    assert plan.chunks[0][:len(tail)] == tail
    assert plan.file_ops == FileOps(read_files=("/src/b.py", "/z.py"),
                                    modified_files=("/src/c.py", "/y.py"))
    # pi counts from the compaction on: usage before it is not "after" it, so pure
    # estimates plus the old summary
    region_est = sum(estimate_entry_tokens(t.entry(i)) for i in t.active_path[start:])
    assert plan.tokens_before == math.ceil(len(comp.summary or "") / 4) + region_est
    # OpenClaw summarizes again what the previous compaction kept (from its firstKeptEntryId),
    # and counts the replayed context: the kept assistant's usage (9500) plus what follows
    oc = plan_compaction(t, WINDOW, cut_rule="openclaw-2026.9")
    assert oc.carried_tail_entry_ids == ()  # its region already holds the tail
    assert [i for i in oc.region_entry_ids if i != comp.id] == [
        i for i in t.active_path[kept_from:] if i != comp.id]
    assert oc.summarize_entry_ids[0] == "00000006" and comp.id not in oc.summarize_entry_ids
    after = sum(estimate_entry_tokens(t.entry(i), "openclaw") for i in t.active_path[start:])
    assert oc.tokens_before == 9_500 + after


def test_hook_compaction_details_are_not_inherited() -> None:
    b = _session()
    b.compaction("s", from_hook=True, file_ops=FileOps(read_files=("/z.py",)))
    b.user(text_of(400))
    b.assistant(text_of(10))
    b.user(text_of(400))
    t = b.build()
    assert plan_compaction(t, WINDOW).file_ops == FileOps()


def test_reset_is_a_boundary_without_a_summary() -> None:
    b = _session()
    reset = b.reset()
    b.user(text_of(400))
    b.assistant(text_of(400))
    b.user(text_of(400))
    plan = plan_compaction(b.build(), WINDOW, cut_rule="openclaw-2026.9")
    assert plan.boundary_entry_id == reset.id and plan.previous_compaction_id is None
    assert plan.summarize_entry_ids[0] == f"{int(reset.id, 16) + 1:08x}"
    # pi knows no reset: to it the row is metadata inside one region
    pi = plan_compaction(b.build(), WINDOW, cut_rule="pi-0.58")
    assert pi.boundary_entry_id is None and pi.summarize_entry_ids[0] == "00000001"


def test_already_compacted_and_nothing_to_compact() -> None:
    b = _session()
    b.compaction()
    with pytest.raises(PlanError, match="Already compacted"):
        plan_compaction(b.build(), WINDOW)
    b.user("tiny")
    with pytest.raises(PlanError, match="Nothing to compact"):
        plan_compaction(b.build(), WINDOW)
    b2 = TranscriptBuilder()
    b2.model_change()
    with pytest.raises(PlanError, match="Nothing to compact.*no valid cut point"):
        plan_compaction(b2.build(), WINDOW)


def test_plan_errors_name_the_file() -> None:
    """QA: `sessionlens plan` printed "Nothing to compact: ..." without saying which file."""
    b = TranscriptBuilder(path="/tmp/named-session.jsonl")
    b.user("tiny")
    with pytest.raises(PlanError, match=r"^/tmp/named-session\.jsonl: Nothing to compact"):
        plan_compaction(b.build(), WINDOW)
    b.compaction()
    with pytest.raises(PlanError, match=r"^/tmp/named-session\.jsonl: Already compacted"):
        plan_compaction(b.build(), WINDOW)
    b.user(text_of(400))
    with pytest.raises(PlanError, match=r"^/tmp/named-session\.jsonl: cut entry nope is not"):
        plan_compaction(b.build(), WINDOW, cut_entry_id="nope")
    compaction = next(e for e in b.build().entries if e.type == "compaction")
    # QA: a cut at the compaction itself said it "lies before compaction <its own id>"
    with pytest.raises(PlanError, match="is the compaction that starts the compactable region"):
        plan_compaction(b.build(), WINDOW, cut_entry_id=compaction.id)


def test_split_turn_puts_the_turn_start_in_the_prefix() -> None:
    t = _session().build()
    plan = plan_compaction(t, WINDOW, keep_recent_tokens=110)
    assert plan.is_split_turn and plan.turn_start_entry_id == "00000006"
    assert plan.turn_prefix_entry_ids[0] == "00000006"
    assert plan.first_kept_entry_id not in plan.turn_prefix_entry_ids
    assert plan.turn_prefix_budget_tokens == math.floor(0.5 * 16_384)
    assert plan.predicted_tokens_after == (plan.summary_budget_tokens
                                           + plan.turn_prefix_budget_tokens + plan.kept_tokens)


def test_manual_without_keep_recent_is_a_hard_boundary() -> None:
    t = _session().build()
    plan = plan_compaction(t, WINDOW, manual=True)
    assert plan.hard_boundary and plan.first_kept_entry_id is None
    assert plan.kept_entry_ids == () and plan.summarize_entry_ids == t.active_path
    assert "hard boundary" in plan.cut_reason
    soft = plan_compaction(t, WINDOW, manual=True, keep_recent_tokens=300)
    assert not soft.hard_boundary and soft.first_kept_entry_id == "00000006"


def test_user_cut_is_snapped_and_explained() -> None:
    t = _session().build()
    plan = plan_compaction(t, WINDOW, cut_entry_id="00000003")  # a tool result
    assert plan.first_kept_entry_id == "00000002" and "tool result" in plan.cut_reason
    assert plan.is_split_turn and plan.turn_start_entry_id == "00000001"
    with pytest.raises(PlanError, match="not on the active path"):
        plan_compaction(t, WINDOW, cut_entry_id="nope")
    b = _session()
    b.compaction()
    b.user(text_of(300))
    b.assistant()
    with pytest.raises(PlanError, match="no longer in the compactable region"):
        plan_compaction(b.build(), WINDOW, cut_entry_id="00000002")


def test_token_report_estimates_are_used_and_context_does_not_depend_on_it() -> None:
    t = _session().build()
    entries = {e.id: EntryTokens(estimate_pi=1_000, estimate_openclaw=0, exact=0)
               for e in t.entries}
    report = TokenReport(encoding="o200k_base", entries=MappingProxyType(entries),
                         reported_context=42_000, reported_entry_id=None, estimate_context=0,
                         estimate_context_openclaw=0, exact_context=0, exact_total=0,
                         by_role={}, by_type={})
    plan = plan_compaction(t, WINDOW, tokens=report, keep_recent_tokens=2_500,
                           cut_rule="tool-frames")
    # one truth: "context" is what the agent's own threshold check compares, whether or not
    # an exact count exists (the report's reported_context is not a second, other value)
    check = plan.threshold_tokens
    assert plan.context_tokens == (check if check is not None else plan.tokens_before)
    assert plan.context_tokens != 42_000
    assert plan.kept_tokens == 1_000 * len(plan.kept_entry_ids)
    # 3 x 1000 >= 2500 is reached on a tool result: the whole frame (call + 2 results + reply)
    assert plan.kept_entry_ids == ("00000007", "00000008", "00000009", "0000000a")
    # pi moves forward from that result instead: only the reply stays
    pi = plan_compaction(t, WINDOW, tokens=report, keep_recent_tokens=2_500, cut_rule="pi-0.58")
    assert pi.kept_entry_ids == ("0000000a",)


def test_oversized_and_chunks_cover_the_summarized_messages() -> None:
    b = TranscriptBuilder()
    big = b.user(text_of(45_000))  # 45000 x 1.2 > half of 100000
    near = b.user(text_of(40_000))  # 48000: not oversized
    for _ in range(10):
        b.user(text_of(3_000))
    b.assistant(text_of(10))
    plan = plan_compaction(b.build(), WINDOW)
    assert plan.oversized_entry_ids == (big.id,) and near.id not in plan.oversized_entry_ids
    assert [i for c in plan.chunks for i in c] == list(plan.summarize_entry_ids)
    assert plan.chunks[0] == (big.id,)
    assert plan.max_chunk_tokens == math.floor(100_000 * plan.chunk_ratio) - 4096


def test_context_window_comes_from_the_last_real_model() -> None:
    b = TranscriptBuilder()
    b.user()
    b.assistant(model="claude-opus-4-5")
    b.assistant(model="<synthetic>")  # Claude Code's locally made rows name no model
    path = list(b.build().path_entries())
    assert context_window_of(path, CompactionSettings()) == 200_000
    assert context_window_of(path, CompactionSettings(context_window=1234)) == 1234
    b.model_change("gpt-4o")
    assert context_window_of(list(b.build().path_entries()), CompactionSettings()) == 128_000


def test_unknown_cut_rule_is_rejected() -> None:
    with pytest.raises(PlanError, match="unknown cut rule"):
        plan_compaction(_session().build(), WINDOW, cut_rule="x")  # type: ignore[arg-type]


# ------------------------------------------------------------------------- properties

@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(t=transcripts(), keep=st.integers(min_value=0, max_value=12_000),
       rule=st.sampled_from(sorted(CUT_RULES)), manual=st.booleans())
def test_property_plan_partitions_region_and_is_deterministic(t, keep, rule, manual) -> None:
    cfg = CompactionSettings(context_window=60_000, keep_recent_tokens=keep)
    try:
        plan = plan_compaction(t, cfg, cut_rule=rule, manual=manual)
    except PlanError as exc:
        assert "compact" in str(exc)
        return
    path = list(t.path_entries())
    est = [estimate_entry_tokens(e, rule_estimator(rule)) for e in path]
    prep = prepare_rule(path, rule, keep, est, manual=manual)
    region = [path[i].id for i in (*prep.prelude, *range(prep.region_start, len(path)))
              if i != prep.boundary]
    assert [i for i in plan.region_entry_ids if i != plan.boundary_entry_id] == region
    if plan.turn_prefix_entry_ids:
        assert plan.is_split_turn
    elif plan.is_split_turn:  # pi: the cut row starts the turn itself
        assert plan.turn_start_entry_id == plan.first_kept_entry_id
    assert plan.kept_entry_ids == () or plan.kept_entry_ids[0] == plan.first_kept_entry_id
    chunked = [i for c in plan.chunks for i in c]
    assert set(chunked) <= set(plan.carried_tail_entry_ids + plan.summarize_entry_ids)
    assert chunked == sorted(chunked, key=t.active_path.index)
    # the carried tail lies before the region, and only where the rule's region leaves it out
    assert not set(plan.carried_tail_entry_ids) & set(plan.region_entry_ids)
    if plan.carried_tail_entry_ids:
        assert plan.boundary_entry_id is not None and plan.previous_compaction_id is not None
        assert (t.active_path.index(plan.carried_tail_entry_ids[-1])
                < t.active_path.index(plan.boundary_entry_id))
    kept = set(plan.kept_entry_ids)
    gone = [t.entry(i) for i in plan.summarize_entry_ids + plan.turn_prefix_entry_ids]
    calls = {c.id for e in gone if e.message is not None for c in e.message.tool_calls}
    assert not any(t.entry(i).role == "toolResult" and t.entry(i).message.tool_call_id in calls
                   for i in kept)
    assert plan_compaction(t, cfg, cut_rule=rule, manual=manual) == plan


# ------------------------------------------------------------------------- fidelity

@pytest.mark.samples
def test_fidelity_sample01_reproduces_pis_own_cuts(samples_dir) -> None:
    path = sample_path(samples_dir, "01_")
    lines = path.read_bytes().split(b"\n")
    nonblank = [n for n, raw in enumerate(lines, 1) if raw.strip()]
    objs = [json.loads(lines[n - 1]) for n in nonblank]
    compactions = [(k, o) for k, o in enumerate(objs) if o["type"] == "compaction"]
    assert len(compactions) == 2
    pi_dec_2025 = CompactionSettings(reserve_tokens=16_384, reserve_tokens_floor=0,
                                     keep_recent_tokens=20_000, context_window=200_000)
    for k, comp in compactions:
        line = nonblank[k]
        before = load_transcript_bytes(b"\n".join(lines[:line - 1]) + b"\n", path)
        expected_line = nonblank[comp["firstKeptEntryIndex"]]  # index 0 is the header
        plan = plan_compaction(before, pi_dec_2025, cut_rule="pi-2025.12")
        assert plan.first_kept_entry_id is not None
        assert before.entry(plan.first_kept_entry_id).line == expected_line
        assert plan.tokens_before == comp["tokensBefore"]
        for newer in ("pi-0.58", "tool-frames"):  # today's estimate walk cuts elsewhere
            other = plan_compaction(before, pi_dec_2025, cut_rule=newer)
            assert other.first_kept_entry_id is not None
            assert before.entry(other.first_kept_entry_id).line < expected_line
