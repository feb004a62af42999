"""The session-picking and progress steps the SQLite formats share."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from sessionlens.engine.errors import LoadCancelled, NotATranscriptError
from sessionlens.engine.load.formats.sqlite_sessions import list_or_refuse, pick_session, row_tick

DB = Path("/x/opencode.db")


def test_pick_asked_for_default_and_note() -> None:
    ids = ["b", "a", "c"]
    assert pick_session(DB, ids, "c", str, ids, where="database", which="newest",
                        held=3) == ("c", None)
    chosen, note = pick_session(DB, ids, None, str, ["a"], where="database", which="newest",
                                held=3)
    assert chosen == "a"
    assert note == (f"this database holds 3 sessions; showing the newest (a); "
                    f"open {DB}/<session id> for another")
    assert pick_session(DB, ids, None, str, ids, where="store", which="x", held=1) == ("b", None)


def test_pick_refuses_missing_and_empty() -> None:
    with pytest.raises(NotATranscriptError, match="no session 'z' in this store"):
        pick_session(DB, ["a"], "z", str, ["a"], where="store", which="x", held=1)
    with pytest.raises(NotATranscriptError, match="the database holds no sessions"):
        pick_session(DB, [], None, str, [], where="database", which="x", held=0)


def test_list_or_refuse_names_the_shape() -> None:
    db = sqlite3.connect(":memory:")

    def broken(_: sqlite3.Connection) -> list[str]:
        raise sqlite3.OperationalError("no such table: session")

    with pytest.raises(NotATranscriptError, match="not an OpenCode database: no such table"):
        list_or_refuse(DB, broken, db, "an OpenCode database")
    assert list_or_refuse(DB, lambda _: ["s"], db, "x") == ["s"]


def test_row_tick_reports_and_cancels() -> None:
    seen: list[tuple[int, int]] = []
    for n in range(1, 11):
        row_tick(DB, n, 10, 5, "row", lambda a, b: seen.append((a, b)), None)
    assert seen == [(5, 10), (10, 10)]
    with pytest.raises(LoadCancelled, match="cancelled at message 4 of 9"):
        row_tick(DB, 4, 9, 2, "message", None, lambda: True)
