"""The chain of one session of OpenClaw's SQLite store (2026.8+), from its windows.

OpenClaw 2026.8+ no longer starts a successor file or writes ``.checkpoint.*`` copies: a
session key's generations are rows of ``session_windows``, each naming the window it
followed (``previous_session_id``) and why it began (``reason``: initial, reset, rollover,
fork, rewind, switch, recovery, compaction), and the generations a reset or a delete put
away are ``session_transcript_archives`` rows. So the chain of ``<db>/<session>`` is its
windows oldest first, each with its reason, and its archives ``<db>/<archive name>``, which
the loader opens like any session. Read-only, through ``agents.openclaw.openclaw_store``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from sessionlens.engine.agents.openclaw.openclaw_store import StoreSession, read_store_sessions
from sessionlens.engine.errors import LoadError

__all__ = ["store_chain_links"]


Relation = Literal["ancestor", "self", "successor"]


def store_chain_links(start: Path) -> tuple[list[tuple[Path, StoreSession, Relation]],
                                            tuple[Path, ...]] | None:
    """(path, session, relation) of every window of ``start``'s session key, oldest first,
    and the archives of those windows; None when ``start`` is not a window of a store."""
    db = start.parent
    try:
        sessions = read_store_sessions(db)
    except LoadError:
        return None
    live = {s.id: s for s in sessions if s.archived is None and s.window is not None}
    me = live.get(start.name)
    if me is None or me.window is None:
        return None
    key = me.window.session_key
    mine = {sid: s for sid, s in live.items() if s.window is not None
            and s.window.session_key == key}
    order: list[StoreSession] = []
    seen: set[str] = set()
    back: StoreSession | None = me
    while back is not None and back.id not in seen:  # ancestors, by previous_session_id
        seen.add(back.id)
        order.insert(0, back)
        prev = back.window.previous_session_id if back.window else None
        back = mine.get(prev or "")
    stack = [me]
    while stack:  # successors: windows naming one of ours as their previous
        cur = stack.pop()
        for s in sorted(mine.values(), key=lambda s: s.window.created_ms or 0
                        if s.window else 0):
            if s.window is not None and s.window.previous_session_id == cur.id \
                    and s.id not in seen:
                seen.add(s.id)
                order.append(s)
                stack.append(s)
    at = order.index(me)
    links: list[tuple[Path, StoreSession, Relation]] = [
        (db / s.id, s, "ancestor" if i < at else "self" if i == at else "successor")
        for i, s in enumerate(order)]
    archives = tuple(db / s.id for s in sessions if s.archived is not None
                     and s.archive_of in seen)
    return links, archives
