"""Open a transcript file: detect its format, parse it, resolve its tree.

``load_transcript`` raises only when nothing can be loaded (missing path, a directory, an
empty file, a file of no known format); every per-line problem becomes a Diagnostic on the
returned Transcript. Claude Code and Codex files are parsed by their adapter modules
(``formats.claude_code`` / ``formats.codex``), which return the same ``ParsedFile`` as the
pi parser, report progress and honour ``cancel`` the same way, and share
``tree.build_transcript``.
"""

from __future__ import annotations

import gc
import hashlib
import importlib
import os
import threading
from collections.abc import Callable
from pathlib import Path
from queue import SimpleQueue
from typing import Any, BinaryIO

import orjson

from sessionlens.engine.errors import LoadCancelled, LoadError, NotATranscriptError
from sessionlens.engine.model import KNOWN_ENTRY_TYPES, Format, Transcript

from .formats import ParsedFile
from .formats import pi as pi_format
from .formats.jsonl import iter_file_lines
from .tree import build_transcript

__all__ = [
    "load_transcript", "load_transcript_bytes", "detect_format", "parse_bytes",
    "sniff_format",
]

#: How much of a file detection reads, and how many JSON lines it looks at.
_SNIFF_BYTES = 1 << 20
_SNIFF_MAX_BYTES = 16 << 20
_SNIFF_LINES = 8

_CODEX_TYPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context",
                          "compacted"})
_CLAUDE_KEYS = ("uuid", "parentUuid", "sessionId", "leafUuid")

#: Adapter module (under ``sessionlens.engine.load.formats``) and a readable name per format.
_ADAPTERS: dict[str, tuple[str, str]] = {
    "claude-code": ("claude_code", "Claude Code"),
    "codex": ("codex", "Codex"),
}


def _classify(obj: Any) -> Format | None:
    """The format one JSON line belongs to, or None if it tells nothing."""
    if type(obj) is not dict:
        return None
    t = obj.get("type")
    if t == "session" and "id" in obj:
        version = obj.get("version")
        fmt: Format = pi_format.FORMAT_BY_VERSION.get(
            version if isinstance(version, int) else 1, "openclaw-v3")
        return fmt
    if t in _CODEX_TYPES and "payload" in obj:
        return "codex"
    if isinstance(t, str) and any(k in obj for k in _CLAUDE_KEYS):
        return "claude-code"
    if t in KNOWN_ENTRY_TYPES and ("parentId" in obj or "message" in obj):
        return "openclaw-v3" if "id" in obj else "pi-v1"  # a pi file missing its header
    return None


def sniff_format(head: bytes, name: str = "<bytes>") -> Format:
    """Detect the format from the first bytes of a file (complete lines only)."""
    if not head.strip():
        raise LoadError(name, "empty file")
    seen: list[str] = []
    for _no, start, stop in pi_format.iter_lines(head):
        raw = head[start:stop]
        if not raw.strip():
            continue
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError:
            seen.append("a line that is not JSON")
        else:
            fmt = _classify(obj)
            if fmt is not None:
                return fmt
            seen.append(_describe(obj))
        if len(seen) >= _SNIFF_LINES:
            break
    what = "; ".join(dict.fromkeys(seen)) or "no complete line"
    if head.lstrip()[:1] in (b"{", b"[") and len(head) < _SNIFF_BYTES:
        try:
            orjson.loads(head)
        except orjson.JSONDecodeError:
            pass
        else:  # e.g. a sessions.json store opened by mistake
            what = "a single JSON document, not JSON lines"
    raise NotATranscriptError(name, f"not a session transcript (pi/OpenClaw, Claude Code or "
                              f"Codex): saw {what}")


def _describe(obj: Any) -> str:
    if type(obj) is not dict:
        return f"a JSON {type(obj).__name__}"
    keys = ", ".join(list(obj)[:5])
    t = obj.get("type")
    return f"an object with type {t!r} (keys: {keys})" if t is not None else \
        f"an object with keys {keys}"


def _read_head(path: Path) -> bytes:
    """Enough leading bytes to hold a few complete lines (a first line may be huge)."""
    with open(path, "rb") as fh:
        return _head_of(fh)


def _head_of(fh: BinaryIO) -> bytes:
    limit = _SNIFF_BYTES
    head = fh.read(limit)
    while head.count(b"\n") < _SNIFF_LINES and len(head) == limit and limit < _SNIFF_MAX_BYTES:
        head += fh.read(limit)
        limit *= 2
    return head


def detect_format(path_or_bytes: Path | str | bytes) -> Format:
    """The format of a file (or of its first bytes); NotATranscriptError if unknown."""
    if isinstance(path_or_bytes, bytes):
        return sniff_format(path_or_bytes)
    path = Path(path_or_bytes)
    _check_path(path)
    try:
        head = _read_head(path)
    except OSError as exc:
        raise LoadError(path, f"cannot read: {exc.strerror or exc}") from exc
    return sniff_format(head, str(path))


def _check_path(path: Path) -> None:
    if path.is_dir():
        raise LoadError(path, "is a directory, not a transcript file")
    if not path.exists():
        raise LoadError(path, "no such file")


def parse_bytes(data: bytes, path: Path, fmt: Format, *,
                on_progress: Callable[[int, int], None] | None = None,
                cancel: Callable[[], bool] | None = None) -> ParsedFile:
    """Run the parser of ``fmt`` over a whole file's bytes."""
    if fmt not in _ADAPTERS:
        return pi_format.parse(data, path, on_progress=on_progress, cancel=cancel)
    module_name, label = _ADAPTERS[fmt]
    qualified = f"{__package__}.formats.{module_name}"
    try:
        module = importlib.import_module(qualified)
    except ModuleNotFoundError as exc:
        if exc.name != qualified:
            raise
        raise NotATranscriptError(path, f"recognised as a {label} transcript, but reading "
                                  f"{label} files is not supported yet") from exc
    if cancel is not None and cancel():
        raise LoadCancelled(path, "cancelled before parsing")
    parsed: ParsedFile = module.parse(data, path, on_progress=on_progress, cancel=cancel)
    return parsed


def load_transcript_bytes(data: bytes, path: Path | str = "<memory>", *,
                          file_mtime_ns: int = 0,
                          on_progress: Callable[[int, int], None] | None = None,
                          cancel: Callable[[], bool] | None = None) -> Transcript:
    """Load a transcript from bytes already in memory (tests, adapters, stdin)."""
    path = Path(path)
    head = data[:_SNIFF_BYTES]
    if head.count(b"\n") < _SNIFF_LINES and len(data) > len(head):
        head = data[:_SNIFF_MAX_BYTES]  # a huge first line
    fmt = sniff_format(head, str(path))
    # The file's hash (~70 ms per 100 MB) runs on another core while this one parses:
    # hashlib releases the GIL over big buffers. It is joined before the Transcript exists.
    digest = _Sha256(data)
    # Hundreds of thousands of new objects and no garbage: cyclic GC passes over them would
    # cost as much as the parse itself (the load benchmark shows ~2x), so pause it.
    gc_was_on = gc.isenabled()
    gc.disable()
    try:
        parsed = parse_bytes(data, path, fmt, on_progress=on_progress, cancel=cancel)
        return build_transcript(path, parsed.format, parsed.header, parsed.entries,
                                parsed.diagnostics, len(data), file_mtime_ns, digest.hex())
    finally:
        digest.join()
        if gc_was_on:
            gc.enable()


class _Sha256:
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


class _BlockHasher:
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


def load_transcript(path: Path | str, *, on_progress: Callable[[int, int], None] | None = None,
                    cancel: Callable[[], bool] | None = None) -> Transcript:
    """Load one transcript file; per-line problems end up in ``diagnostics``.

    pi / OpenClaw files are streamed (``iter_file_lines``): the file's bytes are never all
    in memory beside the entries built from them, and its hash is taken from the same reads
    on another core. Claude Code and Codex files are read whole for their adapters.
    """
    path = Path(path)
    _check_path(path)
    try:
        fh = open(path, "rb")
    except OSError as exc:
        raise LoadError(path, f"cannot read: {exc.strerror or exc}") from exc
    with fh:
        try:
            st = os.fstat(fh.fileno())
            head = _head_of(fh)
            fmt = sniff_format(head, str(path))
            if fmt in _ADAPTERS:
                data = head + fh.read()
            else:
                fh.seek(0)
                return _stream_pi(fh, path, st.st_size, st.st_mtime_ns, on_progress, cancel)
        except OSError as exc:
            raise LoadError(path, f"cannot read: {exc.strerror or exc}") from exc
    return load_transcript_bytes(data, path, file_mtime_ns=st.st_mtime_ns,
                                 on_progress=on_progress, cancel=cancel)


def _stream_pi(fh: BinaryIO, path: Path, size: int, mtime_ns: int,
               on_progress: Callable[[int, int], None] | None,
               cancel: Callable[[], bool] | None) -> Transcript:
    hasher = _BlockHasher()
    gc_was_on = gc.isenabled()
    gc.disable()  # see load_transcript_bytes
    try:
        parsed = pi_format.parse_lines(iter_file_lines(fh, on_block=hasher.feed), size, path,
                                       on_progress=on_progress, cancel=cancel)
        return build_transcript(path, parsed.format, parsed.header, parsed.entries,
                                parsed.diagnostics, hasher.size, mtime_ns, hasher.hex())
    finally:
        hasher.close()
        if gc_was_on:
            gc.enable()
