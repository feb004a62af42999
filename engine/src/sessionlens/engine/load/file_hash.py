"""A transcript file's SHA-256, taken on a helper thread while the loader parses.

Why: hashing 100 MB costs ~70 ms of CPU; hashlib releases the GIL over big buffers, so on
another core it overlaps the parse instead of adding to it. ``Sha256`` hashes bytes already
in memory; ``BlockHasher`` hashes the blocks of a streamed read, in order.
"""

from __future__ import annotations

import hashlib
import threading
from queue import SimpleQueue

__all__ = ["BlockHasher", "Sha256"]


class Sha256:
    """SHA-256 of a buffer, computed on a helper thread when the buffer is big."""

    #: Below this, a thread costs more than the hash it would move off the parser's core.
    THREAD_BYTES = 4 << 20

    def __init__(self, data: bytes) -> None:
        self._hex = ""
        self._thread: threading.Thread | None = None
        if len(data) < self.THREAD_BYTES:
            self._hex = hashlib.sha256(data).hexdigest()
        else:
            self._thread = threading.Thread(target=self._run, args=(data,), daemon=True,
                                            name="sessionlens-sha256")
            self._thread.start()

    def _run(self, data: bytes) -> None:
        self._hex = hashlib.sha256(data).hexdigest()

    def join(self) -> None:
        if self._thread is not None:
            self._thread.join()

    def hex(self) -> str:
        self.join()
        return self._hex


class BlockHasher:
    """SHA-256 of blocks fed in order, on a helper thread (hashlib releases the GIL).

    Blocks are handed over in batches: every hand-over makes the parsing thread give up the
    GIL and wait to get it back, and per 1 MB block that cost more than the hash itself.
    """

    #: Bytes gathered before the helper is woken (32 MB held 50 MB more at the peak).
    BATCH_BYTES = 8 << 20

    def __init__(self) -> None:
        self._sha = hashlib.sha256()
        self._queue: SimpleQueue[list[bytes] | None] = SimpleQueue()
        self._thread = threading.Thread(target=self._run, daemon=True, name="sessionlens-sha256")
        self._thread.start()
        self._closed = False
        self._batch: list[bytes] = []
        self._batch_size = 0
        #: Bytes fed so far: the size of what was loaded.
        self.size = 0

    def _run(self) -> None:
        while (batch := self._queue.get()) is not None:
            for block in batch:
                self._sha.update(block)

    def feed(self, block: bytes) -> None:
        self.size += len(block)
        self._batch.append(block)
        self._batch_size += len(block)
        if self._batch_size >= self.BATCH_BYTES:
            self._queue.put(self._batch)
            self._batch, self._batch_size = [], 0

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            if self._batch:
                self._queue.put(self._batch)
                self._batch = []
            self._queue.put(None)
            self._thread.join()

    def hex(self) -> str:
        self.close()
        return self._sha.hexdigest()
