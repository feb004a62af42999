"""Following sessions of OpenClaw's SQLite store (the store 2026.9.6 wrote) as rows arrive."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from fixtures.openclaw_store import (
    ALPHA_LEAF,
    append_events,
    unpack_store,
)
from fixtures.openclaw_store import assistant_event as assistant
from fixtures.openclaw_store import compaction_event as compaction
from fixtures.openclaw_store import user_event as user
from sessionlens.engine.live.gauge import gauge_of
from sessionlens.engine.live.preview import next_cut
from sessionlens.engine.live.session import LiveSession
from sessionlens.engine.live.store_tail import follow_store, mark_store, store_db_of
from sessionlens.engine.opened import open_transcript

PASTE = " ".join(f"line {i}: the quarterly figures are in the attached sheet."
                 for i in range(1500))
TURN = ("Please deploy build 4711 to /srv/app/releases/r42 on port 8443 before Friday.",
        "Deployed build 4711 to /srv/app/releases/r42; it listens on port 8443.")


@pytest.fixture()
def store(tmp_path: Path) -> Iterator[tuple[Path, sqlite3.Connection]]:
    """The store unpacked where OpenClaw keeps it, and a writer holding it open as the
    gateway does (its ``-wal`` and ``-shm`` stay beside it)."""
    db_path = unpack_store(tmp_path)
    writer = sqlite3.connect(db_path)
    assert writer.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    yield db_path, writer
    writer.close()


def test_only_the_new_rows_are_read_json_or_zstd(store: tuple[Path, sqlite3.Connection]) -> None:
    db_path, writer = store
    mark = mark_store(db_path, "alpha")
    assert (mark.last_seq, mark.rows) == (25, 26)
    assert follow_store(db_path, "alpha", mark).kind == "none"
    append_events(writer, "alpha", [user("u1", ALPHA_LEAF, TURN[0])])
    append_events(writer, "alpha", [assistant("a1", "u1", TURN[1], 12_000)], compress=True)
    change = follow_store(db_path, "alpha", mark)
    assert change.kind == "appended" and change.mark is not None
    assert [seq for seq, _ in change.rows] == [26, 27]
    assert b'"id":"a1"' in change.rows[1][1]  # decompressed as the reader does
    assert change.header.startswith(b'{"type":"session"')
    assert follow_store(db_path, "beta", mark_store(db_path, "beta")).kind == "none"
    with writer:
        writer.execute("DELETE FROM transcript_events WHERE session_id = 'alpha' AND seq = 26")
    assert follow_store(db_path, "alpha", change.mark).kind == "rewritten"
    with writer:
        writer.execute("DELETE FROM session_windows WHERE session_id = 'alpha'")
    assert follow_store(db_path, "alpha", change.mark).kind == "removed"
    assert store_db_of(Path(f"{db_path}-wal")) == db_path
    assert store_db_of(Path(f"{db_path}-shm")) is None


def test_turns_move_the_gauge_and_the_next_cut_as_a_reload_would(
        store: tuple[Path, sqlite3.Connection]) -> None:
    db_path, writer = store
    key = db_path / "alpha"
    live = LiveSession(key)
    first = live.gauge
    assert live.agent == "openclaw" and live.session_id == "alpha"
    assert next_cut(live.opened).plan is None  # 11,404 tokens: nothing to compact yet
    append_events(writer, "alpha", [user("u1", ALPHA_LEAF, TURN[0])])
    events = live.poll()
    assert [e.kind for e in events] == ["context"] and live.stale_entries == 1
    estimated = gauge_of(open_transcript(key))
    assert live.gauge.context_tokens == estimated.context_tokens > first.context_tokens
    append_events(writer, "alpha", [assistant("a1", "u1", TURN[1], 12_000)], compress=True)
    append_events(writer, "alpha", [user("u2", "a1", "Here is a long paste to keep: " + PASTE),
                                    assistant("a2", "u2", "Read it.", 21_500)])
    events = live.poll()
    assert live.stale_entries == 4  # followed row by row, no reload
    fresh = open_transcript(key)
    again = gauge_of(fresh)
    assert live.gauge.context_tokens == again.context_tokens == 21_500
    assert live.gauge.entries == again.entries == first.entries + 4
    assert live.gauge.turn_marks == again.turn_marks
    assert [e.kind for e in events] == ["context", "threshold-near"]  # 21,500 of 24,000
    # the next automatic cut now lands after the first appended turn and summarizes it
    after = next_cut(fresh)
    assert after.plan is not None and {"u1", "a1"} <= set(after.plan.summarized_entry_ids)
    assert ("8443", "port") in after.at_stake and ("/srv/app/releases/r42", "path") in (
        after.at_stake)
    assert live.poll() == []


def test_an_appended_compaction_row_is_audited_with_its_verdict(
        store: tuple[Path, sqlite3.Connection]) -> None:
    db_path, writer = store
    live = LiveSession(db_path / "alpha")
    compactions = live.gauge.compactions
    append_events(writer, "alpha", [user("u1", ALPHA_LEAF, TURN[0]),
                                    assistant("a1", "u1", TURN[1], 19_000)])
    live.poll()
    append_events(writer, "alpha", [user("u2", "a1", "keep going"),
                                    compaction("c1", "u2", "u2")], compress=True)
    events = live.poll()
    seen = [e for e in events if e.kind == "compaction"]
    assert len(seen) == 1 and seen[0].compaction_id == "c1" and seen[0].passed is False
    assert seen[0].verdict is not None and seen[0].verdict.startswith("lost ")
    assert any("8443" in d or "4711" in d for d in seen[0].dropped)
    assert live.gauge.compactions == compactions + 1 and live.stale_entries == 0


def test_rows_gone_from_the_store_read_the_session_again(
        store: tuple[Path, sqlite3.Connection]) -> None:
    db_path, writer = store
    live = LiveSession(db_path / "alpha")
    entries = live.gauge.entries
    with writer:
        writer.execute("DELETE FROM transcript_events WHERE session_id = 'alpha' AND seq >= 24")
    events = live.poll()
    assert [(e.kind, e.detail) for e in events][:1] == [
        ("reloaded", "the session was rewritten; read again")]
    assert live.gauge.entries == entries - 2 and live.stale_entries == 0
    with writer:
        writer.execute("DELETE FROM session_windows WHERE session_id = 'alpha'")
    assert [(e.kind, e.detail) for e in live.poll()] == [("removed", "the session is gone")]
