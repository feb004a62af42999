"""Pinned text in a summary: where it goes, that the cap never cuts it, how it is checked."""

from __future__ import annotations

from fixtures.factories import TranscriptBuilder, structured_summary
from sessionlens.engine.contract.pinned import (
    PINNED_BLOCK_HEAD,
    PinnedText,
    pinned_missing,
    place_pins,
    with_pinned,
)
from sessionlens.engine.contract.templates import SUMMARY_MAX_CHARS, SUMMARY_TRUNCATION_MARKER

PIN = PinnedText("e42", "user", "Never touch prod-db-7.\nDeploy only on Tuesdays.")
SUFFIX = "\n\n<read-files>\nsrc/a.py\n</read-files>"


def test_block_goes_under_critical_context_before_the_file_tags() -> None:
    summary = structured_summary("- body") + SUFFIX
    out = with_pinned(summary, [PIN], "structured", suffix=SUFFIX)
    critical = out.index("## Critical Context")
    head = out.index(PINNED_BLOCK_HEAD)
    assert critical < head < out.index("<read-files>")
    assert out.endswith(SUFFIX)
    assert "> Never touch prod-db-7.\n> Deploy only on Tuesdays." in out
    assert pinned_missing(out, [PIN]) == ()
    assert pinned_missing(summary, [PIN]) == ("e42",)


def test_safeguard_and_headingless_summaries_get_their_own_place() -> None:
    safeguard = with_pinned("## Decisions\n- a\n\n## Exact identifiers\n- x\n\n## Tail\n- t",
                            [PIN], "safeguard")
    assert safeguard.index("## Exact identifiers") < safeguard.index(PINNED_BLOCK_HEAD) \
        < safeguard.index("## Tail")
    plain = with_pinned("just prose", [PIN], "none")
    assert plain.startswith("just prose") and "## Pinned entries" in plain


def test_the_cap_cuts_the_summary_never_the_pinned_block() -> None:
    summary = structured_summary("x" * (SUMMARY_MAX_CHARS + 500))
    out = with_pinned(summary, [PIN], "structured")
    assert len(out) <= SUMMARY_MAX_CHARS
    assert SUMMARY_TRUNCATION_MARKER in out
    assert pinned_missing(out, [PIN]) == ()


def test_word_for_word_tolerates_rewrapping_but_not_a_changed_word() -> None:
    rewrapped = "> Never touch\n> prod-db-7. Deploy only\n>   on Tuesdays."
    assert pinned_missing(rewrapped, [PIN]) == ()
    assert pinned_missing(rewrapped.replace("Tuesdays", "Mondays"), [PIN]) == ("e42",)


def test_place_pins_says_where_each_pin_stands() -> None:
    b = TranscriptBuilder()
    old = b.user("old rule").id
    side_parent = b.assistant("ok").id
    side = b.user("a side branch").id
    new = b.user("new ask", parent=side_parent).id
    b.assistant("done")
    t = b.build()
    places = {p.entry_id: p.where for p in place_pins(t, [old, side_parent], [old, new, side])}
    assert places == {old: "summary", new: "kept", side: "off_path"}


def test_a_split_turn_summary_gets_the_block_in_the_history_part() -> None:
    from sessionlens.engine.contract.templates import SPLIT_TURN_HEADER

    joined = structured_summary("- history") + SPLIT_TURN_HEADER + "## Original Request\n- ask"
    out = with_pinned(joined, [PIN], "structured")
    assert out.index("## Critical Context") < out.index(PINNED_BLOCK_HEAD) \
        < out.index("**Turn Context") < out.index("## Original Request")
