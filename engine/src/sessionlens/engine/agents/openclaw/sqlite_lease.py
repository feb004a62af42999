"""Which process holds an OpenClaw 2026.9 agent database, by OpenClaw's own lease rules.

Every OpenClaw process that opens an agent database first claims a row in the shared state
database ``<state dir>/state/openclaw.sqlite``, table ``agent_database_leases(lease_id,
agent_id, path, owner_pid, owner_start_time, opened_at)``, and deletes it when it closes
(``openclaw-agent-db-lease``: ``claimOpenClawAgentDatabaseLease``). Doctor, the one tool that
repairs an agent database from outside, refuses while a lease is live
(``assertNoOpenClawAgentDatabaseLeasesReadOnly``). A lease is stale (its process is gone)
when the pid is dead or a zombie, or the process now at that pid started at another time
(field 22 of ``/proc/<pid>/stat``); it covers our database when its path is ours or names
the same file (same device and inode), or either cannot be stat'ed. A live
``state_leases`` row of scope ``core:agent-database-maintenance`` means Doctor is working.

``holding_state_lock`` checks that, then keeps the state database's write lock (``BEGIN
IMMEDIATE``, nothing written, rolled back at the end) while the caller writes: an OpenClaw
process starting meanwhile waits at its lease claim instead of opening the database under
us. No state database means no OpenClaw process ever held one (nothing is created).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from sessionlens.engine.errors import LockHeldError, PersistError

__all__ = ["LeaseHolder", "check_store_free", "holding_state_lock", "live_leases",
           "state_db_path"]

MAINTENANCE_SCOPE = "core:agent-database-maintenance"


@dataclass(frozen=True, slots=True)
class LeaseHolder:
    """A live OpenClaw lease on the database."""

    agent_id: str
    pid: int
    path: str
    #: "process" (an OpenClaw process has it open) or "maintenance" (Doctor).
    kind: str = "process"

    def sentence(self) -> str:
        if self.kind == "maintenance":
            return "OpenClaw's database maintenance (openclaw doctor) is in progress"
        return (f"OpenClaw process {self.pid} has agent {self.agent_id}'s database open "
                "(gateway, agent or TUI)")


def state_db_path(db_path: Path, env: Mapping[str, str] | None = None) -> Path:
    """``<state dir>/state/openclaw.sqlite`` for ``<state dir>/agents/<a>/agent/<db>``
    (``OPENCLAW_STATE_DIR`` when the database is not laid out that way)."""
    db = Path(db_path).absolute()
    parts = db.parts
    if len(parts) >= 5 and parts[-2] == "agent" and parts[-4] == "agents":
        return db.parents[3] / "state" / "openclaw.sqlite"
    override = (env if env is not None else os.environ).get("OPENCLAW_STATE_DIR", "").strip()
    root = Path(override).expanduser() if override else Path.home() / ".openclaw"
    return root / "state" / "openclaw.sqlite"


def _start_time(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rfind(")") + 1:].split()
    try:
        return int(fields[19])
    except (IndexError, ValueError):
        return None


def _zombie(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    state = next((ln.split()[1] for ln in status.splitlines() if ln.startswith("State:")), "")
    threads = next((ln.split()[1] for ln in status.splitlines()
                    if ln.startswith("Threads:")), "")
    return state == "Z" and threads == "1"


def _stale(pid: int, start: int | None) -> bool:
    """``isAgentDatabaseLeaseStale``."""
    if pid <= 0:
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # another user's process: it exists, so it may hold the store
        pass
    if _zombie(pid):
        return True
    now = _start_time(pid)
    return start is not None and now is not None and start != now


def _same_file(held: str, ours: Path) -> bool:
    """``mayShareAgentDatabaseFile``: unknown counts as the same."""
    if Path(held) == ours:
        return True
    try:
        a, b = os.stat(held), os.stat(ours)
    except OSError:
        return True
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def live_leases(state: sqlite3.Connection, db_path: Path) -> tuple[LeaseHolder, ...]:
    """The live leases on ``db_path`` recorded in an open state database."""
    tables = {r[0] for r in state.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    out: list[LeaseHolder] = []
    if "state_leases" in tables:
        for (owner,) in state.execute(
                "SELECT owner FROM state_leases WHERE scope = ? AND lease_key = 'global' "
                "AND expires_at > ?", (MAINTENANCE_SCOPE, int(time.time() * 1000))):
            out.append(LeaseHolder("*", 0, str(owner), "maintenance"))
    if "agent_database_leases" in tables:
        for agent, pid, path, start in state.execute(
                "SELECT agent_id, owner_pid, path, owner_start_time FROM agent_database_leases"):
            if _same_file(str(path), db_path) and not _stale(int(pid), start):
                out.append(LeaseHolder(str(agent), int(pid), str(path)))
    return tuple(out)


@contextlib.contextmanager
def holding_state_lock(db_path: Path, *, timeout_s: float = 5.0,
                       env: Mapping[str, str] | None = None) -> Iterator[Path | None]:
    """Refuse (``LockHeldError``) while OpenClaw holds ``db_path``; otherwise keep OpenClaw's
    lease table locked until the block ends. Yields the state database (None: there is none)."""
    db = Path(db_path).absolute()
    path = state_db_path(db, env)
    if not path.is_file():
        yield None
        return
    try:
        state = sqlite3.connect(f"{path.as_uri()}?mode=rw", uri=True, timeout=timeout_s,
                                isolation_level=None)
    except sqlite3.Error as exc:
        raise PersistError(db, f"cannot open OpenClaw's state database {path} to check who "
                           f"holds the store: {exc}; nothing was written") from exc
    try:
        try:
            state.execute("BEGIN IMMEDIATE")
            holders = live_leases(state, db)
        except sqlite3.Error as exc:
            raise LockHeldError(db, f"OpenClaw's state database {path} is busy or unreadable "
                                f"({exc}); nothing was written, try again") from exc
        if holders:
            raise LockHeldError(db, "; ".join(h.sentence() for h in holders)
                                + ": SessionLens writes the store only while no OpenClaw "
                                "process holds it (stop it, then try again); nothing was "
                                "written")
        yield path
    finally:
        with contextlib.suppress(sqlite3.Error):
            state.execute("ROLLBACK")
        state.close()


def check_store_free(db_path: Path) -> None:
    """Raise ``LockHeldError`` now if OpenClaw holds the store (before any model call)."""
    with holding_state_lock(db_path):  # raises while a live lease covers the store
        return
