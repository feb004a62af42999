"""Guards against writing over someone else's work: the transcript lock and change checks.

OpenClaw serialises writers of a transcript with ``<file>.jsonl.lock``, created exclusively
and holding a JSON ``{"pid", "createdAt"}``. A lock whose process is gone (a crash, a
SIGKILL) is stale, and OpenClaw itself steals stale locks, so we do the same. A lock with no
readable pid cannot be checked; it counts as held while it is younger than OpenClaw's own
stale age (30 minutes), as stale after.

A transcript that changed between the load (which the plan and summary were built on) and
the write must not be written over or summarised from stale bytes: ``ensure_unchanged``
compares size and mtime, then either the SHA-256 of the bytes (when the caller passes one,
or the model ever records one) or, failing that, every entry's line at its recorded span.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from sessionlens.engine._io.atomic import temp_name
from sessionlens.engine.errors import FileChangedError, LockHeldError, PersistError
from sessionlens.engine.model import Transcript

from .lines import entry_bytes, parse_line

__all__ = [
    "LockInfo", "lock_path_for", "read_lock", "check_lock", "hold_lock", "ensure_unchanged",
    "read_unchanged_bytes", "LOCK_STALE_SECONDS", "pid_alive",
]

#: A pid-less lock older than this is treated as abandoned (OpenClaw's default stale age).
LOCK_STALE_SECONDS = 30 * 60


@dataclass(frozen=True, slots=True)
class LockInfo:
    """What a lock file says: who holds it and whether that holder still runs."""

    path: Path
    pid: int | None
    created_at: str | None
    alive: bool

    @property
    def held(self) -> bool:
        return self.alive


def lock_path_for(path: Path | str) -> Path:
    """``session.jsonl`` -> ``session.jsonl.lock`` (OpenClaw's name for the write lock)."""
    p = Path(path)
    return p.with_name(p.name + ".lock")


def _pid_alive_windows(pid: int) -> bool:
    """Windows has no signal 0 (``os.kill(pid, 0)`` would send CTRL_C): ask the kernel."""
    import ctypes

    kernel32 = ctypes.windll.kernel32  # type: ignore[attr-defined]
    handle = kernel32.OpenProcess(0x1000, False, pid)  # PROCESS_QUERY_LIMITED_INFORMATION
    if not handle:
        return bool(kernel32.GetLastError() == 5)  # access denied: it exists
    try:
        code = ctypes.c_ulong()
        if not kernel32.GetExitCodeProcess(handle, ctypes.byref(code)):
            return True
        return code.value == 259  # STILL_ACTIVE
    finally:
        kernel32.CloseHandle(handle)


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` still runs (a pid of 0 or less never does)."""
    return _pid_alive(pid)


def _pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    if os.name == "nt":
        return _pid_alive_windows(pid)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, but belongs to another user
        return True
    except OSError:
        return False
    return True


def _parse_lock(text: str) -> tuple[int | None, str | None]:
    text = text.strip()
    if not text:
        return None, None
    try:
        obj = json.loads(text)
    except ValueError:
        return (int(text), None) if text.isdigit() else (None, None)
    if isinstance(obj, int) and not isinstance(obj, bool):
        return obj, None
    if isinstance(obj, dict):
        pid = obj.get("pid")
        created = obj.get("createdAt")
        return (pid if isinstance(pid, int) and not isinstance(pid, bool) else None,
                created if isinstance(created, str) else None)
    return None, None


def read_lock(transcript_path: Path | str) -> LockInfo | None:
    """The transcript's lock, or None when there is no lock file."""
    lock = lock_path_for(transcript_path)
    try:
        raw = lock.read_bytes()
        mtime = lock.stat().st_mtime
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise PersistError(lock, f"cannot read the lock file: {exc}") from exc
    pid, created = _parse_lock(raw.decode("utf-8", errors="replace"))
    if pid is not None:
        alive = _pid_alive(pid)
    else:
        alive = time.time() - mtime < LOCK_STALE_SECONDS
    return LockInfo(lock, pid, created, alive)


def check_lock(transcript_path: Path | str) -> LockInfo | None:
    """Raise LockHeldError if a live process holds the lock; return the (stale) lock if any."""
    info = read_lock(transcript_path)
    if info is not None and info.held:
        who = f"process {info.pid}" if info.pid is not None else "an unknown process (no pid)"
        raise LockHeldError(Path(transcript_path),
                            f"locked by {who} ({info.path.name}); close the agent or wait "
                            "until it finishes, then try again")
    return info


def _write_new_file(path: Path, body: bytes) -> None:
    """Create ``path`` (O_EXCL: FileExistsError if it exists) holding ``body``, synced."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        os.write(fd, body)
        os.fsync(fd)
    finally:
        os.close(fd)


def _create_lock(target: Path, lock: Path, body: bytes) -> None:
    """Create ``lock`` exclusively, already holding our pid.

    The pid is written to a private temp file first and the lock name is then made a hard
    link to it: ``link`` fails if the name exists (like O_CREAT|O_EXCL) and the lock never
    exists without its pid, so a writer killed mid-way leaves a stale lock (dead pid) that
    the next run takes over, never an empty one that would look held for half an hour.
    Where hard links are unsupported, O_CREAT|O_EXCL plus a write is the fallback.
    """
    tmp = lock.with_name(temp_name(lock.name))
    try:
        _write_new_file(tmp, body)
        try:
            os.link(tmp, lock)
        except FileExistsError:
            info = read_lock(target)
            pid = info.pid if info is not None else None
            raise LockHeldError(target, f"another process (pid {pid}) took {lock.name} "
                                "just now; try again") from None
        except OSError:  # no hard links here: plain exclusive create
            _write_new_file(lock, body)
    except FileExistsError:
        raise LockHeldError(target, f"{lock.name} was taken just now; try again") from None
    except OSError as exc:
        raise PersistError(lock, f"cannot create the lock file: {exc}") from exc
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


@contextlib.contextmanager
def hold_lock(transcript_path: Path | str) -> Iterator[Path]:
    """Hold ``<file>.lock`` for the duration of a write; a stale lock is taken over.

    Refuses (LockHeldError) when a live process holds it. The lock is removed on exit,
    only if it is still ours.
    """
    target = Path(transcript_path)
    lock = lock_path_for(target)
    stale = check_lock(target)
    if stale is not None:
        # Remove the stale lock only if it is still the very file we judged stale.
        with contextlib.suppress(FileNotFoundError):
            if read_lock(target) == stale:
                os.unlink(lock)
    body = json.dumps({"pid": os.getpid(),
                       "createdAt": datetime.now(UTC).isoformat(timespec="milliseconds")
                       .replace("+00:00", "Z"),
                       "owner": "sessionlens"}).encode()
    _create_lock(target, lock, body)
    try:
        yield lock
    finally:
        with contextlib.suppress(OSError):
            info = read_lock(target)
            if info is not None and info.pid == os.getpid():
                os.unlink(lock)


# --------------------------------------------------------------------------- change checks

def _expected_sha(transcript: Transcript, sha256: str | None) -> str | None:
    return sha256 or transcript.file_sha256 or None


def read_unchanged_bytes(transcript: Transcript, *, sha256: str | None = None) -> bytes:
    """The transcript's bytes on disk, after proving they are the bytes that were loaded.

    Checks size and mtime against the loaded model, then the SHA-256 (``sha256`` or the
    model's recorded ``file_sha256``). Without a recorded hash every entry's line is checked
    instead: the bytes at its recorded span must still be a JSON object of the same type and
    id, so a same-size rewrite with a faked mtime is still caught before anything is copied.
    Raises FileChangedError; nothing is written by this step.
    """
    path = transcript.path
    try:
        st = os.stat(path)
        with open(path, "rb") as fh:
            data = fh.read()
    except FileNotFoundError:
        raise FileChangedError(path, "the transcript no longer exists") from None
    except OSError as exc:
        raise PersistError(path, f"cannot read: {exc}") from exc
    if len(data) != transcript.file_size or st.st_size != transcript.file_size:
        raise FileChangedError(path, f"size changed since it was loaded ({transcript.file_size}"
                               f" -> {len(data)} bytes); reload it and plan again")
    if transcript.file_mtime_ns and st.st_mtime_ns != transcript.file_mtime_ns:
        raise FileChangedError(path, "modified since it was loaded (mtime differs); reload "
                               "it and plan again")
    expected = _expected_sha(transcript, sha256)
    if expected is not None:
        if hashlib.sha256(data).hexdigest() != expected:
            raise FileChangedError(path, "content changed since it was loaded (SHA-256 "
                                   "differs); reload it and plan again")
        return data
    _check_entry_spans(transcript, data)
    return data


def _check_entry_spans(transcript: Transcript, data: bytes) -> None:
    for e in transcript.entries:
        if e.length <= 0:
            continue
        try:
            obj: dict[str, object] | None = parse_line(entry_bytes(data, e))
        except ValueError:
            obj = None
        if obj is None or obj.get("type") != e.type or (
                "id" in obj and obj.get("id") != e.id):
            raise FileChangedError(transcript.path, f"line {e.line} no longer holds entry "
                                   f"{e.id}; reload the transcript and plan again")


def ensure_unchanged(transcript: Transcript, *, sha256: str | None = None) -> None:
    """Raise FileChangedError unless the file on disk is still the one that was loaded."""
    read_unchanged_bytes(transcript, sha256=sha256)
