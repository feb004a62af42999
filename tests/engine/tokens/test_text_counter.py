"""The chunked counter: helper threads count like the caller, and start on spare cores only."""

from __future__ import annotations

import pytest

from sessionlens.engine.tokens import text_counter
from sessionlens.engine.tokens.tokenizer import get_encoding


def _count_in_chunks(texts: list[str], *, helpers: bool = True) -> list[int]:
    return text_counter.count_texts("o200k_base", texts, len(texts), helpers=helpers)


def test_helper_threads_count_like_the_caller(monkeypatch: pytest.MonkeyPatch) -> None:
    """Enough chunks to start the helpers (each with its own encoding copy) on any machine."""
    monkeypatch.setattr(text_counter, "CHUNK_CHARS", 10)
    monkeypatch.setattr(text_counter, "_helper_count", lambda: 2)
    texts = [f"entry {i}: " + "lorem ipsum dolor " * (i % 7) for i in range(400)]
    counts = _count_in_chunks(texts)
    enc = get_encoding("o200k_base")
    assert counts == [len(enc.encode_ordinary(x)) for x in texts]


def test_without_helpers_only_the_calling_thread_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    """``helpers=False`` (what the GUI asks for) starts no helper and counts the same."""
    monkeypatch.setattr(text_counter, "CHUNK_CHARS", 10)
    monkeypatch.setattr(text_counter, "_helper_count", lambda: 2)
    started: list[object] = []
    monkeypatch.setattr(text_counter, "_pool", lambda: started.append(1))
    texts = [f"entry {i}: " + "lorem ipsum dolor " * (i % 7) for i in range(200)]
    counts = _count_in_chunks(texts, helpers=False)
    enc = get_encoding("o200k_base")
    assert counts == [len(enc.encode_ordinary(x)) for x in texts]
    assert started == []


@pytest.mark.parametrize(("cores", "load", "helpers"), [
    (1, 0.0, 0), (2, 0.2, 1), (2, 1.0, 1), (2, 1.8, 0), (2, 4.5, 0), (8, 1.0, 3), (8, 6.0, 2),
])
def test_helpers_only_on_spare_cores(monkeypatch: pytest.MonkeyPatch, cores: int, load: float,
                                     helpers: int) -> None:
    monkeypatch.setattr(text_counter.os, "cpu_count", lambda: cores)
    monkeypatch.setattr(text_counter.os, "getloadavg", lambda: (load, load, load))
    assert text_counter._helper_count() == helpers
