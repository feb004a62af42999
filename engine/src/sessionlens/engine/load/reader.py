"""Open a transcript file: detect its format, parse it, resolve its tree.

``load_transcript`` raises only when nothing can be loaded (missing path, a directory, an
empty file, a file of no known format); every per-line problem becomes a Diagnostic on the
returned Transcript. Other agents' files are parsed by their adapter modules
(``formats.catalog`` lists them), which return the same ``ParsedFile`` as the pi parser,
report progress and honour ``cancel`` the same way, and share ``tree.build_transcript``.
SQLite databases are read in place through ``formats.sqlite_open`` (read-only, WAL-aware);
a session inside a multi-session file is addressed as ``<file>/<session>``.
"""

from __future__ import annotations

import dataclasses
import gc
import importlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

from sessionlens.engine._io.atomic import file_clock_ns
from sessionlens.engine.errors import (
    LoadCancelled,
    LoadError,
    NotATranscriptError,
    SessionLensError,
)
from sessionlens.engine.model import Diagnostic, Format, Transcript
from sessionlens.engine.persist.checkpoints import CHECKPOINT_MARK
from sessionlens.engine.persist.recovery import recover_interrupted_write

from .detect import SNIFF_LINES, sniff_format
from .file_hash import BlockHasher, Sha256
from .formats import ParsedFile
from .formats.catalog import FORMATS
from .formats.field_errors import FIELD_ERRORS, field_problem
from .formats.jsonl import iter_file_lines
from .formats.sqlite_open import SQLITE_MAGIC, Opened, is_sqlite, open_bytes, open_readonly
from .tree import build_transcript

__all__ = [
    "load_transcript", "load_transcript_bytes", "detect_format", "parse_bytes",
    "sniff_format", "split_session_path",
]

#: How much of a file detection reads.
_SNIFF_BYTES = 1 << 20
_SNIFF_MAX_BYTES = 16 << 20

#: The pi reader (``formats.catalog``): v3 files are streamed through its ``parse_lines``.
_PI_READER = FORMATS["openclaw-v3"].module
#: Adapter module and a readable name per format that is not pi's own.
_ADAPTERS: dict[str, tuple[str, str]] = {
    fmt: (entry.module, entry.agent) for fmt, entry in FORMATS.items()
    if entry.module != _PI_READER}


def split_session_path(path: Path) -> tuple[Path, str | None]:
    """``(file, session)``: a path that does not exist but whose parent is a file names one
    session inside a multi-session file (``crush.db/<session-id>``, ``.aider.chat.history.md/3``)."""
    if not path.exists() and path.parent != path and path.parent.is_file():
        return path.parent, path.name
    return path, None


def _read_head(path: Path) -> bytes:
    """Enough leading bytes to hold a few complete lines (a first line may be huge)."""
    with open(path, "rb") as fh:
        return _head_of(fh)


def _head_of(fh: BinaryIO) -> bytes:
    limit = _SNIFF_BYTES
    head = fh.read(limit)
    while head.count(b"\n") < SNIFF_LINES and len(head) == limit and limit < _SNIFF_MAX_BYTES:
        head += fh.read(limit)
        limit *= 2
    return head


def detect_format(path_or_bytes: Path | str | bytes) -> Format:
    """The format of a file (or of its first bytes); NotATranscriptError if unknown."""
    if isinstance(path_or_bytes, bytes):
        return sniff_format(path_or_bytes)
    path, _session = split_session_path(Path(path_or_bytes))
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


def _adapter(fmt: Format, path: Path) -> Any:
    """The adapter module of ``fmt`` (imported on first use)."""
    module_name, label = _ADAPTERS[fmt]
    qualified = module_name
    try:
        return importlib.import_module(qualified)
    except ModuleNotFoundError as exc:
        if exc.name != qualified:
            raise
        raise NotATranscriptError(path, f"recognised as a {label} transcript, but reading "
                                  f"{label} files is not supported yet") from exc


def _no_session(path: Path, fmt: Format, session: str | None) -> None:
    entry = FORMATS.get(fmt)
    if session is not None and (entry is None or not entry.sessions):
        raise LoadError(path / session, f"{path.name} holds a single session, so there is "
                        f"no {session!r} inside it")


def parse_bytes(data: bytes, path: Path, fmt: Format, *,
                on_progress: Callable[[int, int], None] | None = None,
                cancel: Callable[[], bool] | None = None,
                session: str | None = None) -> ParsedFile:
    """Run the parser of ``fmt`` over a whole file's bytes (``session`` picks one session of
    a multi-session file)."""
    _no_session(path, fmt, session)
    try:
        return _parse_bytes(data, path, fmt, on_progress, cancel, session)
    except FIELD_ERRORS as exc:
        raise _unreadable(path, exc) from exc


def _unreadable(path: Path, exc: BaseException) -> BaseException:
    """The net under the adapters' per-record nets (``formats.field_errors``): a field error
    outside any record's reading is a LoadError naming the file, never a traceback."""
    if isinstance(exc, SessionLensError):
        return exc
    return LoadError(path, f"cannot be read: {field_problem(exc)}")


def _parse_bytes(data: bytes, path: Path, fmt: Format,
                 on_progress: Callable[[int, int], None] | None,
                 cancel: Callable[[], bool] | None, session: str | None) -> ParsedFile:
    if fmt not in _ADAPTERS:
        parsed_pi: ParsedFile = importlib.import_module(_PI_READER).parse(
            data, path, on_progress=on_progress, cancel=cancel)
        return parsed_pi
    module = _adapter(fmt, path)
    if cancel is not None and cancel():
        raise LoadCancelled(path, "cancelled before parsing")
    if FORMATS[fmt].kind == "sqlite":
        with open_bytes(data, path) as opened:
            return _parse_db(module, opened, path, fmt, session, on_progress, cancel)
    if FORMATS[fmt].sessions:
        parsed: ParsedFile = module.parse(data, path, on_progress=on_progress, cancel=cancel,
                                          session=session)
    else:
        parsed = module.parse(data, path, on_progress=on_progress, cancel=cancel)
    return parsed


def _parse_db(module: Any, opened: Opened, path: Path, fmt: Format, session: str | None,
              on_progress: Callable[[int, int], None] | None,
              cancel: Callable[[], bool] | None) -> ParsedFile:
    try:
        parsed: ParsedFile = module.parse_db(opened, path, fmt, session,
                                             on_progress=on_progress, cancel=cancel)
    except FIELD_ERRORS as exc:
        raise _unreadable(path, exc) from exc
    return parsed


def _build(path: Path, parsed: ParsedFile, size: int, mtime_ns: int, sha: str) -> Transcript:
    transcript = build_transcript(path, parsed.format, parsed.header, parsed.entries,
                                  parsed.diagnostics, size, mtime_ns, sha, parsed.gaps)
    entry = FORMATS.get(parsed.format)
    if entry is None or entry.row_reader is None:
        return transcript
    module, _, function = entry.row_reader.partition(":")
    return dataclasses.replace(transcript, row_reader=getattr(importlib.import_module(module),
                                                              function))


def _gc_paused(work: Callable[[], Transcript]) -> Transcript:
    """Run ``work`` with cyclic GC paused: hundreds of thousands of new objects and no
    garbage, so GC passes over them would cost as much as the parse itself (the load
    benchmark shows ~2x)."""
    gc_was_on = gc.isenabled()
    gc.disable()
    try:
        return work()
    finally:
        if gc_was_on:
            gc.enable()


def load_transcript_bytes(data: bytes, path: Path | str = "<memory>", *,
                          file_mtime_ns: int = 0,
                          on_progress: Callable[[int, int], None] | None = None,
                          cancel: Callable[[], bool] | None = None,
                          session: str | None = None, loaded_at_ns: int = 0,
                          notes: tuple[Diagnostic, ...] = (),
                          checkpoints_at_load: frozenset[str] = frozenset()) -> Transcript:
    """Load a transcript from bytes already in memory (tests, adapters, stdin).

    ``loaded_at_ns`` is when the file was read (a write tells later compactions by other
    runs from it); ``notes`` are diagnostics of what happened before the read."""
    path = Path(path)
    head = data[:_SNIFF_BYTES]
    if head.count(b"\n") < SNIFF_LINES and len(data) > len(head):
        head = data[:_SNIFF_MAX_BYTES]  # a huge first line
    fmt = sniff_format(head, str(path))
    shown = path if session is None else path / session
    # The file's hash (~70 ms per 100 MB) runs on another core while this one parses:
    # hashlib releases the GIL over big buffers. It is joined before the Transcript exists.
    digest = Sha256(data)

    def work() -> Transcript:
        try:
            parsed = parse_bytes(data, path, fmt, on_progress=on_progress, cancel=cancel,
                                 session=session)
            transcript = _build(shown, parsed, len(data), file_mtime_ns, digest.hex())
        finally:
            digest.join()
        return _stamped(transcript, loaded_at_ns, notes, checkpoints_at_load)

    return _gc_paused(work)


def _stamped(transcript: Transcript, loaded_at_ns: int, notes: tuple[Diagnostic, ...],
             checkpoints_at_load: frozenset[str]) -> Transcript:
    """``transcript`` with when it was read, what happened before, and the checkpoints then
    (called with GC still paused: a pass now would cost ~0.1 s)."""
    if not (loaded_at_ns or notes):
        return transcript
    return dataclasses.replace(transcript, loaded_at_ns=loaded_at_ns,
                               diagnostics=transcript.diagnostics + notes,
                               checkpoints_at_load=checkpoints_at_load)


def _load_database(file: Path, shown: Path, head: bytes, session: str | None,
                   on_progress: Callable[[int, int], None] | None,
                   cancel: Callable[[], bool] | None) -> Transcript:
    """A session of a SQLite database, read in place (WAL-aware, read-only; see
    ``formats.sqlite_open``). Its bytes are not hashed: SessionLens never writes to it."""
    fmt = sniff_format(head, str(file))
    _no_session(file, fmt, session)
    module = _adapter(fmt, file)
    try:
        st = file.stat()
    except OSError as exc:
        raise LoadError(file, f"cannot read: {exc.strerror or exc}") from exc
    size = st.st_size

    def work() -> Transcript:
        with open_readonly(file) as opened:
            parsed = _parse_db(module, opened, file, fmt, session, on_progress, cancel)
        return _build(shown, parsed, size, st.st_mtime_ns, "")

    return _gc_paused(work)


def load_transcript(path: Path | str, *, on_progress: Callable[[int, int], None] | None = None,
                    cancel: Callable[[], bool] | None = None) -> Transcript:
    """Load one transcript file; per-line problems end up in ``diagnostics``.

    ``<file>/<session>`` opens one session of a multi-session file (a Crush or OpenCode
    database, an Aider history); the file alone opens the session its adapter names the
    default (its docstring says which).

    pi / OpenClaw files are streamed (``iter_file_lines``): the file's bytes are never all
    in memory beside the entries built from them, and its hash is taken from the same reads
    on another core. Other agents' files are read whole for their adapters.
    """
    shown = Path(path)
    file, session = split_session_path(shown)
    _check_path(file)
    repaired = _recover(file)
    stamp = file_clock_ns()  # before the read: anything written later is newer than this
    seen = _checkpoints_beside(file)
    try:
        fh = open(file, "rb")
    except OSError as exc:
        raise LoadError(file, f"cannot read: {exc.strerror or exc}") from exc
    notes = tuple(Diagnostic(str(file), None, note, "warning") for note in repaired)
    with fh:
        try:
            st = os.fstat(fh.fileno())
            head = fh.read(len(SQLITE_MAGIC))
            if is_sqlite(head):
                head += fh.read(_SNIFF_BYTES - len(head))
                return _load_database(file, shown, head, session, on_progress, cancel)
            head += _head_of(fh)
            fmt = sniff_format(head, str(file))
            if fmt in _ADAPTERS:
                data = head + fh.read()
            else:
                _no_session(file, fmt, session)
                fh.seek(0)
                return _stream_pi(fh, file, st, on_progress, cancel,
                                  stamp=stamp, notes=notes, seen=seen)
        except OSError as exc:
            raise LoadError(file, f"cannot read: {exc.strerror or exc}") from exc
    return load_transcript_bytes(
        data, file, file_mtime_ns=st.st_mtime_ns, on_progress=on_progress, cancel=cancel,
        session=session, loaded_at_ns=stamp, checkpoints_at_load=seen, notes=notes)


def _stream_pi(fh: BinaryIO, path: Path, st: os.stat_result,
               on_progress: Callable[[int, int], None] | None,
               cancel: Callable[[], bool] | None, *, stamp: int,
               notes: tuple[Diagnostic, ...], seen: frozenset[str]) -> Transcript:
    hasher = BlockHasher()

    def work() -> Transcript:
        try:
            try:
                parsed = importlib.import_module(_PI_READER).parse_lines(iter_file_lines(fh, on_block=hasher.feed),
                                               st.st_size, path, on_progress=on_progress,
                                               cancel=cancel)
            except FIELD_ERRORS as exc:
                raise _unreadable(path, exc) from exc
            transcript = _build(path, parsed, hasher.size, st.st_mtime_ns, hasher.hex())
        finally:
            hasher.close()
        return _stamped(transcript, stamp, notes, seen)

    return _gc_paused(work)


def _checkpoints_beside(file: Path) -> frozenset[str]:
    """Checkpoint copies in the file's folder now (see ``Transcript.checkpoints_at_load``)."""
    try:
        return frozenset(p.name for p in file.absolute().parent.glob(f"*{CHECKPOINT_MARK}*"))
    except OSError:
        return frozenset()


def _recover(path: Path) -> tuple[str, ...]:
    """Finish or undo a SessionLens write of ``path`` that was killed (a journal beside the
    file says so) before reading it, so the file and ``sessions.json`` agree; sweeps our
    dead leftovers. What it did is reported as a diagnostic. (``persist.recovery`` and
    what it uses never load a transcript, so loading sits above them.)"""
    return recover_interrupted_write(path)
