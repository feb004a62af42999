"""Undo a compaction SessionLens wrote: restore its checkpoint, repoint the session store.

Every SessionLens write keeps the pre-compaction file as a checkpoint and names it in the
compaction entry (``sessionlens.checkpoint``); older writes are found through the store's
``compactionCheckpoints`` record of that entry. Undoing never deletes or rewrites the
compacted file: the checkpoint is forked into a new transcript (``restore_checkpoint``) and
the ``sessions.json`` records that follow the compacted file move to it, so the agent
continues from the history as it was. ``plan_undo`` is the dry run a confirmation shows;
``undo_compaction`` does exactly that. The lineage view and the memory-health view both
call these.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from sessionlens.engine.errors import PersistError
from sessionlens.engine.model import Transcript

from .agent_writers import store_writer
from .record import WriteResult
from .restore import RestorePlan, plan_restore, restore_checkpoint
from .store_write import find_store, matching_session_keys, read_store_object

__all__ = ["UndoPlan", "plan_undo", "undo_compaction"]


@dataclass(frozen=True, slots=True)
class UndoPlan:
    """What undoing one compaction will do (nothing is written by planning it)."""

    compaction_id: str
    #: The file that holds the compaction (a successor, or the original it was appended to).
    compacted: Path
    #: The copy SessionLens took just before writing the compaction.
    checkpoint: Path
    restore: RestorePlan
    #: The store records (keys) that will point at the restored file instead.
    store_keys: tuple[str, ...] = ()

    @property
    def changes(self) -> tuple[str, ...]:
        """Exactly what will change, one sentence each (for a confirmation)."""
        out = [f"A new transcript {self.restore.target.name} is written beside "
               f"{self.compacted.name}: the {self.restore.entries:,} entries of the checkpoint "
               f"{self.checkpoint.name}, the history as it was before compaction "
               f"{self.compaction_id}."]
        if self.restore.store_path is not None and self.store_keys:
            out.append(f"{self.restore.store_path.name}: " + ", ".join(self.store_keys)
                       + f" will point at {self.restore.target.name} instead of "
                       f"{self.compacted.name}, so the agent continues from the restored "
                       "history.")
        else:
            out.append("No sessions.json record follows this file: no store is changed.")
        out.append(f"{self.compacted.name} and {self.checkpoint.name} are kept as they are.")
        return tuple(out)


def _entry_line(transcript: Transcript, compaction_id: str) -> dict[str, Any]:
    entry = transcript.get(compaction_id)
    if entry is None or entry.type != "compaction":
        raise PersistError(transcript.path, f"{compaction_id} is not a compaction of this file")
    try:
        obj = orjson.loads(transcript.raw_line(entry))
    except (OSError, orjson.JSONDecodeError) as exc:
        raise PersistError(transcript.path, f"cannot read compaction {compaction_id}: {exc}"
                           ) from exc
    return obj if isinstance(obj, dict) else {}


def _from_store(store: Path | None, compaction_id: str) -> Path | None:
    """The checkpoint a store records for the write of ``compaction_id`` (older writes)."""
    if store is None:
        return None
    try:
        _, obj = read_store_object(store)
    except PersistError:
        return None
    for rec in obj.values():
        points = rec.get("compactionCheckpoints") if isinstance(rec, dict) else None
        for c in points if isinstance(points, list) else ():
            post = c.get("postCompaction") if isinstance(c, dict) else None
            pre = c.get("preCompaction") if isinstance(c, dict) else None
            if isinstance(post, dict) and post.get("entryId") == compaction_id and isinstance(
                    pre, dict) and isinstance(pre.get("sessionFile"), str):
                return Path(pre["sessionFile"])
    return None


def plan_undo(transcript: Transcript, compaction_id: str | None = None) -> UndoPlan:
    """The dry run of undoing ``compaction_id`` (default: the file's last compaction).

    Raises ``PersistError`` when it cannot be undone: not a compaction SessionLens wrote,
    or its checkpoint is gone."""
    if compaction_id is None:
        last = [e for e in transcript.entries if e.type == "compaction"]
        if not last:
            raise PersistError(transcript.path, "the file holds no compaction to undo")
        compaction_id = last[-1].id
    line = _entry_line(transcript, compaction_id)
    own = line.get("sessionlens")
    if not isinstance(own, dict):
        raise PersistError(transcript.path, f"compaction {compaction_id} was not written by "
                           "SessionLens, so there is no checkpoint of ours to go back to")
    if "checkpoint" not in own and isinstance(own.get("original"), str):
        # another agent's successor (agent_writers): a new session, the original as it was
        raise PersistError(transcript.path, f"compaction {compaction_id} was written as a new "
                           f"session beside {Path(own['original']).name}, which was never "
                           f"changed: to go back, resume that session "
                           f"({own.get('originalSessionId') or 'its id is its file name'})")
    name = own.get("checkpoint")
    database = store_writer(transcript.format)
    if database is not None:  # a backup of the whole database, not a file
        raise PersistError(transcript.path,
                           database.undo_hint(transcript, str(compaction_id), str(name)))
    folder = transcript.path.absolute().parent
    store = find_store(folder)
    checkpoint = folder / Path(name).name if isinstance(name, str) and name else \
        _from_store(store, compaction_id)
    if checkpoint is not None and not checkpoint.is_absolute():
        checkpoint = folder / checkpoint
    if checkpoint is None or not checkpoint.is_file():
        where = checkpoint.name if checkpoint is not None else "no checkpoint is recorded"
        raise PersistError(transcript.path, f"cannot undo compaction {compaction_id}: its "
                           f"checkpoint is missing ({where})")
    compacted = transcript.path.absolute()
    restore = plan_restore(checkpoint, repoint=compacted)
    keys: tuple[str, ...] = ()
    if restore.store_path is not None:
        _, obj = read_store_object(restore.store_path)
        keys = tuple(matching_session_keys(obj, compacted, transcript.session_id))
    return UndoPlan(compaction_id, compacted, checkpoint, restore, keys)


def undo_compaction(plan: UndoPlan) -> WriteResult:
    """Do what ``plan`` says: fork the checkpoint (the planned name), repoint the store."""
    return restore_checkpoint(plan.checkpoint, repoint=plan.compacted, planned=plan.restore)
