"""Crash-safe file writes: a file is either its old self or its complete new self.

Every write goes to a temp file in the target's own folder (so ``os.replace`` is a rename
on one file system, which POSIX makes atomic), is flushed and fsynced, then renamed over
the target; the folder is fsynced too so the rename itself survives a power cut. The temp
file is removed on any failure. Temp names start with a dot and end in ``.sessionlens-tmp``
so session scanners (which look for ``*.jsonl``) never mistake a leftover for a transcript.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import time
from collections.abc import Iterable
from pathlib import Path

from sessionlens.engine.errors import PersistError

__all__ = [
    "atomic_write_bytes", "atomic_write_text", "atomic_write_chunks", "atomic_copy",
    "fsync_directory", "file_mode", "TEMP_SUFFIX", "is_temp_name", "file_clock_ns",
    "temp_name", "temp_owner_pid",
]

#: Ending of every temp file this module creates (a leftover after a kill is recognisable).
TEMP_SUFFIX = ".sessionlens-tmp"
_COPY_CHUNK = 1 << 20


def file_clock_ns() -> int:
    """Now, comparable with the ``st_mtime_ns`` of a file written after this call.

    Linux stamps files from its coarse clock, which can lag ``time.time_ns()`` by a tick;
    reading that same clock means "written after" is never mistaken for "before". Elsewhere
    the precise clock is read, less a margin for coarse file-system timestamps.
    """
    coarse = getattr(time, "CLOCK_REALTIME_COARSE", None)
    if coarse is not None:
        with contextlib.suppress(OSError):
            return time.clock_gettime_ns(coarse)
    return time.time_ns() - 20_000_000


def is_temp_name(name: str) -> bool:
    """True for the name of a temp file left behind by an interrupted write."""
    return name.startswith(".") and name.endswith(TEMP_SUFFIX)


def temp_name(target_name: str) -> str:
    """``.<target>.<pid>-<random><TEMP_SUFFIX>``: the pid lets a sweep tell a leftover of a
    dead process from the temp file of a write still running."""
    return f".{target_name}.{os.getpid()}-{secrets.token_hex(6)}{TEMP_SUFFIX}"


def temp_owner_pid(name: str) -> int | None:
    """The pid in a ``temp_name`` (None for another or an older naming)."""
    if not is_temp_name(name):
        return None
    tag = name[: -len(TEMP_SUFFIX)].rsplit(".", 1)[-1]
    pid, sep, _rand = tag.partition("-")
    return int(pid) if sep and pid.isdigit() else None


def file_mode(path: Path) -> int:
    """Permission bits a copy of ``path`` should get (0o644 when it cannot be read)."""
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        return 0o644


def fsync_directory(folder: Path) -> None:
    """Make a rename or create in ``folder`` durable (a no-op where folders cannot be opened)."""
    flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)
    try:
        fd = os.open(folder, flags)
    except OSError:  # Windows cannot open a folder; its renames are journaled anyway
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write_chunks(path: Path | str, chunks: Iterable[bytes], *, mode: int | None = None,
                        exclusive: bool = False) -> Path:
    """Write ``chunks`` to ``path`` atomically; returns the path.

    ``mode`` sets the permission bits (default: those of the file being replaced, else
    0o644 as a new file would get). With ``exclusive`` an existing ``path`` is an error
    instead of being replaced (used for new successors and checkpoints, whose names are
    fresh UUIDs: a clash would mean something is badly wrong, never overwrite it).
    """
    target = Path(path)
    folder = target.parent
    if mode is None:
        try:
            mode = target.stat().st_mode & 0o7777
        except FileNotFoundError:
            mode = 0o644
    tmp = folder / temp_name(target.name)
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as exc:
        raise PersistError(target, f"cannot create a temp file in {folder}: {exc}") from exc
    try:
        with os.fdopen(fd, "wb") as fh:
            for chunk in chunks:
                fh.write(chunk)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        if exclusive:
            _publish_new(tmp, target)
        else:
            os.replace(tmp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise PersistError(target, f"write failed: {exc}") from exc
        raise
    fsync_directory(folder)
    return target


def _publish_new(tmp: Path, target: Path) -> None:
    """Give ``tmp`` the name ``target`` only if no file has that name yet."""
    try:
        # link() refuses an existing name, where replace() would silently clobber it.
        os.link(tmp, target)
    except FileExistsError:
        raise PersistError(target, "already exists; refusing to overwrite it") from None
    except OSError:  # a file system without hard links
        if os.path.lexists(target):
            raise PersistError(target, "already exists; refusing to overwrite it") from None
        os.replace(tmp, target)
        return
    os.unlink(tmp)


def atomic_write_bytes(path: Path | str, data: bytes, *, mode: int | None = None,
                       exclusive: bool = False) -> Path:
    """Replace (or create) ``path`` with exactly ``data``, never leaving a partial file."""
    return atomic_write_chunks(path, (data,), mode=mode, exclusive=exclusive)


def atomic_write_text(path: Path | str, text: str, *, encoding: str = "utf-8",
                      mode: int | None = None, exclusive: bool = False) -> Path:
    """``atomic_write_bytes`` for text (no newline translation: what you pass is written)."""
    return atomic_write_bytes(path, text.encode(encoding), mode=mode, exclusive=exclusive)


def atomic_copy(src: Path | str, dst: Path | str, *, exclusive: bool = True) -> Path:
    """Copy ``src`` to ``dst`` atomically, streaming (big transcripts are not read at once)."""
    source = Path(src)

    def chunks() -> Iterable[bytes]:
        with open(source, "rb") as fh:
            while block := fh.read(_COPY_CHUNK):
                yield block

    try:
        mode = source.stat().st_mode & 0o7777
    except OSError as exc:
        raise PersistError(source, f"cannot read: {exc}") from exc
    return atomic_write_chunks(dst, chunks(), mode=mode, exclusive=exclusive)
