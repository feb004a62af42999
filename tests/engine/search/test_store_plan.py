"""The search index over OpenClaw's SQLite store: one record per session, kept up by ``seq``."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from fixtures.openclaw_store import unpack_store
from sessionlens.engine.search.index_db import INDEX_FILE
from sessionlens.engine.search.search_index import SearchIndex


def _append(store: Path, session: str, text: str) -> str:
    """One more user row, as OpenClaw appends them (next ``seq``, parent = the last entry)."""
    con = sqlite3.connect(store, isolation_level=None)
    con.create_function("octet_length", 1, lambda v: None if v is None else len(
        v.encode() if isinstance(v, str) else v), deterministic=True)
    try:
        seq, = con.execute("SELECT max(seq) FROM transcript_events WHERE session_id = ?",
                           (session,)).fetchone()
        last = json.loads(con.execute("SELECT event_json FROM transcript_events WHERE "
                                      "session_id = ? AND seq = ?", (session, seq)).fetchone()[0])
        event = json.dumps({"type": "message", "id": "appended-1", "parentId": last["id"],
                            "timestamp": "2026-12-04T04:00:00.000Z",
                            "message": {"role": "user", "content": text,
                                        "timestamp": 1796356800000}})
        con.execute("INSERT INTO transcript_events (session_id, seq, event_json, created_at, "
                    "event_utf8_bytes) VALUES (?, ?, ?, ?, ?)",
                    (session, seq + 1, event, 1796356800000, len(event)))
        con.execute("UPDATE session_windows SET updated_at = updated_at + 1 "
                    "WHERE session_id = ?", (session,))
    finally:
        con.close()
    return "appended-1"


def test_store_sessions_are_indexed_and_followed_by_seq(tmp_path: Path) -> None:
    home = tmp_path / "home"
    store = unpack_store(home)
    index = SearchIndex(tmp_path / "cache", session_dirs=lambda: [home / ".openclaw" / "agents"])
    index.update()
    hit = index.search("meeting moved to Thursday").hits[0]
    assert hit.path == store.resolve() / "alpha"
    with sqlite3.connect(index.folder / INDEX_FILE) as conn:
        paths = sorted(r[0] for r in conn.execute("SELECT path FROM files"))
        before = dict(conn.execute("SELECT path, entry_count FROM files"))
    assert paths == sorted(str(store.resolve() / s) for s in ("alpha", "beta"))
    entry = _append(store, "alpha", "Remember the flag is called zebra_canary_rollout.")
    stats = index.update()
    assert stats.indexed == 1 and stats.entries_added == 1  # only the new row, of one session
    found = index.search("zebra canary").hits[0]
    assert (found.path.name, found.entry_id) == ("alpha", entry)
    with sqlite3.connect(index.folder / INDEX_FILE) as conn:
        after = dict(conn.execute("SELECT path, entry_count FROM files"))
    alpha = str(store.resolve() / "alpha")
    assert after[alpha] == before[alpha] + 1
    assert index.update().indexed == 0  # nothing new: nothing read again
