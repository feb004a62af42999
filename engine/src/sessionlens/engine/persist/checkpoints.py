"""Compaction checkpoints: the pre-compaction file kept aside (``restore`` forks one back).

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

from sessionlens.engine._io.atomic import atomic_write_bytes, file_mode
from sessionlens.engine.model import Transcript

from .lines import new_uuid
from .record import CompactionRecord
from .retry_storms import RetryCopy
from .store_write import StoreEdit, matching_session_keys

__all__ = [
    "MAX_CHECKPOINTS", "CHECKPOINT_MARK", "Checkpoint", "PostCompaction", "checkpoint_name",
    "checkpoint_path_for", "write_checkpoint", "checkpoint_store_edit", "compacted_since_load",
    "moved_on_from", "plan_checkpoint", "store_file_value",
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


def store_file_value(path: Path, like: Any) -> str:
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
            fields["sessionFile"] = store_file_value(post.path, rec.get("sessionFile"))
        count = rec.get("compactionCount")
        fields["compactionCount"] = (count if isinstance(count, int)
                                     and not isinstance(count, bool) else 0) + 1
        fields["compactionCheckpoints"] = (kept + [entry])[-MAX_CHECKPOINTS:]
        edits[key] = fields
    return edits
