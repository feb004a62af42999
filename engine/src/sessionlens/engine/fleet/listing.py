"""Which sessions a fleet audit covers, found with the engine's own discovery.

Runs where the files are: on this machine, or on a Dask worker for the roots given to it,
so only the small stamps travel. A stamp carries what identifies the session's bytes
(size, mtime, the mtime of the ``sessions.json`` beside it) for the row cache.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from sessionlens.engine.sessions.discovery import (
    SessionInfo,
    discover_sessions,
    searched_session_dirs,
)

from .rows import SessionStamp, local_host

__all__ = ["default_roots", "list_stamps", "stamp_of"]

_STORE_NAME = "sessions.json"


def default_roots() -> list[Path]:
    """The agents' session folders that exist on this machine (``sessions`` lists them)."""
    return [f.path for f in searched_session_dirs() if f.exists]


def _mtime_ns(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return 0


def stamp_of(info: SessionInfo, host: str) -> SessionStamp:
    """The stamp of one discovered session: a file's own size and mtime; a session inside a
    database its own size and last update (the database changes with any session)."""
    if info.path.is_file():
        st = info.path.stat()
        size, mtime_ns = st.st_size, st.st_mtime_ns
        store = _mtime_ns(info.path.parent / _STORE_NAME)
    else:
        size, mtime_ns, store = info.size, int(info.modified.timestamp() * 1e9), 0
    return SessionStamp(host=host, path=str(info.path), size=size, mtime_ns=mtime_ns,
                        store_mtime_ns=store, format=info.format, found_agent=info.agent,
                        session_id=info.session_id, compactions=info.compactions)


def list_stamps(roots: Sequence[Path | str] | None = None) -> list[SessionStamp]:
    """Stamps of the primary sessions under ``roots`` (None: the agents' default folders),
    in a stable order (path)."""
    dirs = default_roots() if roots is None else [Path(r).expanduser() for r in roots]
    host = local_host()
    out: list[SessionStamp] = []
    for info in discover_sessions(dirs):
        try:
            out.append(stamp_of(info, host))
        except OSError:
            continue  # gone since the walk: nothing to audit
    out.sort(key=lambda s: s.path)
    return out
