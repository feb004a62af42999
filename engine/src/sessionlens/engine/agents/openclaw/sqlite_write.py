"""An accepted compaction written into OpenClaw 2026.9's SQLite store, as its compactor does.

OpenClaw 2026.9 keeps the session's identity when it compacts: it appends one ``compaction``
event to the session's ``transcript_events`` and updates the rows derived from it and the
session row's accounting (``sqlite_rows`` lists them). SessionLens does the same, in
one transaction, with the mode the JSONL files call ``append`` (a successor session is
refused: OpenClaw 2026.9 never makes one). In order:

1. OpenClaw's state database is locked and its leases read (``sqlite_lease``): while
   any OpenClaw process holds the agent database, nothing is written.
2. ``BEGIN IMMEDIATE`` on the store (SQLite's write lock; OpenClaw waits on it like on any
   writer). The session must still be as it was loaded (same last ``seq``, same leaf), the
   key's current window, not running, not moved to cold storage, and OpenClaw's index of it
   complete; otherwise nothing is written and the reason is said.
3. A backup of the whole database through SQLite's backup API (``sqlite_undo``),
   written and synced before the first row changes.
4. The rows, then COMMIT. Any failure rolls the transaction back: the store is unchanged.

The schema's CHECK constraints call ``octet_length`` (SQLite 3.43+); on an older SQLite (the
venv's Python has 3.40.1) the connection gets a Python ``octet_length`` with the same meaning
(the UTF-8 byte length of text, the length of a blob), registered deterministic.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from sessionlens.engine.agents.openclaw.openclaw_store import decode_event
from sessionlens.engine.errors import FileChangedError, PersistError
from sessionlens.engine.load.reader import load_transcript_bytes
from sessionlens.engine.model import Transcript
from sessionlens.engine.persist.lines import new_uuid
from sessionlens.engine.persist.names import WriteNames
from sessionlens.engine.persist.record import CompactionRecord, WriteResult
from sessionlens.engine.persist.successor import build_compaction_entry
from sessionlens.engine.tokens.context import context_estimate

from . import sqlite_undo as undo
from .sqlite_connect import connect_store
from .sqlite_lease import holding_state_lock
from .sqlite_rows import (
    Payload,
    accounting_patch,
    compaction_event,
    event_json_text,
    event_payload,
    iso_ms,
)

__all__ = ["STORE_FORMAT", "StoreWrite", "build_store_write", "store_names",
           "store_of", "write_store_compaction"]

STORE_FORMAT = "openclaw-sqlite"


@dataclass(frozen=True, slots=True)
class StoreWrite:
    """Every row one compaction write changes, computed from the store as it is now."""

    db: Path
    session_id: str
    session_key: str
    seq: int
    event: dict[str, Any]
    payload: Payload
    created_at: int
    active_position: int
    active_message_count: int
    count_before: int
    #: The session row (``session_nodes.entry_json``) as it is, parsed.
    entry: dict[str, Any] = field(default_factory=dict)
    backup: Path = Path()

    @property
    def entry_id(self) -> str:
        return str(self.event["id"])

    def tables(self) -> tuple[str, ...]:
        """What the write changes, one line per table (the dry run shows these)."""
        stored = (f"zstd-compressed ({len(self.payload.event_zstd or b''):,} of "
                  f"{self.payload.event_utf8_bytes:,} bytes) with its navigation_json"
                  if self.payload.event_zstd is not None else
                  f"as event_json ({self.payload.event_utf8_bytes:,} bytes)")
        return (
            f"transcript_events: seq {self.seq}, the compaction {self.entry_id}, {stored}",
            f"transcript_event_identities: {self.entry_id} (compaction, parent "
            f"{self.event.get('parentId')})",
            f"session_transcript_active_events: position {self.active_position} -> seq "
            f"{self.seq}; session_transcript_index_state: indexed seq {self.seq}, leaf "
            f"{self.entry_id}",
            "session_windows: updated_at, transcript_updated_at, transcript_observed_at",
            f"session_nodes ({self.session_key}): compactionCount {self.count_before} -> "
            f"{self.count_before + 1}, totalTokens -> {self.event.get('tokensAfter', '?')}, "
            "run usage and contextBudgetStatus cleared",
        )


def store_of(transcript: Transcript) -> tuple[Path, str]:
    """(database, session id) of a transcript read from the store (``<db>/<session>``)."""
    extra = transcript.header.extra if transcript.header is not None else {}
    db = Path(str(extra.get("database") or transcript.path.parent))
    return db, transcript.path.name


def store_names(names: WriteNames) -> WriteNames:
    """OpenClaw's entry ids are UUIDs (``generateSessionEntryId``)."""
    if len(names.compaction_entry_id) == 36:
        return names
    return replace(names, compaction_entry_id=new_uuid())


def _one(con: sqlite3.Connection, sql: str, args: tuple[Any, ...]) -> tuple[Any, ...] | None:
    row: tuple[Any, ...] | None = con.execute(sql, args).fetchone()
    return row


def _refuse(db: Path, why: str) -> PersistError:
    return PersistError(db, why + "; nothing was written")


def build_store_write(con: sqlite3.Connection, transcript: Transcript,
                      record: CompactionRecord, names: WriteNames, backup_dir: Path | None = None
                      ) -> StoreWrite:
    """The rows of writing ``record`` now; raises where the write must refuse."""
    db, sid = store_of(transcript)
    window = _one(con, "SELECT session_key FROM session_windows WHERE session_id = ?", (sid,))
    if window is None:
        raise _refuse(db, f"the store has no window {sid!r}")
    key = str(window[0])
    node = _one(con, "SELECT current_session_id, entry_json, status FROM session_nodes "
                "WHERE session_key = ?", (key,))
    if node is None or node[0] != sid:
        raise _refuse(db, f"{sid} is not the current window of {key} (OpenClaw continues "
                      f"{node[0] if node else 'no window'}): compact that one")
    if node[2] == "running":
        raise _refuse(db, f"OpenClaw marks {key} as running")
    cold = _one(con, "SELECT 1 FROM sqlite_master WHERE name = "
                "'session_transcript_cold_archives'", ())
    if cold and _one(con, "SELECT 1 FROM session_transcript_cold_archives WHERE session_id = ?",
                      (sid,)):
        raise _refuse(db, f"OpenClaw moved {sid} to cold storage; open it in OpenClaw first")
    last = _one(con, "SELECT max(seq) FROM transcript_events WHERE session_id = ?", (sid,))
    last_seq = int(last[0]) if last and last[0] is not None else -1
    loaded = max((e.offset for e in transcript.entries), default=-1)
    leaf = transcript.leaf_id
    at_leaf = _one(con, "SELECT event_id FROM transcript_event_identities WHERE session_id = ? "
                   "AND seq = ?", (sid, last_seq))
    if last_seq != loaded or at_leaf is None or at_leaf[0] != leaf:
        raise FileChangedError(db / sid, "OpenClaw wrote to this session since it was loaded "
                               f"(last seq {last_seq}, loaded {loaded}); nothing was written: "
                               "reload it and compact again")
    index = _one(con, "SELECT indexed_seq, leaf_event_id, needs_rebuild, active_event_count, "
                 "active_message_count FROM session_transcript_index_state WHERE session_id = ?",
                 (sid,))
    pending = _one(con, "SELECT 1 FROM session_transcript_active_events WHERE session_id = ? "
                   "AND context_eligible IS NULL LIMIT 1", (sid,))
    if index is None or index[0] != last_seq or index[1] != leaf or index[2] or pending:
        raise _refuse(db, "OpenClaw's index of this session is not up to date (it rebuilds it "
                      "the next time it opens the session): let OpenClaw open it once")
    first_kept = record.first_kept_entry_id
    if first_kept is not None and first_kept not in transcript.active_path:
        raise _refuse(db, f"firstKeptEntryId {first_kept} is not on the active branch")
    where = backup_dir or undo.backup_dir(db)
    backup = where / undo.backup_name(sid, names.compaction_entry_id)
    base = build_compaction_entry(record, entry_id=names.compaction_entry_id, parent_id=leaf,
                                  timestamp=names.timestamp,
                                  first_kept_entry_id=first_kept or names.compaction_entry_id,
                                  checkpoint_name=backup.name)
    event = compaction_event(base, record.tokens_after)
    try:
        entry = json.loads(node[1])
    except ValueError as exc:
        raise _refuse(db, f"the session row of {key} is not JSON ({exc})") from exc
    count = entry.get("compactionCount") if isinstance(entry, dict) else None
    return StoreWrite(db, sid, key, last_seq + 1, event, event_payload(event),
                      iso_ms(names.timestamp), int(index[3]), int(index[4]),
                      count if isinstance(count, int) else 0,
                      entry if isinstance(entry, dict) else {}, backup)


def _apply(con: sqlite3.Connection, w: StoreWrite, now_ms: int) -> None:
    """The rows (inside the caller's transaction)."""
    p, sid, seq = w.payload, w.session_id, w.seq
    con.execute("INSERT INTO transcript_events (session_id, seq, event_json, created_at, "
                "event_zstd, event_utf8_bytes, navigation_json) VALUES (?,?,?,?,?,?,?)",
                (sid, seq, p.event_json, w.created_at, p.event_zstd, p.event_utf8_bytes,
                 p.navigation_json))
    con.execute("INSERT INTO transcript_event_identities (session_id, event_id, seq, "
                "event_type, parent_id, message_idempotency_key, created_at) "
                "VALUES (?,?,?,?,?,NULL,?)",
                (sid, w.entry_id, seq, "compaction", w.event.get("parentId"), w.created_at))
    con.execute("INSERT INTO session_transcript_active_events (session_id, active_position, "
                "event_seq, message_position, context_eligible) VALUES (?,?,?,NULL,1)",
                (sid, w.active_position, seq))
    con.execute("UPDATE session_transcript_index_state SET indexed_seq = ?, leaf_event_id = ?, "
                "needs_rebuild = 0, active_event_count = ?, active_message_count = ?, "
                "updated_at = ? WHERE session_id = ?",
                (seq, w.entry_id, w.active_position + 1, w.active_message_count, w.created_at,
                 sid))
    updated, observed = con.execute("SELECT transcript_updated_at, transcript_observed_at "
                                    "FROM session_windows WHERE session_id = ?",
                                    (sid,)).fetchone()
    mutation = max(now_ms, (updated if updated is not None else -1) + 1,
                   (observed if observed is not None else -1) + 1)
    con.execute("UPDATE session_windows SET updated_at = ?, transcript_updated_at = ?, "
                "transcript_observed_at = ? WHERE session_id = ?",
                (now_ms, mutation, mutation, sid))
    valid, = con.execute("SELECT entry_valid FROM session_nodes WHERE session_key = ?",
                         (w.session_key,)).fetchone()
    was_pending = _one(con, "SELECT 1 FROM session_canonical_validation_pending WHERE "
                       "session_key = ?", (w.session_key,)) is not None
    after = accounting_patch(w.entry, w.event.get("tokensAfter"), now_ms)
    con.execute("UPDATE session_nodes SET entry_json = ?, updated_at = ? WHERE session_key = ?",
                (event_json_text(after), now_ms,
                 w.session_key))
    if valid == 1 and not was_pending:
        # the row was valid and only its accounting changed: OpenClaw's own session-row
        # write marks it valid and certifies it in the same transaction
        con.execute("UPDATE session_nodes SET entry_valid = 1 WHERE session_key = ?",
                    (w.session_key,))
        con.execute("DELETE FROM session_canonical_validation_pending WHERE session_key = ?",
                    (w.session_key,))


def _begin(con: sqlite3.Connection, db: Path) -> None:
    try:
        con.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as exc:
        raise PersistError(db, f"the store is busy ({exc}): another writer holds it; nothing "
                           "was written, try again") from exc


def _write(con: sqlite3.Connection, db: Path, transcript: Transcript, record: CompactionRecord,
           names: WriteNames, backup_dir: Path | None) -> StoreWrite:
    """One transaction: check, back up, write, commit; rolled back on any failure."""
    _begin(con, db)
    try:
        w = build_store_write(con, transcript, record, names, backup_dir)
        undo.write_backup(db, w.backup)
        try:
            _apply(con, w, int(time.time() * 1000))
            undo.write_backup_record(w.backup, db, w.session_id, w.entry_id,
                                     undo.fingerprint(con))
            con.execute("COMMIT")
        except BaseException:
            undo.remove_backup(w.backup)
            raise
    except BaseException:
        if con.in_transaction:
            con.execute("ROLLBACK")
        raise
    return w


def session_bytes(con: sqlite3.Connection, session_id: str, extra: dict[str, Any]) -> bytes:
    """The session's events as JSONL, ``extra`` appended: what the store will hold."""
    lines = [decode_event(t, z, n) for t, z, n in con.execute(
        "SELECT event_json, event_zstd, event_utf8_bytes FROM transcript_events WHERE "
        "session_id = ? ORDER BY seq", (session_id,))]
    lines.append(event_json_text(extra).encode("utf-8"))
    return b"\n".join(lines) + b"\n"


def measured_after(con: sqlite3.Connection, w: StoreWrite) -> int:
    """pi's context estimate of the session as the store will hold it."""
    after = load_transcript_bytes(session_bytes(con, w.session_id, w.event),
                                  w.db / w.session_id)
    return context_estimate(after)


def write_store_compaction(transcript: Transcript, record: CompactionRecord,
                           names: WriteNames, *, backup_dir: Path | None = None) -> WriteResult:
    """Write ``record`` into the store (see the module text); the backup comes first."""
    db, _sid = store_of(transcript)
    names = store_names(names)
    with holding_state_lock(db):
        con = connect_store(db)
        try:
            w = _write(con, db, transcript, record, names, backup_dir)
        finally:
            con.close()
    return WriteResult(written=(w.backup, db), checkpoint_path=w.backup,
                       compaction_entry_id=w.entry_id, session_id=w.session_id,
                       first_kept_entry_id=str(w.event["firstKeptEntryId"]),
                       notes=(f"written into {db.name} ({w.session_key}) in one transaction; "
                              f"backup {w.backup}",))
