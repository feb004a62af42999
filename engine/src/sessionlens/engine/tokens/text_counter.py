"""Counting many texts at once, in chunks, with helper threads on spare cores.

tiktoken releases the GIL while it encodes, so a big count can use the other cores; a
small one stays on the calling thread, and the GUI asks for no helpers at all (its UI
thread keeps the other core). The encodings themselves come from ``tokenizer``.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from queue import Empty, SimpleQueue
from typing import TYPE_CHECKING

from sessionlens.engine._io.fork_policy import spare_cores
from sessionlens.engine.errors import LoadCancelled

from .tokenizer import get_encoding

if TYPE_CHECKING:
    from concurrent.futures import Future, ThreadPoolExecutor

    import tiktoken

    from .count_worker import CountWorker

__all__ = ["CHUNK_CHARS", "HELPER_START_CHUNKS", "MAX_HELPERS", "TextCounter", "count_texts",
           "use_count_worker"]

_lock = threading.Lock()

#: Text in one chunk: big enough to amortise scheduling, small enough for progress/cancel.
CHUNK_CHARS = 1 << 20
#: Helpers start only once this many chunks exist: small jobs stay on the calling thread.
HELPER_START_CHUNKS = 4
#: Each helper holds its own copy of the encoding (~40 MB for o200k), so keep them few.
MAX_HELPERS = 3

#: Text a count worker is sent at most in one count (a context is a window's worth, well
#: under it); a bigger job is counted here, with helper threads.
WORKER_MAX_CHARS = 16 << 20

_helper_pool: ThreadPoolExecutor | None = None
_helper_local = threading.local()
_workers: dict[str, CountWorker] = {}


def use_count_worker(worker: CountWorker | None, encoding: str | None = None) -> None:
    """Let counts of ``worker.encoding`` be taken by ``worker`` (None: by this process
    again, for ``encoding``); only a started worker is used."""
    if worker is None:
        if encoding is not None:
            _workers.pop(encoding, None)
        return
    if worker.started:
        _workers[worker.encoding] = worker


def _helper_count() -> int:
    """Helpers worth starting: one per core that looks idle, at most ``MAX_HELPERS``.

    A helper on a core that is already busy only adds its copy's cost and thread overhead,
    so the load average decides how many cores are spare (``spare_cores``).
    """
    cores = os.cpu_count() or 1
    return max(0, min(MAX_HELPERS, cores - 1, spare_cores()))


def _pool() -> ThreadPoolExecutor:
    """One long-lived pool, so helpers keep their private encodings between counts."""
    from concurrent.futures import ThreadPoolExecutor

    global _helper_pool
    with _lock:
        if _helper_pool is None:
            _helper_pool = ThreadPoolExecutor(max_workers=max(1, _helper_count()),
                                              thread_name_prefix="sessionlens-tokens")
        return _helper_pool


def _own_encoding(name: str) -> tiktoken.Encoding:
    """This thread's private copy of an encoding.

    tiktoken's regex is fastest on the first thread that used it; every other thread pays
    about a third more CPU per text (measured on this project's benchmark). A helper thread
    therefore builds its own copy once (~0.2 s) and keeps it for the life of the process.
    """
    import tiktoken

    own = getattr(_helper_local, name, None)
    if own is None:
        shared = get_encoding(name)
        own = tiktoken.Encoding(name, pat_str=shared._pat_str,
                                mergeable_ranks=shared._mergeable_ranks,
                                special_tokens=shared._special_tokens)
        setattr(_helper_local, name, own)
    return own


class TextCounter:
    """Token counts of many texts, added one by one, tokenized in chunks.

    The calling thread tokenizes chunks itself whenever the queue backs up; on a big job, idle
    helper threads (one per spare core, each with its own encoding) join in, since tiktoken
    releases the GIL while encoding. ``encode_ordinary`` semantics: ``<|endoftext|>`` in a
    transcript is plain text, never a special token. ``cancel()`` returning True raises
    ``LoadCancelled``; ``on_progress(done, total)`` follows the texts counted. With
    ``helpers=False`` only the calling thread works (an interactive app keeps the other core
    for its UI thread: a helper competes with it for the CPU and the GIL).
    """

    def __init__(self, encoding: str, path: Path, total: int,
                 on_progress: Callable[[int, int], None] | None = None,
                 cancel: Callable[[], bool] | None = None, *, helpers: bool = True) -> None:
        self._name = encoding
        self._use_helpers = helpers
        #: A forked worker that already built the encoding (``use_count_worker``), if any.
        self._worker = _workers.get(encoding)
        #: Loaded when this process first tokenizes (never, when the worker counts it all).
        self._encoding: tiktoken.Encoding | None = None
        self._path = path
        self._total = total
        self._on_progress = on_progress
        self._cancel = cancel
        self._queue: SimpleQueue[int | None] = SimpleQueue()
        self._chunks: list[list[str]] = []
        self._results: list[list[int] | None] = []
        self._texts: list[str] = []
        self._size = 0
        self._done = 0
        self._stop = False
        self._helpers: list[Future[None]] = []

    @property
    def _enc(self) -> tiktoken.Encoding:
        if self._encoding is None:
            self._encoding = get_encoding(self._name)
        return self._encoding

    def _encode(self, index: int, enc: tiktoken.Encoding) -> None:
        texts, self._chunks[index] = self._chunks[index], []  # free the text once counted
        self._results[index] = [len(enc.encode_ordinary(t)) if t else 0 for t in texts]
        self._done += len(texts)  # a lost update only delays a progress report

    def _helper(self) -> None:
        enc = _own_encoding(self._name)
        while not self._stop:
            index = self._queue.get()
            if index is None:
                self._queue.put(None)  # let the other helpers (and the caller) see the end
                return
            self._encode(index, enc)

    def add(self, text: str) -> None:
        """Queue one text; its count comes back from ``finish`` at the same position."""
        self._texts.append(text)
        self._size += len(text)
        if self._worker is not None:
            if self._size <= WORKER_MAX_CHARS:
                return  # all of it goes to the worker at ``finish``
            self._worker = None  # too big a job for one core: count it here, in chunks
        if self._size >= CHUNK_CHARS:
            self._flush()

    def _flush(self) -> None:
        if self._texts:
            self._chunks.append(self._texts)
            self._results.append(None)
            self._queue.put(len(self._chunks) - 1)
            self._texts, self._size = [], 0
            if (self._use_helpers and len(self._chunks) == HELPER_START_CHUNKS
                    and _helper_count()):
                pool = _pool()
                self._helpers = [pool.submit(self._helper) for _ in range(_helper_count())]
        # The caller takes a chunk itself when helpers fall behind (or there are none yet);
        # that also bounds the text held in memory to a few chunks.
        while self._queue.qsize() > 2 * len(self._helpers):
            try:
                index = self._queue.get_nowait()
            except Empty:
                break
            if index is None:
                self._queue.put(None)
                break
            self._encode(index, self._enc)
            self._check()

    def _check(self) -> None:
        if self._cancel is not None and self._cancel():
            self._stop = True
            raise LoadCancelled(self._path, "token counting cancelled")
        if self._on_progress is not None:
            self._on_progress(min(self._done, self._total), self._total)

    def finish(self) -> list[int]:
        """Counts of every text added, in order (the caller works alongside the helpers)."""
        from concurrent.futures import wait

        if self._worker is not None:
            counted = self._worker.count(self._texts)
            self._worker = None
            if counted is not None:
                self._done = len(counted)
                self._check()
                return counted
            _workers.pop(self._name, None)  # the worker failed: this process counts instead
        self._flush()
        self._queue.put(None)
        while True:
            self._check()
            index = self._queue.get()
            if index is None:
                self._queue.put(None)
                break
            self._encode(index, self._enc)
        pending = set(self._helpers)
        while pending:
            _, pending = wait(pending, timeout=0.1)
            self._check()
        for fut in self._helpers:
            fut.result()  # re-raise a helper's exception, if any
        counts: list[int] = []
        for part in self._results:
            if part is None:
                raise RuntimeError("a token-count chunk was never counted")
            counts.extend(part)
        return counts

    def close(self) -> None:
        """Stop helpers after their current chunk (used on cancel and errors)."""
        self._stop = True
        self._queue.put(None)


def count_texts(encoding: str, texts: Iterable[str], total: int, *, path: Path = Path("<texts>"),
                cancel: Callable[[], bool] | None = None, helpers: bool = True) -> list[int]:
    """Tokens of each of ``texts`` (``total`` of them), in order, through one ``TextCounter``."""
    counter = TextCounter(encoding, path, total, cancel=cancel, helpers=helpers)
    try:
        for text in texts:
            counter.add(text)
        return counter.finish()
    finally:
        counter.close()
