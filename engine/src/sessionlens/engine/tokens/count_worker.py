"""A forked child that builds the tokenizer while its parent loads, then counts what it is sent.

Why: the first exact count of a file's context waits a third of a second for tiktoken to
build its encoding, and the build holds the GIL, so no thread can take it off the loader's
way. A child forked before the load builds it on the other core meanwhile; after the load the
parent sends it the texts the count cache lacks and gets their counts back. ``inspect``
starts one (``_io.fork_policy.fork_allowed`` decides, as for every fork); the GUI never does.

Texts and counts cross a pipe pair as length-prefixed pickles. A worker that cannot be
started, dies, or answers wrongly answers None, and ``TextCounter`` counts the texts itself.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import struct
import sys
import time
from pathlib import Path

from sessionlens.engine._io.fork_policy import fork_allowed

__all__ = ["CountWorker"]

_LENGTH = struct.Struct("<Q")
#: How long ``close`` waits for the child to leave by itself (seconds).
CLOSE_WAIT_S = 2.0
#: Files smaller than this load faster than the tokenizer builds: a worker would only make
#: the parent wait for it at the end (and a count, if one is needed, costs the same here).
MIN_FILE_BYTES = 32 << 20


def _send(fd: int, payload: object) -> None:
    data = pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL)
    view = memoryview(_LENGTH.pack(len(data)) + data)
    while view:
        view = view[os.write(fd, view):]


def _read_exact(fd: int, n: int) -> bytes | None:
    parts: list[bytes] = []
    while n:
        chunk = os.read(fd, min(n, 1 << 20))
        if not chunk:
            return None
        parts.append(chunk)
        n -= len(chunk)
    return b"".join(parts)


def _receive(fd: int) -> object | None:
    head = _read_exact(fd, _LENGTH.size)
    if head is None:
        return None
    data = _read_exact(fd, _LENGTH.unpack(head)[0])
    return None if data is None else pickle.loads(data)


def _serve(encoding: str, requests: int, replies: int) -> None:
    """The child: build the encoding, then count each list of texts until the pipe closes."""
    from .tokenizer import get_encoding

    enc = get_encoding(encoding)
    while True:
        texts = _receive(requests)
        if not isinstance(texts, list):
            return
        _send(replies, [len(enc.encode_ordinary(t)) if t else 0 for t in texts])


class CountWorker:
    """The child for ``encoding``, started at once when a fork is allowed (``started``)."""

    def __init__(self, encoding: str, *, fork: bool | None = None) -> None:
        self.encoding = encoding
        self._pid = 0
        self._to = self._from = -1
        if not (fork_allowed() if fork is None else fork):
            return
        req_r, req_w = os.pipe()
        rep_r, rep_w = os.pipe()
        try:
            pid = os.fork()
        except OSError:
            for fd in (req_r, req_w, rep_r, rep_w):
                os.close(fd)
            return
        if pid == 0:  # the child
            os.close(req_w)
            os.close(rep_r)
            try:
                _serve(encoding, req_r, rep_w)
                code = 0
            except BaseException:  # noqa: BLE001 - the parent counts by itself instead
                code = 1
            finally:
                try:
                    sys.stderr.flush()
                finally:
                    os._exit(code)
        os.close(req_r)
        os.close(rep_w)
        self._pid, self._to, self._from = pid, req_w, rep_r

    @classmethod
    def for_file(cls, path: Path, encoding: str) -> CountWorker:
        """A worker for counting ``path``'s context: started only for a file big enough
        that its load outlasts the tokenizer's build (``MIN_FILE_BYTES``)."""
        try:
            big = path.stat().st_size >= MIN_FILE_BYTES
        except OSError:
            big = False  # "<file>/<session>" or unreadable: the load says why
        return cls(encoding, fork=None if big else False)

    @property
    def started(self) -> bool:
        return self._pid != 0

    def count(self, texts: list[str]) -> list[int] | None:
        """Tokens of each text, in order, or None when the worker cannot answer (it is then
        closed, and asked nothing more)."""
        if not self._pid:
            return None
        try:
            _send(self._to, texts)
            counts = _receive(self._from)
        except (OSError, pickle.PickleError, EOFError):
            counts = None
        if (isinstance(counts, list) and len(counts) == len(texts)
                and all(type(n) is int for n in counts)):
            return counts
        self.close()
        return None

    def close(self) -> None:
        """End the child and reap it: it leaves when its pipe closes (once its encoding is
        built, so a tokenizer file it is writing is never cut short); one that has not left
        within ``CLOSE_WAIT_S`` (a sibling forked later holds the pipe open) is killed."""
        if not self._pid:
            return
        pid, self._pid = self._pid, 0
        for fd in (self._to, self._from):
            with contextlib.suppress(OSError):
                os.close(fd)
        deadline = time.monotonic() + CLOSE_WAIT_S
        with contextlib.suppress(ChildProcessError, ProcessLookupError):  # already reaped
            while os.waitpid(pid, os.WNOHANG) == (0, 0):
                if time.monotonic() > deadline:
                    os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
                    return
                time.sleep(0.005)
