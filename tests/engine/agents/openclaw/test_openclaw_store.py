"""OpenClaw 2026.9.6's SQLite store, as OpenClaw itself wrote it (the driver's committed
store): every window read, the same entries as the events dumped to JSONL, and nothing
changed or left beside the database while another process holds it open."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
import zstandard

from fixtures.openclaw_store import unpack_store
from sessionlens.engine.agents.openclaw.openclaw_store import read_store_sessions
from sessionlens.engine.errors import NotATranscriptError, PersistError
from sessionlens.engine.load.reader import detect_format, load_transcript
from sessionlens.engine.model import Transcript
from sessionlens.engine.persist.successor import require_writable


@pytest.fixture
def store(tmp_path: Path) -> Path:
    return unpack_store(tmp_path / "home")


def _raw_events(db: Path, session: str) -> list[bytes]:
    con = sqlite3.connect(f"{db.as_uri()}?immutable=1", uri=True)
    try:
        rows = con.execute("SELECT event_json, event_zstd, event_utf8_bytes FROM "
                           "transcript_events WHERE session_id = ? ORDER BY seq",
                           (session,)).fetchall()
    finally:
        con.close()
    return [text.encode() if blob is None else zstandard.ZstdDecompressor().decompress(
        blob, max_output_size=size) for text, blob, size in rows]


def _windows(db: Path) -> list[str]:
    con = sqlite3.connect(f"{db.as_uri()}?immutable=1", uri=True)
    try:
        return [r[0] for r in con.execute("SELECT session_id FROM session_windows")]
    finally:
        con.close()


def _same(a: Transcript, b: Transcript) -> None:
    def shape(t: Transcript) -> list[tuple[object, ...]]:
        return [(e.id, e.parent_id, e.type, e.line, e.role, e.summary, e.first_kept_entry_id,
                 e.tokens_before, e.message.content if e.message else None,
                 e.message.stop_reason if e.message else None) for e in t.entries]
    assert shape(a) == shape(b)
    assert a.active_path == b.active_path and a.leaf_id == b.leaf_id
    assert a.context == b.context
    assert [d.reason for d in a.diagnostics] == [d.reason for d in b.diagnostics]


def test_the_store_is_detected_and_every_window_is_listed(store: Path) -> None:
    assert detect_format(store) == "openclaw-sqlite"
    listed = read_store_sessions(store)
    live = [s.id for s in listed if s.archived is None]
    assert sorted(live) == sorted(_windows(store))
    assert all(s.events > 0 for s in listed if s.archived is None)


def test_each_window_reads_as_the_same_events_dumped_to_jsonl(store: Path,
                                                             tmp_path: Path) -> None:
    compressed = 0
    for session in _windows(store):
        t = load_transcript(store / session)
        raw = _raw_events(store, session)
        dumped = tmp_path / f"{session}.jsonl"
        dumped.write_bytes(b"\n".join(raw) + b"\n")
        j = load_transcript(dumped)
        _same(t, j)
        assert t.format == "openclaw-sqlite" and j.format == "openclaw-v3"
        assert t.header is not None and t.header.version == 4 and t.header.id == session
        assert not [d for d in t.diagnostics if "version" in d.reason]
        assert t.header.extra["session_key"] == f"agent:main:explicit:{session}" or \
            t.header.extra["window_reason"] is not None
        assert len(t.entries) == len(raw) - 1
        for e in t.entries:  # raw_line reads the row back, zstd or not
            assert t.raw_line(e) == raw[e.line - 1]
        compressed += sum(1 for e in t.entries if e.length > 0 and b'"type":"compaction"'
                          in raw[e.line - 1])
    assert compressed >= 1


def test_addressing_like_the_other_databases(store: Path) -> None:
    newest = load_transcript(store)
    assert any("sessions; showing the most recently updated" in d.reason
               for d in newest.diagnostics) == (len(_windows(store)) > 1)
    with pytest.raises(NotATranscriptError, match="no session 'nope'"):
        load_transcript(store / "nope")
    with pytest.raises(PersistError, match="OpenClaw"):
        require_writable(load_transcript(store / "alpha"))


_HOLDER = """
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA journal_mode=WAL")
db.execute("CREATE TABLE IF NOT EXISTS other_process (n INTEGER)")
db.execute("INSERT INTO other_process VALUES (1)")
db.execute("BEGIN IMMEDIATE")  # holds the write lock while SessionLens reads
db.execute("INSERT INTO other_process VALUES (2)")
print("ready", flush=True)
sys.stdin.readline()
db.execute("ROLLBACK")
"""


def test_reading_while_another_process_holds_the_store_changes_nothing(store: Path) -> None:
    holder = subprocess.Popen([sys.executable, "-c", _HOLDER, str(store)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        wal = Path(f"{store}-wal")
        before = (store.read_bytes(), wal.read_bytes())
        assert len(before[1]) > 0  # the other process's committed row is only in the WAL
        side = sorted(p.name for p in store.parent.iterdir())
        for session in _windows(store):
            t = load_transcript(store / session)
            assert t.entries
        assert (store.read_bytes(), wal.read_bytes()) == before
        assert sorted(p.name for p in store.parent.iterdir()) == side
    finally:
        assert holder.stdin is not None
        holder.stdin.write("\n")
        holder.stdin.close()
        holder.wait(timeout=30)


def test_a_clean_store_leaves_no_side_files(store: Path) -> None:
    before = store.read_bytes()
    for session in _windows(store):
        load_transcript(store / session)
    assert sorted(p.name for p in store.parent.iterdir()) == [store.name]
    assert store.read_bytes() == before


def test_a_copied_pair_without_shm_reads_the_wal_rows(store: Path, tmp_path: Path) -> None:
    """db + -wal without -shm (a copy of a live store): the WAL's rows count, nothing is
    created beside the copy."""
    con = sqlite3.connect(store, isolation_level=None)
    # the schema's CHECKs call octet_length (SQLite 3.43+); older Pythons get it here
    con.create_function("octet_length", 1, lambda v: None if v is None else len(
        v.encode() if isinstance(v, str) else v), deterministic=True)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA wal_autocheckpoint=0")
    new = json.dumps({"type": "session_info", "id": "added-in-wal", "parentId": None,
                      "timestamp": "2026-12-04T03:00:00Z", "name": "renamed"})
    last = load_transcript(store / "alpha").entries[-1].id
    new = new.replace('"parentId": null', f'"parentId": "{last}"')
    seq = con.execute("SELECT max(seq) + 1 FROM transcript_events WHERE session_id = 'alpha'"
                      ).fetchone()[0]
    con.execute("INSERT INTO transcript_events (session_id, seq, event_json, created_at, "
                "event_utf8_bytes) VALUES ('alpha', ?, ?, ?, ?)",
                (seq, new, int(time.time() * 1000), len(new)))
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / store.name).write_bytes(store.read_bytes())
    Path(f"{copy / store.name}-wal").write_bytes(Path(f"{store}-wal").read_bytes())
    con.close()
    t = load_transcript(copy / store.name / "alpha")
    assert t.entries[-1].id == "added-in-wal" and t.session_name == "renamed"
    assert sorted(p.name for p in copy.iterdir()) == [store.name, f"{store.name}-wal"]
