"""Writing a compaction into OpenClaw 2026.9's SQLite store (``persist/openclaw_store_*``), on
copies of the store OpenClaw 2026.9.6 wrote (committed fixture): the rows, the refusals, the
audit gate, the backup and the undo. No Node here; ``tests/agents/test_openclaw_store_write.py``
has OpenClaw itself read, write and hold the store."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
import zstandard

from fixtures.openclaw_store import ALPHA_LEAF, append_events, unpack_store, user_event
from sessionlens.engine.agents.openclaw.sqlite_lease import check_store_free, state_db_path
from sessionlens.engine.agents.openclaw.sqlite_rows import compaction_navigation, event_payload
from sessionlens.engine.agents.openclaw.sqlite_undo import restore_backup
from sessionlens.engine.agents.openclaw.sqlite_write import write_store_compaction
from sessionlens.engine.cli import main
from sessionlens.engine.errors import FileChangedError, LockHeldError, PersistError
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.persist.dry_run import plan_write
from sessionlens.engine.persist.names import choose_names
from sessionlens.engine.persist.successor import CompactionRecord
from sessionlens.engine.persist.writer import write_compaction

KEPT = "940fea5e-1784-44ce-9e22-fc62d446ed8f"  # the user turn after the manual /compact


def _record(lines: int = 1, **kw: object) -> CompactionRecord:
    summary = "## Decisions\n" + "".join(f"- decision {i}: the meeting is on Thursday 10:00 "
                                         "in room 4B\n" for i in range(lines))
    return CompactionRecord(summary=summary, first_kept_entry_id=KEPT, tokens_before=11_404,
                            tokens_after=400, provider="offline", model="extractive",
                            template="structured", audit_passed=True, **kw)  # type: ignore[arg-type]


def _rows(db: Path, sql: str) -> list[tuple[object, ...]]:
    con = sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def _files(root: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_the_navigation_and_compression_are_openclaws_own(tmp_path: Path) -> None:
    """The three compactions OpenClaw wrote: its choice of JSON or zstd, and for the zstd
    one its navigation_json byte for byte and its compressed size."""
    db = unpack_store(tmp_path)
    rows = _rows(db, "SELECT event_json, event_zstd, event_utf8_bytes, navigation_json FROM "
                     "transcript_events WHERE session_id = 'alpha' ORDER BY seq")
    seen = []
    for text, blob, size, nav in rows:
        raw = text if blob is None else zstandard.ZstdDecompressor().decompress(blob).decode()
        event = json.loads(raw)
        if event["type"] != "compaction":
            continue
        ours = event_payload(event)
        seen.append(blob is not None)
        assert (ours.event_zstd is not None) == (blob is not None)
        assert ours.event_utf8_bytes == size and ours.navigation_json == nav
        if blob is not None:
            assert compaction_navigation(event) == nav and len(ours.event_zstd or b"") == len(blob)
    assert seen == [False, False, True]


@pytest.mark.parametrize("lines", [1, 40])
def test_the_rows_one_compaction_writes(tmp_path: Path, lines: int) -> None:
    db = unpack_store(tmp_path)
    t = load_transcript(db / "alpha")
    result = write_store_compaction(t, _record(lines), choose_names(t))
    (seq, text, blob, size, nav), = _rows(
        db, "SELECT seq, event_json, event_zstd, event_utf8_bytes, navigation_json FROM "
            "transcript_events WHERE session_id = 'alpha' AND seq = 26")
    raw = text if blob is None else zstandard.ZstdDecompressor().decompress(blob).decode()
    event = json.loads(raw)
    assert (blob is not None) == (lines == 40) and (nav is not None) == (lines == 40)
    assert size == len(raw.encode()) and event["id"] == result.compaction_entry_id
    assert list(event)[:10] == ["type", "id", "parentId", "timestamp", "summary",
                                "firstKeptEntryId", "tokensBefore", "tokensAfter", "details",
                                "fromHook"]
    assert event["parentId"] == ALPHA_LEAF and event["firstKeptEntryId"] == KEPT
    assert _rows(db, "SELECT event_type, parent_id FROM transcript_event_identities WHERE "
                     f"event_id = '{event['id']}'") == [("compaction", ALPHA_LEAF)]
    assert _rows(db, "SELECT active_position, message_position, context_eligible FROM "
                     "session_transcript_active_events WHERE event_seq = 26") == [(25, None, 1)]
    assert _rows(db, "SELECT indexed_seq, leaf_event_id, active_event_count FROM "
                     "session_transcript_index_state WHERE session_id = 'alpha'") == \
        [(26, event["id"], 26)]
    entry = json.loads(_rows(db, "SELECT entry_json FROM session_nodes WHERE session_key = "
                                 "'agent:main:explicit:alpha'")[0][0])
    assert entry["compactionCount"] == 4 and entry["totalTokens"] == 400
    assert "inputTokens" not in entry and "contextBudgetStatus" not in entry
    after = load_transcript(db / "alpha")
    assert after.leaf_id == event["id"] and after.format == "openclaw-sqlite"
    assert after.context[0].entry_id == event["id"]
    assert [i.entry_id for i in after.context[1:]] == [KEPT, ALPHA_LEAF]


def test_dry_run_names_every_table_and_the_write_matches_it(tmp_path: Path) -> None:
    db = unpack_store(tmp_path)
    t = load_transcript(db / "alpha")
    before = _files(tmp_path)
    prepared = plan_write(t, _record(), "append")
    assert _files(tmp_path) == before  # the dry run writes nothing
    assert [f.kind for f in prepared.files] == ["checkpoint", "append"]
    note = prepared.files[1].note
    for table in ("transcript_events", "transcript_event_identities",
                  "session_transcript_active_events", "session_transcript_index_state",
                  "session_windows", "session_nodes"):
        assert table in note
    result = write_compaction(t, prepared.record, "append", names=prepared.names)
    assert result.compaction_entry_id == prepared.compaction_entry_id
    assert result.checkpoint_path == prepared.files[0].path and result.written[-1] == db
    assert load_transcript(db / "alpha").leaf_id == prepared.compaction_entry_id


def test_a_successor_or_an_archive_is_refused_before_anything(tmp_path: Path) -> None:
    db = unpack_store(tmp_path)
    t = load_transcript(db / "alpha")
    before = _files(tmp_path)
    with pytest.raises(PersistError, match="append"):
        plan_write(t, _record(), "successor")
    with pytest.raises(PersistError, match="append"):
        write_compaction(t, _record(), "successor")
    assert _files(tmp_path) == before


def test_a_session_changed_since_it_was_loaded_is_not_written(tmp_path: Path) -> None:
    db = unpack_store(tmp_path)
    t = load_transcript(db / "alpha")
    con = sqlite3.connect(db)
    append_events(con, "alpha", [user_event("u-new", ALPHA_LEAF, "one more turn")])
    con.close()
    before = _files(tmp_path)
    with pytest.raises(FileChangedError, match="since it was loaded"):
        write_store_compaction(t, _record(), choose_names(t))
    assert _files(tmp_path) == before


def test_a_failed_audit_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                       ) -> None:
    db = unpack_store(tmp_path)
    before = _files(tmp_path)
    code = main(["compact", str(db / "alpha"), "--json", "--write", "append", "--cut", KEPT,
                 "--template", "safeguard", "--identifier-policy", "custom",
                 "--identifier-instructions", "keep every id", "--identifier",
                 "THIS-ID-IS-NOWHERE-9f3a"])
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert out["audit"]["passed"] is False
    assert code == 3 and out["written"] == []
    assert _files(tmp_path) == before and "nothing was written" in captured.err


def test_compact_write_append_goes_through_the_store_writer(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = unpack_store(tmp_path)
    code = main(["compact", str(db / "alpha"), "--json", "--write", "append", "--cut", KEPT])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["audit"]["passed"] is True
    assert out["written"][-1] == str(db) and Path(out["written"][0]).is_file()
    assert main(["inspect", "--json", str(db / "alpha")]) == 0
    inspected = json.loads(capsys.readouterr().out)
    assert inspected["compactions"] == 4
    assert out["summary"].strip() in inspected["context"][0]["text"]
    assert [c["text"] for c in inspected["context"][1:]] == [
        "After the manual compaction: which room?",
        "Noted: After the manual compaction: which room?"]


def test_undo_restores_the_store_byte_for_byte(tmp_path: Path) -> None:
    db = unpack_store(tmp_path)
    original = db.read_bytes()
    t = load_transcript(db / "alpha")
    result = write_store_compaction(t, _record(40), choose_names(t))
    assert result.checkpoint_path is not None
    assert result.checkpoint_path.read_bytes() == original  # the backup is the store as it was
    assert load_transcript(db / "alpha").leaf_id == result.compaction_entry_id
    restore_backup(result.checkpoint_path)
    restored = db.read_bytes()
    # every page as it was; in the header only the counters SQLite bumps on any restore
    # (file change counter 24-27, schema cookie 40-43, version-valid-for 92-95) move on
    assert len(restored) == len(original)
    assert all(24 <= i < 28 or 40 <= i < 44 or 92 <= i < 96
               for i, (a, b) in enumerate(zip(restored, original, strict=True)) if a != b)
    assert load_transcript(db / "alpha").leaf_id == ALPHA_LEAF
    assert not [p for p in db.parent.iterdir() if p.name.endswith(("-wal", "-shm"))]


def test_undo_is_refused_when_openclaw_wrote_since(tmp_path: Path) -> None:
    db = unpack_store(tmp_path)
    t = load_transcript(db / "alpha")
    result = write_store_compaction(t, _record(), choose_names(t))
    assert result.checkpoint_path is not None
    con = sqlite3.connect(db)
    append_events(con, "beta", [user_event("u-beta", "07fbe035-a764-45fd-97d6-e77d3b30c688",
                                           "beta goes on")])
    con.close()
    before = _rows(db, "SELECT count(*) FROM transcript_events")
    with pytest.raises(FileChangedError, match="nothing was restored"):
        restore_backup(result.checkpoint_path)
    assert _rows(db, "SELECT count(*) FROM transcript_events") == before


def _lease(db: Path, pid: int, start: int | None) -> None:
    """A lease row as OpenClaw's claimOpenClawAgentDatabaseLease writes it."""
    state = state_db_path(db)
    state.parent.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(state)
    con.execute("CREATE TABLE IF NOT EXISTS agent_database_leases (lease_id TEXT PRIMARY KEY, "
                "agent_id TEXT NOT NULL, path TEXT NOT NULL, owner_pid INTEGER NOT NULL, "
                "owner_start_time INTEGER, opened_at INTEGER NOT NULL) STRICT")
    con.execute("INSERT INTO agent_database_leases VALUES (?, 'main', ?, ?, ?, 0)",
                (f"lease-{pid}", str(db), pid, start))
    con.commit()
    con.close()


def test_a_live_lease_refuses_and_a_stale_one_does_not(tmp_path: Path) -> None:
    db = unpack_store(tmp_path)
    _lease(db, 2**22 + 12345, None)  # no such process: stale, as OpenClaw judges it
    check_store_free(db)
    import os

    _lease(db, os.getpid(), None)  # this process: alive
    t = load_transcript(db / "alpha")
    before = db.read_bytes()
    with pytest.raises(LockHeldError, match=f"process {os.getpid()}"):
        write_store_compaction(t, _record(), choose_names(t))
    assert db.read_bytes() == before and not (db.parent / "sessionlens-backups").exists()


def test_a_lone_surrogate_is_escaped_as_json_stringify_does() -> None:
    from sessionlens.engine.agents.openclaw.sqlite_rows import event_json_text

    text = event_json_text({"type": "compaction", "summary": "x\ud800y é"})
    assert text == '{"type":"compaction","summary":"x\\ud800y é"}'
    assert event_payload({"type": "compaction", "summary": "\ud83d" * 2000}).event_zstd is None


def test_the_lineage_undo_names_the_backup_and_restore_puts_it_back(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from sessionlens.engine.persist.undo import plan_undo

    db = unpack_store(tmp_path)
    t = load_transcript(db / "alpha")
    result = write_store_compaction(t, _record(), choose_names(t))
    assert result.checkpoint_path is not None
    with pytest.raises(PersistError, match="sessionlens restore") as caught:
        plan_undo(load_transcript(db / "alpha"))
    assert str(result.checkpoint_path) in str(caught.value)
    assert main(["restore", str(result.checkpoint_path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["written"] == [str(db)]
    assert load_transcript(db / "alpha").leaf_id == ALPHA_LEAF
