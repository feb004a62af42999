"""Finishing or undoing a write that was killed half-way, and sweeping what it left behind.

A compaction touches two files that must agree: the transcript (or its successor) and
``sessions.json``. No rename can change both at once, so before the main write the writer
leaves a journal, ``.<transcript>.sessionlens-journal``, saying what it is about to do, and
removes it once the store is updated. A journal whose writer is dead means the write was
cut off: if the compaction landed in the file, the store update is made now (roll
forward); if it did not, the checkpoint made for it is removed (roll back). The next load
does this before it reads (as a database replays its journal when it is opened), so the
file and the store agree again; what it did becomes a diagnostic.

Temp files (``atomic.TEMP_SUFFIX``) and lock files are removed only when they are ours
(our name pattern, ``"owner": "sessionlens"`` in a lock) and the process that made them is
gone. Another program's lock is never touched.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sessionlens.engine._io.atomic import TEMP_SUFFIX, atomic_write_bytes, temp_owner_pid
from sessionlens.engine.errors import PersistError

from .checkpoints import CHECKPOINT_MARK, Checkpoint, PostCompaction, checkpoint_store_edit
from .guard import LOCK_STALE_SECONDS, hold_lock, pid_alive, read_lock
from .record import CompactionRecord
from .store_write import update_store

__all__ = ["JOURNAL_SUFFIX", "Journal", "journal_path", "needs_recovery", "recover_interrupted_write",
           "remove_journal", "sweep_stale_files", "write_journal"]

JOURNAL_SUFFIX = ".sessionlens-journal"
_OWNER = "sessionlens"


def journal_path(transcript_path: Path) -> Path:
    p = Path(transcript_path).absolute()
    return p.with_name(f".{p.name}{JOURNAL_SUFFIX}")


@dataclass(frozen=True, slots=True)
class Journal:
    """What an in-flight compaction write is about to do (enough to finish or undo it)."""

    mode: str
    transcript: Path
    session_id: str | None
    checkpoint: Checkpoint
    post: PostCompaction
    store: Path | None
    record: CompactionRecord
    pid: int = 0

    def to_json(self) -> bytes:
        """The journal's bytes. Every path is absolute and resolved, whatever the working
        folder and however the transcript was named: the load that reads it back may run
        anywhere (issue 39 item 14: a relative path read from another folder found no
        file, so a landed append was taken for one that never happened and rolled back)."""
        return json.dumps({
            "owner": _OWNER, "pid": os.getpid(),
            "createdAt": datetime.now(UTC).isoformat(timespec="milliseconds"),
            "mode": self.mode, "transcript": _stored(self.transcript),
            "sessionId": self.session_id,
            "checkpoint": {"path": _stored(self.checkpoint.path),
                           "sessionId": self.checkpoint.session_id,
                           "leafId": self.checkpoint.leaf_id},
            "post": {"sessionId": self.post.session_id, "path": _stored(self.post.path),
                     "compactionEntryId": self.post.compaction_entry_id,
                     "firstKeptEntryId": self.post.first_kept_entry_id},
            "store": _stored(self.store) if self.store is not None else None,
            "record": {"summary": self.record.summary,
                       "firstKeptEntryId": self.record.first_kept_entry_id,
                       "tokensBefore": self.record.tokens_before,
                       "tokensAfter": self.record.tokens_after},
        }, ensure_ascii=False).encode("utf-8")

    @classmethod
    def from_json(cls, raw: bytes, folder: Path | None = None) -> Journal:
        """Read a journal back. ``folder`` is where the journal lies: a relative path in
        it (journals written before paths were stored absolute) names the file of that
        name there, never one under the reader's working folder (a write touches only files
        in the transcript's folder, which is the journal's)."""
        obj = json.loads(raw)
        if not isinstance(obj, dict) or obj.get("owner") != _OWNER:
            raise ValueError("not a SessionLens journal")
        cp, post, rec = obj["checkpoint"], obj["post"], obj["record"]

        def where(value: Any) -> Path:
            return _interpreted(str(value), folder)

        return cls(
            mode=str(obj["mode"]), transcript=where(obj["transcript"]),
            session_id=obj.get("sessionId"),
            checkpoint=Checkpoint(where(cp["path"]), str(cp["sessionId"]), cp.get("leafId")),
            post=PostCompaction(str(post["sessionId"]), where(post["path"]),
                                str(post["compactionEntryId"]), str(post["firstKeptEntryId"])),
            store=where(obj["store"]) if obj.get("store") else None,
            record=CompactionRecord(str(rec["summary"]), rec.get("firstKeptEntryId"),
                                    int(rec["tokensBefore"]), rec.get("tokensAfter")),
            pid=int(obj.get("pid") or 0))


def _stored(path: Path) -> str:
    """How a journal holds a path: absolute, its folder's symlinks resolved, its own name
    kept (a store record names the transcript by its file name)."""
    absolute = Path(os.path.abspath(path))
    return str(Path(os.path.realpath(absolute.parent)) / absolute.name)


def _interpreted(value: str, folder: Path | None) -> Path:
    """A journal's path as the file it names: absolute as written; relative (an old
    journal) as the file of that name in the journal's folder."""
    path = Path(value)
    if path.is_absolute() or folder is None:
        return path
    return Path(os.path.realpath(folder)) / path.name


def _same_folder(a: Path, b: Path) -> bool:
    return os.path.realpath(a) == os.path.realpath(b)


def write_journal(journal: Journal) -> Path:
    """Leave the journal (atomically) before the write it describes."""
    return atomic_write_bytes(journal_path(journal.transcript), journal.to_json())


def remove_journal(transcript_path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(journal_path(transcript_path))


def _landed(journal: Journal) -> bool:
    """Did the main write reach its file? (Renames are atomic: a file is whole or absent.)"""
    target = journal.post.path
    try:
        data = target.read_bytes()
    except OSError:
        return False
    cid = journal.post.compaction_entry_id
    needle = cid.encode("utf-8")
    for line in data.split(b"\n"):
        if needle in line:
            with contextlib.suppress(ValueError):
                obj = json.loads(line)
                if isinstance(obj, dict) and obj.get("id") == cid and obj.get("type") == "compaction":
                    return True
    return False


def _store_recorded(store: Mapping[str, Any], cid: str) -> bool:
    for rec in store.values():
        cps = rec.get("compactionCheckpoints") if isinstance(rec, dict) else None
        for cp in cps if isinstance(cps, list) else ():
            post = cp.get("postCompaction") if isinstance(cp, dict) else None
            if isinstance(post, dict) and post.get("entryId") == cid:
                return True
    return False


def _finish(journal: Journal, folder: Path) -> str:
    cid = journal.post.compaction_entry_id
    if not _landed(journal):
        cp = journal.checkpoint.path
        if CHECKPOINT_MARK in cp.name and _same_folder(cp.parent, folder):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(cp)
        if journal.mode == "successor" and _same_folder(journal.post.path.parent, folder):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(journal.post.path)
        return (f"an interrupted compaction ({cid}) had not reached the file; it was rolled "
                "back (its checkpoint removed), the file and the store are as before it")
    if journal.store is None or not journal.store.is_file():
        return f"an interrupted compaction ({cid}) had been written completely"
    edits = update_store(journal.store, lambda obj: {} if _store_recorded(obj, cid) else
                         checkpoint_store_edit(obj, journal.transcript, journal.session_id,
                                               journal.checkpoint, journal.post, journal.record,
                                               moved=journal.mode == "successor"))
    if not edits:
        return f"an interrupted compaction ({cid}) had been written completely"
    return (f"an interrupted compaction ({cid}) was in the file but not in "
            f"{journal.store.name}; the store was brought up to date")


def recover_interrupted_write(transcript_path: Path | str) -> tuple[str, ...]:
    """Finish or undo a killed write of this transcript; sweep our dead leftovers.

    Returns what was done, one sentence each (empty when there was nothing to do). Never
    raises for what it cannot do: that is reported instead, and the load goes on.
    """
    path = Path(transcript_path).absolute()
    notes: list[str] = []
    jpath = journal_path(path)
    if jpath.exists():
        try:
            journal = Journal.from_json(jpath.read_bytes(), jpath.parent)
            young = time.time() - jpath.stat().st_mtime < LOCK_STALE_SECONDS
            if journal.pid != os.getpid() and pid_alive(journal.pid) and young:
                notes.append(f"a SessionLens write of this file is in progress (pid "
                             f"{journal.pid}); not touched")
            else:
                with hold_lock(path):
                    notes.append(_finish(journal, jpath.parent))
                    remove_journal(path)
        except (OSError, ValueError, KeyError, TypeError, PersistError) as exc:
            notes.append(f"could not finish an interrupted compaction ({jpath.name}): {exc}")
    removed = sweep_stale_files(path.parent)
    if removed:
        notes.append(f"removed {len(removed)} leftover file(s) of SessionLens runs that were "
                     "killed: " + ", ".join(sorted(p.name for p in removed)[:5])
                     + (" ..." if len(removed) > 5 else ""))
    return tuple(notes)


def _is_temp_name(name: str) -> bool:
    return name.startswith(".") and name.endswith(TEMP_SUFFIX)


def _is_lock_name(name: str) -> bool:
    return name.endswith(".lock")


def needs_recovery(transcript_path: Path | str) -> bool:
    """True when loading the file would have something to finish or sweep first: a journal
    of an interrupted write, or temp or lock files that may be ours (read-only: the load's
    ``recover_interrupted_write`` decides what they are)."""
    path = Path(transcript_path).absolute()
    if journal_path(path).exists():
        return True
    try:
        with os.scandir(path.parent) as it:
            return any(_is_temp_name(e.name) or _is_lock_name(e.name) for e in it)
    except OSError:
        return True


def sweep_stale_files(folder: Path) -> list[Path]:
    """Remove our temp and lock files in ``folder`` whose process is gone; returns them."""
    removed: list[Path] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    now = time.time()
    for entry in entries:
        name = entry.name
        try:
            if _is_temp_name(name):
                pid = temp_owner_pid(name)
                stale = (not pid_alive(pid) if pid is not None
                         else now - entry.stat().st_mtime > LOCK_STALE_SECONDS)
                if stale:
                    os.unlink(entry.path)
                    removed.append(Path(entry.path))
            elif _is_lock_name(name) and _is_dead_lock_of_ours(Path(entry.path)):
                removed.append(Path(entry.path))
        except OSError:
            continue
    return removed


def _is_dead_lock_of_ours(lock: Path) -> bool:
    """Remove ``lock`` if SessionLens made it and its process is gone (True if removed)."""
    try:
        raw = lock.read_bytes()
        obj = json.loads(raw)
    except (OSError, ValueError):
        return False
    if not isinstance(obj, dict) or obj.get("owner") != _OWNER:
        return False
    info = read_lock(lock.with_name(lock.name.removesuffix(".lock")))
    if info is None or info.alive:
        return False
    if lock.read_bytes() != raw:  # taken over meanwhile
        return False
    os.unlink(lock)
    return True
