"""What the provider counted beyond the transcript's messages: why exact and reported differ."""

from __future__ import annotations

from pathlib import Path

from fixtures.factories import TranscriptBuilder
from fixtures.samples import sample_path
from sessionlens.engine import count_context_tokens, outside_transcript
from sessionlens.engine.cli.inspect_cmd import inspect_summary
from sessionlens.engine.load.reader import load_transcript


def test_the_gap_is_the_report_minus_the_context_up_to_the_reported_turn() -> None:
    b = TranscriptBuilder()
    ask = b.user("Please read /srv/app/config.py and tell me the port")
    answer = b.assistant("The port is 8443.", usage=5_000)
    later = b.user("and the host?")  # after the reported turn: not part of the report
    t = b.build()
    r = count_context_tokens(t)
    assert r.reported_context == 5_000 and r.reported_entry_id == answer.id
    upto = r.entries[ask.id].exact + r.entries[answer.id].exact
    assert outside_transcript(t, r) == 5_000 - upto
    assert r.entries[later.id].exact > 0 and r.exact_context == upto + r.entries[later.id].exact


def test_no_report_no_gap() -> None:
    b = TranscriptBuilder()
    b.user("hello")
    b.assistant("hi", usage=None)
    t = b.build()
    assert outside_transcript(t, count_context_tokens(t)) is None


def test_a_provider_tokenizer_that_counts_less_gives_a_negative_gap() -> None:
    b = TranscriptBuilder()
    b.user("word " * 400)
    b.assistant("ok", usage=10)
    t = b.build()
    gap = outside_transcript(t, count_context_tokens(t))
    assert gap is not None and gap < 0


def test_inspect_reports_it_on_a_real_session(samples_dir: Path) -> None:
    t = load_transcript(sample_path(samples_dir, "03_"))
    s = inspect_summary(t)
    tok = s["tokens"]
    # sample 03's reported turn is the last message of its context
    assert tok["outside_transcript"] == tok["reported_context"] - tok["exact"] == 11_811
