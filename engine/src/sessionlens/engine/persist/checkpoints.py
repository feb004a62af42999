"""Compaction checkpoints: the pre-compaction file kept aside, and restoring from one.

Every write keeps the transcript as it was before the compaction in
``<sessionId>.checkpoint.<uuid>.jsonl`` beside it, and (where the folder's ``sessions.json``
holds the session) adds a ``compactionCheckpoints`` record in OpenClaw's shape
(transcript-format.md §2.6), so OpenClaw's own branch/restore sees SessionLens's
compactions like its own. Restoring never overwrites anything: it forks the checkpoint into
a new ``<ts>_<uuid>.jsonl`` whose header points back at the checkpoint.
"""

from __future__ import annotations

import glob
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sessionlens.engine._io.atomic import atomic_write_bytes, atomic_write_chunks, file_mode
from sessionlens.engine.errors import PersistError
from sessionlens.engine.model import Transcript

from .guard import read_unchanged_bytes
from .lines import header_line, iso_timestamp, new_session_id, new_uuid, session_file_name
from .retry_storms import RetryCopy
from .store_write import StoreEdit, find_store, matching_session_keys, update_store
from .successor import CompactionRecord, WriteResult, iter_entry_lines, require_writable

__all__ = [
    "MAX_CHECKPOINTS", "CHECKPOINT_MARK", "Checkpoint", "PostCompaction", "checkpoint_name",
    "checkpoint_path_for",
    "write_checkpoint", "checkpoint_store_edit", "restore_checkpoint", "RestorePlan",
    "plan_restore", "compacted_since_load", "moved_on_from", "plan_checkpoint",
]

#: OpenClaw keeps this many checkpoint records per session (oldest trimmed first).
MAX_CHECKPOINTS = 25
#: What marks a checkpoint copy's file name.
CHECKPOINT_MARK = ".checkpoint."


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """A pre-compaction copy: where it is, whose it is, and the leaf it was taken at."""

    path: Path
    session_id: str
    leaf_id: str | None


@dataclass(frozen=True, slots=True)
class PostCompaction:
    """Where the compaction ended up (the successor, or the original after an append)."""

    session_id: str
    path: Path
    compaction_entry_id: str
    first_kept_entry_id: str
    #: Retry-storm copies a successor left out.
    dropped_retry_copies: tuple[RetryCopy, ...] = ()


def checkpoint_name(session_id: str, checkpoint_id: str | None = None) -> str:
    return f"{session_id}{CHECKPOINT_MARK}{checkpoint_id or new_uuid()}.jsonl"


def checkpoint_path_for(transcript: Transcript, checkpoint_id: str) -> Path:
    """Where the checkpoint copy of ``transcript`` with this id goes."""
    sid = transcript.session_id or transcript.path.stem
    return transcript.path.absolute().parent / checkpoint_name(sid, checkpoint_id)


def plan_checkpoint(transcript: Transcript, checkpoint_id: str | None = None) -> Checkpoint:
    """Where the checkpoint of ``transcript`` will go (``checkpoint_id`` chosen by the
    write's dry run, else a fresh one; nothing is written)."""
    sid = transcript.session_id or transcript.path.stem
    target = checkpoint_path_for(transcript, checkpoint_id or new_uuid())
    return Checkpoint(target, sid, transcript.leaf_id)


def write_checkpoint(transcript: Transcript, data: bytes,
                     planned: Checkpoint | None = None) -> Checkpoint:
    """Keep ``data`` (the transcript's verified pre-compaction bytes) as a checkpoint copy."""
    checkpoint = planned or plan_checkpoint(transcript)
    atomic_write_bytes(checkpoint.path, data, mode=file_mode(transcript.path), exclusive=True)
    return checkpoint


def compacted_since_load(transcript: Transcript, data: bytes) -> Path | None:
    """A checkpoint of exactly ``data`` written after ``transcript`` was loaded, if any.

    Every compaction first keeps the file as it was in a checkpoint, so such a checkpoint
    means another run compacted this very state while this one was summarizing (a
    successor leaves the original untouched, so the bytes alone cannot tell). Older
    checkpoints (a compaction the user undid, a run killed before it finished) do not count.
    """
    if not transcript.loaded_at_ns:
        return None
    sid = transcript.session_id or transcript.path.stem
    me = transcript.path.absolute()
    for path in me.parent.glob(f"{glob.escape(sid)}{CHECKPOINT_MARK}*.jsonl"):
        try:
            st = path.stat()
            if (path == me or st.st_size != len(data) or path.name in transcript.checkpoints_at_load
                    or st.st_mtime_ns < transcript.loaded_at_ns):
                continue
            if path.read_bytes() == data:
                return path
        except OSError:
            continue
    return None


def moved_on_from(store: Mapping[str, Any], transcript: Transcript) -> str | None:
    """The file the session follows now, if the store moved it on from ``transcript``.

    A store record that once compacted this session out of this file (a checkpoint record
    whose pre-compaction side is this session) and no longer points at it means another
    run already made a successor the agent follows; a second one would be an orphan.
    """
    sid = transcript.session_id
    if not sid or matching_session_keys(store, transcript.path, sid):
        return None
    for rec in store.values():
        if not isinstance(rec, dict) or not isinstance(rec.get("compactionCheckpoints"), list):
            continue
        for cp in rec["compactionCheckpoints"]:
            pre = cp.get("preCompaction") if isinstance(cp, dict) else None
            if isinstance(pre, dict) and pre.get("sessionId") == sid:
                now = rec.get("sessionFile")
                return str(now) if isinstance(now, str) and now else str(rec.get("sessionId"))
    return None


def _store_file_value(path: Path, like: Any) -> str:
    """A path for the store, written the way the store wrote it (bare name or absolute)."""
    if isinstance(like, str) and like and "/" not in like and "\\" not in like:
        return path.name
    return str(path.absolute())


def checkpoint_store_edit(store: Mapping[str, Any], source: Path, session_id: str | None,
                          checkpoint: Checkpoint, post: PostCompaction,
                          record: CompactionRecord, *, moved: bool,
                          now: datetime | None = None) -> StoreEdit:
    """The store fields to set for one compaction: a checkpoint record, counters, pointers.

    ``moved`` (a successor was written) points the session's ``sessionId``/``sessionFile``
    at the successor. Every record that refers to the transcript (``source`` with
    ``session_id``) is updated.
    """
    created_ms = int((now or datetime.now(UTC)).timestamp() * 1000)
    edits: dict[str, dict[str, Any]] = {}
    for key in matching_session_keys(store, source, session_id):
        rec = store[key]
        pre_sid = rec.get("sessionId") if isinstance(rec.get("sessionId"), str) else (
            checkpoint.session_id)
        entry: dict[str, Any] = {
            "checkpointId": new_uuid(), "sessionKey": key, "sessionId": pre_sid,
            "createdAt": created_ms, "reason": "manual", "tokensBefore": record.tokens_before,
        }
        if record.tokens_after is not None:
            entry["tokensAfter"] = record.tokens_after
        entry["summary"] = record.summary
        entry["firstKeptEntryId"] = post.first_kept_entry_id
        pre: dict[str, Any] = {"sessionId": pre_sid, "sessionFile": str(checkpoint.path.absolute())}
        if checkpoint.leaf_id is not None:
            pre["leafId"] = checkpoint.leaf_id
        entry["preCompaction"] = pre
        entry["postCompaction"] = {
            "sessionId": post.session_id, "sessionFile": str(post.path.absolute()),
            "leafId": post.compaction_entry_id, "entryId": post.compaction_entry_id,
        }
        old = rec.get("compactionCheckpoints")
        kept = [c for c in old if isinstance(c, dict)] if isinstance(old, list) else []
        fields: dict[str, Any] = {}
        if moved:
            fields["sessionId"] = post.session_id
            fields["sessionFile"] = _store_file_value(post.path, rec.get("sessionFile"))
        count = rec.get("compactionCount")
        fields["compactionCount"] = (count if isinstance(count, int)
                                     and not isinstance(count, bool) else 0) + 1
        fields["compactionCheckpoints"] = (kept + [entry])[-MAX_CHECKPOINTS:]
        edits[key] = fields
    return edits


@dataclass(frozen=True, slots=True)
class RestorePlan:
    """A restore's dry run: the file it will create (its real name) and what it will hold."""

    source: Path
    target: Path
    timestamp: str
    session_id: str
    entries: int
    leaf_id: str | None
    #: The ``sessions.json`` a repointing restore will update, if any record matches.
    store_path: Path | None


def plan_restore(checkpoint_path: Path | str, *, now: datetime | None = None,
                 repoint: Path | str | None = None) -> RestorePlan:
    """What ``restore_checkpoint`` will write, with the names it will use (nothing written).

    Raises ``PersistError`` where the restore would refuse (a format SessionLens does not
    write, a checkpoint with no entries)."""
    from sessionlens.engine.load.reader import load_transcript  # heavy: import on use

    source = Path(checkpoint_path).absolute()
    transcript = load_transcript(source)
    require_writable(transcript)
    if not transcript.entries:
        raise PersistError(source, "the checkpoint holds no entries to restore")
    stamp, sid = iso_timestamp(now), new_session_id()
    store = find_store(source.parent) if repoint is not None else None
    return RestorePlan(source, source.parent / session_file_name(stamp, sid), stamp, sid,
                       len(transcript.entries), transcript.leaf_id, store)


def restore_checkpoint(checkpoint_path: Path | str, *, now: datetime | None = None,
                       repoint: Path | str | None = None,
                       planned: RestorePlan | None = None) -> WriteResult:
    """Fork a checkpoint (or any pi/OpenClaw transcript) into a new transcript beside it.

    The new file's header names the checkpoint as ``parentSession``; its entries are the
    checkpoint's, same ids, same order (v1/v2 migrated to v3), so its last line, the leaf,
    is the leaf the checkpoint was taken at. Nothing existing is modified, except with
    ``repoint``: an undo of a compaction names the successor it replaces, and the
    ``sessions.json`` records that point at that successor move to the restored file (so
    the agent continues from the restored history, not from the undone compaction).
    """
    from sessionlens.engine.lineage.chain import (
        read_header,  # chain and the loader are heavy; import on use
    )
    from sessionlens.engine.load.reader import load_transcript

    from .openclaw_store_undo import is_store_backup, undo_store_write

    source = Path(checkpoint_path).absolute()
    if is_store_backup(source):  # OpenClaw's store: the backup goes back over it
        return undo_store_write(source)
    transcript = load_transcript(source)
    require_writable(transcript)
    assert transcript.header is not None
    if not transcript.entries:
        raise PersistError(source, "the checkpoint holds no entries to restore")
    data = read_unchanged_bytes(transcript)
    stamp = planned.timestamp if planned is not None else iso_timestamp(now)
    sid = planned.session_id if planned is not None else new_session_id()
    cwd = transcript.header.cwd or str(source.parent)
    head = header_line(sid, stamp, cwd, str(source))
    target = source.parent / session_file_name(stamp, sid)

    def chunks() -> Any:
        yield head + b"\n"
        for line in iter_entry_lines(transcript, data):
            yield line + b"\n"

    atomic_write_chunks(target, chunks(), mode=file_mode(source), exclusive=True)
    written: tuple[Path, ...] = (target,)
    store_path = find_store(source.parent) if repoint is not None else None
    if repoint is not None and store_path is not None:
        old = Path(repoint)
        old_id = (read_header(old) or {}).get("id")
        old_sid = old_id if isinstance(old_id, str) else None

        def edits(store: dict[str, Any]) -> StoreEdit:
            out: dict[str, dict[str, Any]] = {}
            for key in matching_session_keys(store, old, old_sid):
                fields: dict[str, Any] = {"sessionId": sid}
                if store[key].get("sessionFile"):
                    fields["sessionFile"] = _store_file_value(target, store[key]["sessionFile"])
                out[key] = fields
            return out

        try:
            if update_store(store_path, edits):
                written += (store_path,)
        except BaseException:
            target.unlink(missing_ok=True)  # all or nothing: no restored file without its record
            raise
    return WriteResult(written=written, successor_path=target, session_id=sid,
                       compaction_entry_id=None, store_path=store_path if len(written) > 1 else None)
