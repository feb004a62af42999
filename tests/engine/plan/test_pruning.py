"""Pruning preview: old tool results replaced by a marker, recent turns protected."""

from __future__ import annotations

import math

from fixtures.factories import TranscriptBuilder, text_of
from sessionlens.engine.plan.pruning import PRUNED_MARKER, preview_pruning
from sessionlens.engine.tokens.counts import estimate_entry_tokens


def _turns(n: int, result_size: int = 500) -> tuple[TranscriptBuilder, list[str], list[str]]:
    b = TranscriptBuilder()
    users, results = [], []
    for k in range(n):
        users.append(b.user(text_of(10)).id)
        c = b.call("read", path=f"/f{k}")
        b.assistant(text_of(10), c)
        results.append(b.result(c, text_of(result_size)).id)
        b.assistant(text_of(10))
    return b, users, results


def test_results_older_than_the_last_turns_are_pruned() -> None:
    b, users, results = _turns(5)
    t = b.build()
    p = preview_pruning(t, keep_turns=3)
    marker = math.ceil(len(PRUNED_MARKER) / 4)
    assert p.marker_tokens == marker
    assert p.pruned_entry_ids == tuple(results[:2])
    assert p.protected_from_entry_id == users[2]
    assert p.tokens_saved == 2 * (500 - marker)
    total = sum(estimate_entry_tokens(t.entry(i.entry_id)) for i in t.context)
    assert p.tokens_before == total and p.tokens_after == total - p.tokens_saved


def test_keep_zero_prunes_all_and_more_turns_than_exist_prunes_none() -> None:
    b, _, results = _turns(3)
    t = b.build()
    assert preview_pruning(t, keep_turns=0).pruned_entry_ids == tuple(results)
    assert preview_pruning(t, keep_turns=0).protected_from_entry_id is None
    assert preview_pruning(t, keep_turns=4).pruned_entry_ids == ()
    assert preview_pruning(t, keep_turns=4).tokens_saved == 0


def test_results_smaller_than_the_marker_are_left_alone() -> None:
    b, _, results = _turns(4, result_size=2)
    p = preview_pruning(b.build(), keep_turns=1)
    assert p.pruned_entry_ids == () and p.tokens_saved == 0


def test_only_the_replayed_context_counts() -> None:
    b, _, results = _turns(4)
    b.compaction("s", first_kept=None)  # hard boundary: nothing before it is in context
    b.user(text_of(10))
    c = b.call("read", path="/x")
    b.assistant(text_of(10), c)
    late = b.result(c, text_of(300))
    b.user(text_of(10))
    p = preview_pruning(b.build(), keep_turns=1)
    assert p.pruned_entry_ids == (late.id,)
    assert not set(results) & set(p.pruned_entry_ids)


def test_each_pruned_result_says_what_it_trims_and_since_which_turn() -> None:
    b, users, results = _turns(5)
    p = preview_pruning(b.build(), keep_turns=3)
    marker = math.ceil(len(PRUNED_MARKER) / 4)
    assert [r.entry_id for r in p.results] == list(p.pruned_entry_ids) == results[:2]
    assert all(r.tool_name == "read" and r.tokens == 500 for r in p.results)
    assert [r.trimmed_tokens for r in p.results] == [500 - marker] * 2
    assert sum(r.trimmed_tokens for r in p.results) == p.tokens_saved
    # the result of turn k leaves the last three turns when turn k + 3 starts
    assert [r.pruned_since_entry_id for r in p.results] == [users[3], users[4]]


def test_keep_zero_prunes_from_the_first_call() -> None:
    b, _, results = _turns(2)
    p = preview_pruning(b.build(), keep_turns=0)
    assert [r.entry_id for r in p.results] == results
    assert all(r.pruned_since_entry_id is None for r in p.results)
