"""A number is kept only with what it measures."""

from __future__ import annotations

import pytest

from fixtures.factories import TranscriptBuilder
from sessionlens.engine.contract.identifiers import extract_identifiers, summary_contains
from sessionlens.engine.contract.measures import measured_subject


@pytest.mark.parametrize(("text", "value", "meaning"), [
    ("The p99 latency went from 240 ms to 175 ms.", "175 ms", ("p99", "latency")),
    ("Keep in mind the cache budget is 512 MB in production.", "512 MB", ("cache", "budget")),
    ("It uses 2 GB RAM at peak.", "2 GB", ("ram",)),
    ("Timeout: 30s", "30s", ("timeout",)),
    ("- 40 tokens", "40 tokens", ()),
])
def test_measured_subject(text: str, value: str, meaning: tuple[str, ...]) -> None:
    start = text.index(value)
    phrase, words = measured_subject(text, start, start + len(value))
    assert words == meaning
    assert (value in phrase) == bool(meaning)


def test_a_number_without_its_meaning_is_lost() -> None:
    b = TranscriptBuilder()
    b.user("The p99 latency went from 240 ms to 175 ms after the cache change.")
    q = next(i for i in extract_identifiers(b.entries) if i.value == "175 ms")
    assert q.meaning == ("p99", "latency") and q.display.endswith("175 ms")
    assert not summary_contains("- latency now 175 ms", q.value, q.cls, q.meaning)
    assert not summary_contains("- p99 latency improved\n- 175 ms", q.value, q.cls, q.meaning)
    assert summary_contains("- p99 latency: 175ms", q.value, q.cls, q.meaning)
    assert summary_contains("- 175 ms", q.value, q.cls)  # the bare rule still exists
