"""Finding a transcript's record in its ``sessions.json`` (the memory-flush check's one I/O step).

The store beside the transcript is the default, as OpenClaw keeps it there; a store given
explicitly wins (a copy from another machine, sample 05). The record is the one whose
``sessionId`` is the transcript's, else the one whose ``sessionFile`` names this file.
"""

from __future__ import annotations

from pathlib import Path

from sessionlens.engine.model import Transcript
from sessionlens.engine.persist.store_write import find_store
from sessionlens.engine.sessions.store import StoreRecord, foreign_basename, read_session_store

__all__ = ["session_record"]


def session_record(transcript: Transcript, store_path: Path | None = None
                   ) -> StoreRecord | None:
    """The transcript's record in ``store_path`` (default: the store beside it), or None.

    Raises LoadError when an explicitly given store cannot be read."""
    path = store_path if store_path is not None else find_store(transcript.path.parent)
    if path is None:
        return None
    store = read_session_store(path)
    if transcript.session_id:
        found = store.by_session_id(transcript.session_id)
        if found is not None:
            return found
    name = transcript.path.name
    return next((r for r in store.records
                 if r.session_file_raw and foreign_basename(r.session_file_raw) == name), None)
