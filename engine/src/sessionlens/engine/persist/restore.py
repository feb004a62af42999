"""Restoring from a checkpoint: fork it into a new transcript beside it, and (for an undo)
point the ``sessions.json`` records at the restored file. Nothing existing is overwritten."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from sessionlens.engine._io.atomic import atomic_write_chunks, file_mode
from sessionlens.engine.errors import PersistError
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.load.session_header import read_header

from .agent_writers import store_backup_writer
from .checkpoints import store_file_value
from .guard import read_unchanged_bytes
from .lines import header_line, iso_timestamp, new_session_id, session_file_name
from .record import WriteResult
from .store_write import StoreEdit, find_store, matching_session_keys, update_store
from .successor import iter_entry_lines, require_writable

__all__ = ["RestorePlan", "plan_restore", "restore_checkpoint"]


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
    source = Path(checkpoint_path).absolute()
    database = store_backup_writer(source)
    if database is not None:  # an agent's database: its backup goes back over it
        return database.undo(source)
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
                    fields["sessionFile"] = store_file_value(target, store[key]["sessionFile"])
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
