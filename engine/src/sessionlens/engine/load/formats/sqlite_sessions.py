"""The steps every SQLite session format (Crush, OpenCode, OpenClaw's store) reads a session
with: list the database's sessions, pick the one asked for (or the default one, saying so
when there are others), and report progress / honour cancel while reading its rows."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from sessionlens.engine.errors import LoadCancelled, NotATranscriptError

__all__ = ["list_or_refuse", "pick_session", "row_tick"]

S = TypeVar("S")


def list_or_refuse(path: Path, list_sessions: Callable[[sqlite3.Connection], list[S]],
                   db: sqlite3.Connection, what: str) -> list[S]:
    """``list_sessions(db)``; a database of another shape is not a transcript (``what`` names
    the shape expected: "an OpenCode database")."""
    try:
        return list_sessions(db)
    except sqlite3.DatabaseError as exc:
        raise NotATranscriptError(path, f"not {what}: {exc}") from exc


def pick_session(path: Path, sessions: Sequence[S], wanted: str | None,
                 id_of: Callable[[S], str], default: Sequence[S], *, where: str, which: str,
                 held: int) -> tuple[S, str | None]:
    """The session ``wanted`` (by id) of ``sessions``, else the first of ``default``; and,
    when no id was asked for and ``held`` > 1, the note saying which one is shown (``where``:
    "database" / "store"; ``which``: "newest top-level one")."""
    if wanted is not None:
        for s in sessions:
            if id_of(s) == wanted:
                return s, None
        raise NotATranscriptError(path / wanted, f"no session {wanted!r} in this {where}")
    if not default:
        raise NotATranscriptError(path, f"the {where} holds no sessions")
    chosen = default[0]
    note = (f"this {where} holds {held} sessions; showing the {which} ({id_of(chosen)}); "
            f"open {path}/<session id> for another") if held > 1 else None
    return chosen, note


def row_tick(path: Path, n: int, total: int, every: int, noun: str,
             on_progress: Callable[[int, int], None] | None,
             cancel: Callable[[], bool] | None) -> None:
    """Every ``every`` rows: stop when ``cancel()`` says so, else report ``(n, total)``."""
    if n % every == 0:
        if cancel is not None and cancel():
            raise LoadCancelled(path, f"cancelled at {noun} {n} of {total}")
        if on_progress is not None:
            on_progress(n, total)
