"""pi 1.6.0's rules and pi 0.73.1's, case by case (tests/fidelity checks them against the
releases' own code on every prefix)."""

from __future__ import annotations

from fixtures.factories import TranscriptBuilder, text_of
from sessionlens.engine.agents.pi.rule_0_58 import pi_prepare
from sessionlens.engine.agents.pi.rule_0_73 import pi073_prepare
from sessionlens.engine.agents.pi.rule_1_6 import pi16_prepare, pi16_projection
from sessionlens.engine.model import Entry, ImageBlock, Message, TextBlock, Usage
from sessionlens.engine.tokens.counts import estimate_entry_tokens


def _path(b: TranscriptBuilder) -> list[Entry]:
    return list(b.build().path_entries())


def _est(path: list[Entry]) -> list[int]:
    return [estimate_entry_tokens(e, "pi") for e in path]


def _compacted() -> tuple[TranscriptBuilder, str]:
    """Two turns, a compaction keeping the second, one more turn."""
    b = TranscriptBuilder()
    b.user(text_of(2_000))
    b.assistant(text_of(2_000), usage=5_000)
    kept = b.user(text_of(2_000)).id
    b.assistant(text_of(2_000), usage=6_000)
    b.compaction("the summary", first_kept=kept, tokens_before=6_000)
    b.user(text_of(2_000))
    b.assistant(text_of(2_000), usage=3_000)
    return b, kept


def test_since_063_the_region_starts_at_the_previous_first_kept_entry() -> None:
    b, kept = _compacted()
    path = _path(b)
    at = next(i for i, e in enumerate(path) if e.id == kept)
    assert pi073_prepare(path, 100, _est(path)).region_start == at
    assert pi16_prepare(path, 100, _est(path)).region_start == at
    assert pi_prepare(path, 100, _est(path)).region_start == at + 3  # after the compaction


def test_pi16_refuses_an_empty_compaction_where_073_prepares_one() -> None:
    b = TranscriptBuilder()
    b.user("hi")
    b.assistant("hello", usage=100)
    path = _path(b)
    assert pi16_prepare(path, 20_000, _est(path)).cut is None
    assert pi073_prepare(path, 20_000, _est(path)).cut is not None


def test_a_cut_on_a_bash_run_is_no_split_turn_in_16() -> None:
    b = TranscriptBuilder()
    b.user(text_of(4_000))
    b.assistant(text_of(4_000), usage=3_000)
    b.bash("make", text_of(200))
    b.assistant(text_of(50), usage=3_100)
    path = _path(b)
    cut16 = pi16_prepare(path, 150, _est(path)).cut
    cut058 = pi_prepare(path, 150, _est(path)).cut
    assert cut16 is not None and cut058 is not None
    assert path[cut16.first_kept_index].role == "bashExecution" and not cut16.is_split_turn
    assert cut058.first_kept_index == cut16.first_kept_index and cut058.is_split_turn


def test_trailing_tool_results_over_budget_keep_the_last_cut_point() -> None:
    b = TranscriptBuilder()
    b.user(text_of(4_000))
    b.assistant(text_of(4_000), usage=2_000)
    call = b.call("read", path="/big")
    b.assistant("", call, usage=2_100)
    b.result(call, text_of(40_000))
    path = _path(b)
    cut = pi16_prepare(path, 1_000, _est(path)).cut
    assert cut is not None and path[cut.first_kept_index].id == path[2].id
    old = pi_prepare(path, 1_000, _est(path)).cut
    assert old is not None and old.first_kept_index == 0  # 0.58 kept everything


def test_user_images_count_4800_chars_in_16() -> None:
    b = TranscriptBuilder()
    b.message(Message(role="user", content=(TextBlock("look"), ImageBlock("image/png", "x"))))
    path = _path(b)
    assert _est(path)[0] == 1
    assert pi16_projection(path, _est(path))[0].tokens == (1 + 1_200,)


def test_a_hidden_attempt_and_usage_before_the_compaction() -> None:
    """A failed attempt pi hid (context_edit, replacement null) gives the model nothing;
    tokensBefore then ignores every usage (the edit is newer), and a cut whose suffix is only
    that hidden attempt moves onto it (pi 1.6's recovery rule), so the user message that led
    to it is summarized as the split turn's prefix."""
    b, _ = _compacted()
    b.user(text_of(100))
    failed = b.message(Message(role="assistant", content=(TextBlock("x"),), provider="p",
                               model="m", usage=Usage(), stop_reason="error"))
    b.add("context_edit", targetId=failed.id, replacement=None)
    path = _path(b)
    proj = pi16_projection(path, _est(path))
    hidden = next(p for p in proj if p.entry.id == failed.id)
    assert hidden.roles == () and hidden.visible
    # the context edit is newer than every usage: tokensBefore is the estimate of it all
    prep = pi16_prepare(path, 100, _est(path))
    assert prep.tokens_before == sum(p.total for p in proj)
    cut = prep.cut
    assert cut is not None and path[cut.first_kept_index].id == failed.id and cut.is_split_turn
    assert cut.turn_start_index is not None and path[cut.turn_start_index].role == "user"
