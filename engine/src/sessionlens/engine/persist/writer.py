"""Making a compaction real on disk: successor or append, checkpoint, session store.

The public face of the write path. Every step holds the transcript's ``.jsonl.lock``,
proves the file is still the one that was loaded, and writes through a temp file + fsync +
rename (``atomic``). ``write_compaction`` runs the whole transaction in the order that keeps
a crash harmless: the checkpoint copy and the successor first (new files nobody points at
yet), the session store last (the one step that makes OpenClaw follow the new file). If a
step fails, the files this run created are removed again and an in-place append is undone.

Append in place rewrites the whole file atomically instead of ``write()``-ing one line with
O_APPEND: the kernel may cut a multi-page write short when the writer is killed, leaving a
torn last line that pi would glue its next append onto; a rename is all-or-nothing.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Literal

from sessionlens.engine._io.atomic import (
    atomic_copy,
    atomic_write_bytes,
    atomic_write_chunks,
    atomic_write_text,
    file_mode,
    fsync_directory,
)
from sessionlens.engine.errors import FileChangedError, PersistError
from sessionlens.engine.model import Transcript

from .agent_writers import agent_writer, rollout_writer, store_writer
from .checkpoints import (
    PostCompaction,
    checkpoint_store_edit,
    compacted_since_load,
    moved_on_from,
    plan_checkpoint,
    write_checkpoint,
)
from .continuation import refuse_second_successor
from .guard import (
    LockInfo,
    check_lock,
    ensure_unchanged,
    hold_lock,
    lock_path_for,
    read_lock,
    read_unchanged_bytes,
)
from .names import WriteNames, choose_names
from .record import CompactionRecord, WriteResult
from .recovery import Journal, recover_interrupted_write, remove_journal, write_journal
from .store_write import find_store, read_store_object, update_store
from .successor import appended_bytes, build_successor, require_writable

__all__ = [
    "atomic_write_bytes", "atomic_write_text", "atomic_write_chunks", "atomic_copy",
    "fsync_directory", "LockInfo", "lock_path_for", "read_lock", "check_lock", "hold_lock",
    "ensure_unchanged", "write_successor", "append_compaction", "write_compaction",
    "WRITE_MODES", "WriteMode",
]

WriteMode = Literal["successor", "append"]
WRITE_MODES: tuple[WriteMode, ...] = ("successor", "append")


def _prepare_successor(transcript: Transcript, data: bytes, record: CompactionRecord,
                       names: WriteNames) -> tuple[PostCompaction, Callable[[], object]]:
    """Build the successor in memory (every refusal happens here, before any write)."""
    content = build_successor(transcript, data, record, names=names)
    target = transcript.path.absolute().parent / content.file_name
    post = PostCompaction(content.session_id, target, content.compaction_entry_id,
                          content.first_kept_entry_id, content.dropped_retry_copies)
    mode = file_mode(transcript.path)
    return post, lambda: atomic_write_bytes(target, content.data(), mode=mode, exclusive=True)


def _prepare_append(transcript: Transcript, data: bytes, record: CompactionRecord,
                    names: WriteNames) -> tuple[PostCompaction, Callable[[], object]]:
    new_bytes, comp_id, first_kept = appended_bytes(transcript, data, record, names=names)
    post = PostCompaction(transcript.session_id or "", transcript.path, comp_id, first_kept)

    def write() -> None:
        # Last look right before the rename: a writer that ignores the lock loses nothing.
        st = os.stat(transcript.path)
        if st.st_size != len(data) or (transcript.file_mtime_ns
                                       and st.st_mtime_ns != transcript.file_mtime_ns):
            raise FileChangedError(transcript.path, "changed while the compaction was being "
                                   "written; nothing was appended")
        # Through a symlink, replace the file it points to, not the link itself.
        atomic_write_bytes(Path(os.path.realpath(transcript.path)), new_bytes)

    return post, write


Prepare = Callable[[Transcript, bytes, CompactionRecord, WriteNames],
                   tuple[PostCompaction, Callable[[], object]]]


def _write_agent_successor(transcript: Transcript, record: CompactionRecord, names: WriteNames,
                           sha256: str | None) -> PostCompaction:
    """Under the transcript's lock, the file unchanged since it was loaded: the successor
    written atomically, refusing to replace a file of that name."""
    with hold_lock(transcript.path):
        data = read_unchanged_bytes(transcript, sha256=sha256)
        post, write = _prepare_successor(transcript, data, record, names)
        write()
    return post


def _write_alone(transcript: Transcript, compaction: CompactionRecord, prepare: Prepare,
                 now: datetime | None, sha256: str | None,
                 allow_second_successor: bool = False) -> PostCompaction:
    """One write step on its own (no checkpoint, no store), under the lock, file unchanged."""
    require_writable(transcript, "append" if prepare is _prepare_append else "successor")
    database = store_writer(transcript.format)
    if database is not None:  # rows of an agent's database (one transaction)
        result = database.write(transcript, compaction, choose_names(transcript, now))
        return PostCompaction(result.session_id or "", transcript.path,
                              result.compaction_entry_id or "", result.first_kept_entry_id or "")
    own = rollout_writer(transcript.format)
    if own is not None:
        names = own.names(transcript, now)
        target = own.write(transcript, compaction, names, sha256=sha256)
        return PostCompaction(names.session_id, target, "", "")
    with hold_lock(transcript.path):
        data = read_unchanged_bytes(transcript, sha256=sha256)
        if not allow_second_successor:
            refuse_second_successor(transcript.path)
        post, write = prepare(transcript, data, compaction, choose_names(transcript, now))
        write()
    return post


def write_successor(transcript: Transcript, compaction: CompactionRecord, *,
                    now: datetime | None = None, sha256: str | None = None,
                    allow_second_successor: bool = False) -> WriteResult:
    """Write only the successor transcript (no checkpoint, no store); the original stays."""
    post = _write_alone(transcript, compaction, _prepare_successor, now, sha256,
                        allow_second_successor)
    return WriteResult(written=(post.path,), successor_path=post.path,
                       compaction_entry_id=post.compaction_entry_id,
                       session_id=post.session_id,
                       first_kept_entry_id=post.first_kept_entry_id,
                       dropped_retry_copies=post.dropped_retry_copies)


def append_compaction(transcript: Transcript, compaction: CompactionRecord, *,
                      now: datetime | None = None, sha256: str | None = None,
                      allow_second_successor: bool = False) -> WriteResult:
    """Append the compaction entry to the original transcript (only on explicit request)."""
    post = _write_alone(transcript, compaction, _prepare_append, now, sha256,
                        allow_second_successor)
    return WriteResult(written=(transcript.path,), compaction_entry_id=post.compaction_entry_id,
                       session_id=post.session_id,
                       first_kept_entry_id=post.first_kept_entry_id)


def write_compaction(transcript: Transcript, record: CompactionRecord,
                     mode: WriteMode = "successor", *, now: datetime | None = None,
                     store_path: Path | None | Literal["auto"] = "auto",
                     sha256: str | None = None, names: WriteNames | None = None,
                     allow_second_successor: bool = False) -> WriteResult:
    """Checkpoint + successor (or append) + session store, all or nothing as far as possible.

    ``store_path="auto"`` uses the ``sessions.json`` beside the transcript when there is one;
    None leaves every store alone. Raises LockHeldError / FileChangedError before anything
    is written (also when another run compacted the file since it was loaded); on any later
    failure the files created so far are removed again. A store that holds no record of
    the transcript is named in ``notes``. A transcript that already has a successor raises
    SecondSuccessorError (checked under the lock, so two runs at once cannot both pass)
    unless ``allow_second_successor``.
    """
    if mode not in ("successor", "append"):
        raise PersistError(transcript.path, f"unknown write mode {mode!r}")
    require_writable(transcript, mode)
    database = store_writer(transcript.format)
    if database is not None:  # rows of an agent's database (one transaction)
        return database.write(transcript, record, names or choose_names(transcript, now))
    own = rollout_writer(transcript.format)
    if own is not None:   # a new session beside the day's others; nothing else
        names = names or own.names(transcript, now)
        target = own.write(transcript, record, names, sha256=sha256)
        return WriteResult(written=(target,), successor_path=target,
                           session_id=names.session_id, notes=tuple(
                               recover_interrupted_write(transcript.path)))
    if agent_writer(transcript.format) is not None:
        # another agent's own format (agent_writers): the successor alone, a new session
        # beside the original, which stays as it is (no checkpoint needed, no store)
        post = _write_agent_successor(transcript, record, names or choose_names(transcript, now),
                                      sha256)
        return WriteResult(written=(post.path,), successor_path=post.path,
                           compaction_entry_id=post.compaction_entry_id,
                           session_id=post.session_id,
                           first_kept_entry_id=post.first_kept_entry_id)
    folder = transcript.path.absolute().parent
    store = find_store(folder) if store_path == "auto" else store_path
    created: list[Path] = []
    original: bytes | None = None
    notes: list[str] = list(recover_interrupted_write(transcript.path))
    with hold_lock(transcript.path):  # the whole check-then-write happens under the lock
        data = read_unchanged_bytes(transcript, sha256=sha256)
        if store is not None:
            follows = moved_on_from(read_store_object(store)[1], transcript)
            if follows is not None:
                raise FileChangedError(transcript.path, "was already compacted: "
                                       f"{Path(store).name} follows {follows} now; nothing "
                                       "was written (compact that file instead)")
        done = compacted_since_load(transcript, data)
        if done is not None:
            raise FileChangedError(transcript.path, "was compacted by another run while this "
                                   f"one worked (checkpoint {done.name}); nothing was written: "
                                   "reload the session and compact its newest file")
        if not allow_second_successor:  # under the lock: two runs cannot both pass
            refuse_second_successor(transcript.path)
        prepare = _prepare_successor if mode == "successor" else _prepare_append
        names = names or choose_names(transcript, now)
        post, write_main = prepare(transcript, data, record, names)
        try:
            # the journal says what comes next, so a run killed from here on is finished or
            # undone by the next load (recovery.py); removed once the store agrees
            checkpoint = plan_checkpoint(transcript, names.checkpoint_id)
            write_journal(Journal(mode, transcript.path.absolute(), transcript.session_id,
                                  checkpoint, post, Path(store) if store is not None else None,
                                  record))
            write_checkpoint(transcript, data, checkpoint)
            created.append(checkpoint.path)
            if mode == "successor":
                write_main()
                created.append(post.path)
            else:
                write_main()  # raises before its rename, or has fully replaced the file
                original = data  # from here on an undo must put the original back
            # absolute like the checkpoint's, also when the transcript was named relatively
            written = (list(created) if mode == "successor"
                       else [checkpoint.path, post.path.absolute()])
            store_written = False
            if store is not None:
                edits = update_store(store, lambda obj: checkpoint_store_edit(
                    obj, transcript.path, transcript.session_id, checkpoint, post, record,
                    moved=mode == "successor", now=now))
                store_written = bool(edits)
                if store_written:
                    written.append(Path(store))
                else:  # said, never silent: the agent will not follow this compaction
                    notes.append(f"{Path(store).name} holds no record of {transcript.path.name};"
                                 " it was left unchanged")
            remove_journal(transcript.path)
        except BaseException:
            _undo(transcript.path, created, original)
            remove_journal(transcript.path)
            raise
    return WriteResult(
        written=tuple(written),
        successor_path=post.path if mode == "successor" else None,
        checkpoint_path=checkpoint.path,
        store_path=Path(store) if store is not None and store_written else None,
        compaction_entry_id=post.compaction_entry_id, session_id=post.session_id,
        first_kept_entry_id=post.first_kept_entry_id,
        dropped_retry_copies=post.dropped_retry_copies, notes=tuple(notes))


def _undo(transcript_path: Path, created: list[Path], original: bytes | None) -> None:
    """Remove what this run created; put back the original bytes after an append."""
    if original is not None:
        with contextlib.suppress(PersistError, OSError):
            atomic_write_bytes(Path(os.path.realpath(transcript_path)), original)
    for path in reversed(created):
        with contextlib.suppress(OSError):
            os.unlink(path)
    if created:
        fsync_directory(transcript_path.parent)
