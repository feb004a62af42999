"""The dry run of writing a compaction into OpenClaw's store, and when it is refused.

``plan_store_write`` computes, from the store as it is now (read-only, and only while no
OpenClaw process holds it), exactly the rows ``write_store_compaction`` will write and the
backup it takes first, and measures the session as the store will then hold it; the Accept
dialog and ``compact --json`` show these. Nothing is written here.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from sessionlens.engine.errors import PersistError
from sessionlens.engine.load.formats.sqlite_open import open_readonly
from sessionlens.engine.model import Transcript
from sessionlens.engine.persist.names import choose_names
from sessionlens.engine.persist.record import CompactionRecord, PlannedFile, WritePlan

from .sqlite_lease import holding_state_lock
from .sqlite_write import build_store_write, measured_after, store_names, store_of

__all__ = ["plan_store_write", "require_store_writable", "store_refusal"]


def store_refusal(transcript: Transcript, mode: str) -> str | None:
    """Why a compaction of this store session cannot be written in ``mode`` (None: it can)."""
    extra = transcript.header.extra if transcript.header is not None else {}
    if extra.get("archived"):
        return (f"this is an archived ({extra.get('archived')}) generation kept in OpenClaw's "
                "store; OpenClaw never continues it, so SessionLens does not write into it")
    if mode != "append":
        return ("OpenClaw 2026.9 keeps a session's identity when it compacts: its compactor "
                "appends the compaction to the session in its SQLite store and never starts a "
                "successor. SessionLens writes it the same way: choose append (compact "
                "--write append)")
    return None


def require_store_writable(transcript: Transcript, mode: str) -> None:
    reason = store_refusal(transcript, mode)
    if reason is not None:
        raise PersistError(transcript.path, reason)


def plan_store_write(transcript: Transcript, record: CompactionRecord, *,
                     now: datetime | None = None) -> WritePlan:
    """What ``write_store_compaction`` will write; raises where it would refuse."""
    db, sid = store_of(transcript)
    names = store_names(choose_names(transcript, now))
    with holding_state_lock(db), open_readonly(db) as opened:
        w = build_store_write(opened.db, transcript, record, names)
        tokens_after = measured_after(opened.db, w)
    files = (
        PlannedFile("checkpoint", w.backup,
                    f"a copy of the whole database {db.name} (SQLite backup API) taken inside "
                    "the write's transaction before any row changes, for undo"),
        PlannedFile("append", db, f"one transaction on session {sid}: " + "; ".join(w.tables())),
    )
    return WritePlan("append", names, replace(record, tokens_after=tokens_after), files,
                     str(w.event["firstKeptEntryId"]), w.entry_id, sid,
                     int(record.tokens_before), tokens_after, 0)
