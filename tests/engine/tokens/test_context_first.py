"""What the model sees is counted first: same figures as the whole-file count, nothing faked."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings

from fixtures.factories import TranscriptBuilder, transcripts
from fixtures.samples import sample_path
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.model import Transcript
from sessionlens.engine.tokens.count_cache import CountCache
from sessionlens.engine.tokens.counts import (
    context_series,
    count_context_tokens,
    count_tokens,
)
from sessionlens.engine.tokens.estimate import measure_entry, pi_entry_chars


def _agree(t: Transcript) -> None:
    cache = CountCache()
    first = count_context_tokens(t, cache=cache)
    full = count_tokens(t, cache=cache)
    assert first.scope == "context" and full.scope == "file" and full.complete
    for name in ("reported_context", "reported_entry_id", "estimate_context",
                 "estimate_context_openclaw", "exact_context"):
        assert getattr(first, name) == getattr(full, name), name
    assert set(first.entries) == {i.entry_id for i in t.context}
    assert all(first.entries[i] == full.entries[i] for i in first.entries)
    # nothing outside the context is claimed: whole-file figures are unknown, not 0
    assert first.exact_total is None and first.by_role is None and first.by_type is None
    assert first.pending == len(t.entries) - len(first.entries) and not first.complete
    # the series needs only estimates: the GUI works it out while the count runs
    assert context_series(t, first) == context_series(t, full) == context_series(t)


@settings(max_examples=25, deadline=None)
@given(transcripts())
def test_context_first_count_equals_the_full_counts_context(t: Transcript) -> None:
    _agree(t)


@pytest.mark.samples
@pytest.mark.parametrize("prefix", ["01_", "03_", "04_", "07_", "09_"])
def test_context_first_on_the_real_samples(samples_dir: Path, prefix: str) -> None:
    _agree(load_transcript(sample_path(samples_dir, prefix)))


def test_the_full_report_is_returned_once_it_exists() -> None:
    b = TranscriptBuilder()
    b.user("hello there")
    b.assistant("hi", usage=120)
    t = b.build()
    full = count_tokens(t, cache=CountCache())
    assert count_context_tokens(t) is full


@settings(max_examples=40, deadline=None)
@given(transcripts())
def test_the_quick_pi_estimate_is_measure_entrys(t: Transcript) -> None:
    for e in t.entries:
        assert pi_entry_chars(e) == measure_entry(e)[1]


def test_the_quick_pi_estimate_charges_images_as_measure_entry_does() -> None:
    from sessionlens.engine.model import ImageBlock, Message, TextBlock

    img = ImageBlock(mime_type="image/png", data="iVBORw0KGgo=")
    b = TranscriptBuilder()
    b.message(Message(role="user", content=(TextBlock("look"), img)))
    b.message(Message(role="toolResult", content=(TextBlock("shot"), img, img),
                      tool_call_id="c1", tool_name="screenshot"))
    b.message(Message(role="custom", content=(img,), custom_type="x"))
    b.custom_message("😀 emoji counts twice")
    b.bash("ls", "a\nb", exclude=True)
    for e in b.build().entries:
        assert pi_entry_chars(e) == measure_entry(e)[1] > 0
