"""``tokens.count_worker``: a forked child counts for the parent; any failure, the parent does."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import pytest

from sessionlens.engine._io.fork_policy import allow_fork
from sessionlens.engine.tokens import text_counter
from sessionlens.engine.tokens.count_worker import CountWorker
from sessionlens.engine.tokens.text_counter import count_texts, use_count_worker
from sessionlens.engine.tokens.tokenizer import get_encoding

linux_only = pytest.mark.skipif(sys.platform != "linux", reason="forks only on Linux")
TEXTS = ["", "deploy the billing service", "the health check returned HTTP 503 from /healthz",
         "日本語のテキスト 😀", "<|endoftext|> is plain text here"]


def _local(texts: list[str]) -> list[int]:
    enc = get_encoding("o200k_base")
    return [len(enc.encode_ordinary(t)) for t in texts]


@linux_only
def test_the_worker_counts_as_this_process_would() -> None:
    worker = CountWorker("o200k_base", fork=True)
    try:
        assert worker.started
        assert worker.count(TEXTS) == _local(TEXTS)
        assert worker.count(TEXTS[1:3]) == _local(TEXTS[1:3])  # it serves more than once
    finally:
        worker.close()
    assert not worker.started and worker.count(TEXTS) is None


@linux_only
def test_a_dead_worker_answers_none_and_is_closed() -> None:
    worker = CountWorker("o200k_base", fork=True)
    os.kill(worker._pid, signal.SIGKILL)
    assert worker.count(TEXTS) is None
    assert not worker.started


def test_no_worker_without_leave_to_fork() -> None:
    allow_fork(False)
    worker = CountWorker("o200k_base")
    assert not worker.started and worker.count(TEXTS) is None
    use_count_worker(worker)  # a worker that never started is never used
    assert "o200k_base" not in text_counter._workers


class _FakeWorker:
    """Stands in for a started worker: answers ``answer`` (None: a failed worker)."""

    encoding = "o200k_base"
    started = True

    def __init__(self, answer: list[int] | None) -> None:
        self.answer = answer
        self.asked: list[list[str]] = []

    def count(self, texts: list[str]) -> list[int] | None:
        self.asked.append(list(texts))
        return self.answer


def _finish(texts: list[str]) -> list[int]:
    return count_texts("o200k_base", texts, len(texts))


def test_a_counter_hands_its_texts_to_the_worker() -> None:
    fake = _FakeWorker([7] * len(TEXTS))
    use_count_worker(fake)  # type: ignore[arg-type]
    try:
        assert _finish(TEXTS) == [7] * len(TEXTS)
        assert fake.asked == [TEXTS]
    finally:
        use_count_worker(None, "o200k_base")


def test_a_failed_worker_is_made_up_for_and_dropped() -> None:
    fake = _FakeWorker(None)
    use_count_worker(fake)  # type: ignore[arg-type]
    try:
        assert _finish(TEXTS) == _local(TEXTS)
        assert "o200k_base" not in text_counter._workers
    finally:
        use_count_worker(None, "o200k_base")


def test_a_job_too_big_for_the_worker_is_counted_here(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(text_counter, "WORKER_MAX_CHARS", 40)
    fake = _FakeWorker([0] * len(TEXTS))
    use_count_worker(fake)  # type: ignore[arg-type]
    try:
        assert _finish(TEXTS) == _local(TEXTS)
        assert fake.asked == []
    finally:
        use_count_worker(None, "o200k_base")


@linux_only
def test_closing_a_worker_held_open_by_a_sibling_ends_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from sessionlens.engine.tokens import count_worker

    monkeypatch.setattr(count_worker, "CLOSE_WAIT_S", 0.2)
    worker = CountWorker("o200k_base", fork=True)
    held = os.dup(worker._to)  # as a child forked later would hold it
    try:
        pid = worker._pid
        worker.close()
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)  # killed and reaped
    finally:
        os.close(held)


@linux_only
def test_a_worker_only_for_a_big_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from sessionlens.engine._io import fork_policy as forked
    from sessionlens.engine.tokens import count_worker

    monkeypatch.setattr(forked, "spare_cores", lambda: 1)
    monkeypatch.setattr(forked.threading, "active_count", lambda: 1)
    allow_fork(True)
    try:
        small = tmp_path / "s.jsonl"
        small.write_text("{}\n")
        assert not CountWorker.for_file(small, "o200k_base").started
        assert not CountWorker.for_file(tmp_path / "missing.jsonl", "o200k_base").started
        monkeypatch.setattr(count_worker, "MIN_FILE_BYTES", 2)
        big = CountWorker.for_file(small, "o200k_base")
        try:
            assert big.started and big.count(["a b c"]) == _local(["a b c"])
        finally:
            big.close()
    finally:
        allow_fork(False)
