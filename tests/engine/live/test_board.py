"""LiveBoard: recent files join, idle ones leave, only changed paths are polled."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from fixtures.factories import TranscriptBuilder
from fixtures.openclaw_store import ALPHA_LEAF, BETA_LEAF, append_events, unpack_store
from fixtures.openclaw_store import user_event as user
from sessionlens.engine.live.board import LiveBoard


def _session(folder: Path, name: str, turns: int = 2) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    b = TranscriptBuilder(folder / name)
    for n in range(turns):
        b.user(f"turn {n}")
        b.assistant(f"answer {n}", usage=1_000 * (n + 1))
    written: Path = b.write(folder / name)
    return written


def test_recent_sessions_join_and_idle_ones_leave(tmp_path: Path) -> None:
    now = [1_000_000.0]
    fresh = _session(tmp_path / "a", "fresh.jsonl")
    old = _session(tmp_path / "b", "old.jsonl")
    os.utime(fresh, (now[0] - 30, now[0] - 30))
    os.utime(old, (now[0] - 7_200, now[0] - 7_200))
    board = LiveBoard([tmp_path], idle_seconds=600, clock=lambda: now[0])
    started = board.sweep()
    assert [e.kind for e in started] == ["watching"]
    assert list(board.sessions) == [fresh.absolute()]
    now[0] += 1_000  # nothing written for longer than the idle time
    left = board.sweep()
    assert [e.kind for e in left] == ["idle"] and not board.sessions


def test_a_new_file_joins_when_it_changes_and_an_append_is_reported(tmp_path: Path) -> None:
    board = LiveBoard([tmp_path])
    assert board.sweep() == []
    path = _session(tmp_path, "new.jsonl")
    assert [e.kind for e in board.changed([path])] == ["watching"]
    more = TranscriptBuilder.continuing(path, first_id=50)
    more.user("again")
    more.append_to(path)
    events = board.changed([path, tmp_path / "not-a-session.txt"])
    assert [e.kind for e in events] == ["context"]
    assert events[0].gauge is not None and events[0].gauge.entries == 5
    path.unlink()
    assert [e.kind for e in board.changed([path])] == ["removed"] and not board.sessions


def test_a_file_given_by_name_is_followed_however_old(tmp_path: Path) -> None:
    path = _session(tmp_path, "old.jsonl")
    os.utime(path, (1, 1))
    board = LiveBoard([path], idle_seconds=60)
    assert [e.kind for e in board.sweep()] == ["watching"]
    assert [e.kind for e in board.sweep()] == []


def test_each_live_window_of_a_store_is_a_session_polled_when_its_wal_changes(
        tmp_path: Path) -> None:
    db = unpack_store(tmp_path)
    writer = sqlite3.connect(db)  # the gateway holds it open: its -wal stays beside it
    now = [1_796_355_200.0]  # a minute after the scenario's last row
    board = LiveBoard([tmp_path], idle_seconds=300, clock=lambda: now[0])
    started = board.sweep()
    assert sorted(e.path.name for e in started) == ["alpha"]  # beta: idle for 6 minutes
    assert list(board.sessions) == [db / "alpha"]
    assert board.watched_files()[0] == db
    append_events(writer, "beta", [user("b1", BETA_LEAF, "and now a second question")],
                  now_ms=int(now[0] * 1000))
    wal = Path(f"{db}-wal")
    events = board.changed([wal, Path(f"{db}-shm")])
    assert [(e.path.name, e.kind) for e in events] == [("beta", "watching")]
    append_events(writer, "alpha", [user("u1", ALPHA_LEAF, "one more")],
                  now_ms=int(now[0] * 1000))
    events = board.changed([wal])
    assert [(e.path.name, e.kind) for e in events] == [("alpha", "context")]
    assert events[0].gauge is not None and events[0].gauge.entries == 26  # 25 entries + 1
    assert set(board.watched_files()) == {db, wal}
    now[0] += 600  # nothing written since: both leave
    assert sorted(e.kind for e in board.sweep()) == ["idle", "idle"] and not board.sessions
    writer.close()


def test_a_store_given_by_name_follows_every_live_window(tmp_path: Path) -> None:
    db = unpack_store(tmp_path)
    board = LiveBoard([db], idle_seconds=60)
    assert sorted(e.path.name for e in board.sweep()) == ["alpha", "beta"]
    assert board.watch_paths() == [db.parent]  # OpenClaw's rows land in the -wal beside it
