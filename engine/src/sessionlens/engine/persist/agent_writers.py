"""Writers for agents whose files SessionLens writes a successor of in the agent's own format.

pi and OpenClaw files go through ``successor`` (a v3 successor, checkpoint, session store).
Another agent's file gets a writer of its own, registered here by format: it says when it
refuses (before any summarizing starts), names the file it writes and builds its lines; the
generic write path (``writer``, ``dry_run``) keeps the lock, the unchanged-file proof, the
atomic exclusive write and the audit gate. Each agent's home names its writer in its
``release.py`` (``agents.releases``); the module is imported only when a file of that format
is written.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from sessionlens.engine.agents.releases import AGENTS, agent_for_format, load_named

if TYPE_CHECKING:
    from datetime import datetime
    from pathlib import Path

    from sessionlens.engine.model import Transcript

    from .names import WriteNames
    from .record import CompactionRecord, SuccessorContent, WritePlan, WriteResult

__all__ = ["AgentWriter", "RolloutWriter", "StoreWriter", "agent_writer", "rollout_writer",
           "store_backup_writer", "store_writer"]


class AgentWriter(Protocol):
    #: The agent's name, as messages say it.
    agent: str

    def refusal(self, transcript: Transcript, mode: str) -> str | None:
        """Why this write cannot be done (None: it can)."""

    def file_name(self, names: WriteNames) -> str:
        """The successor's file name (beside the original)."""

    def build(self, transcript: Transcript, data: bytes, record: CompactionRecord,
              names: WriteNames) -> SuccessorContent:
        """The successor's lines, from the original's bytes ``data``."""


def _declared(fmt: str, role: str) -> Any:
    """What the home of the agent that writes ``fmt`` names as its ``role`` writer, loaded
    (None when no home reads ``fmt`` or it names none)."""
    release = agent_for_format(fmt)
    ref = getattr(release, role) if release is not None else None
    return load_named(ref) if ref is not None else None


def agent_writer(fmt: str) -> AgentWriter | None:
    """The writer for files of ``fmt``, or None (pi/OpenClaw, or a format never written)."""
    writer: AgentWriter | None = _declared(fmt, "writer")
    return writer


class RolloutWriter(Protocol):
    """An agent whose successor is a new session of its own, written outside the generic
    path (Codex's rollouts): never an append, no checkpoint, no session store."""

    #: The agent's name, as messages say it.
    agent: str

    def require_writable(self, transcript: Transcript, mode: str) -> None:
        """Raise PersistError where this write cannot be done."""

    def names(self, transcript: Transcript, now: datetime | None) -> WriteNames:
        """Fresh names for the new session (checks it can be written)."""

    def target(self, transcript: Transcript, names: WriteNames) -> Path:
        """Where the new session's file goes."""

    def build(self, transcript: Transcript, data: bytes, record: CompactionRecord,
              names: WriteNames) -> bytes:
        """The new session's bytes, from the original's bytes ``data``."""

    def write(self, transcript: Transcript, record: CompactionRecord, names: WriteNames, *,
              sha256: str | None) -> Path:
        """Write the new session (the original checked unchanged); its path."""


def rollout_writer(fmt: str) -> RolloutWriter | None:
    """The own-session writer of the agent that writes ``fmt`` files, or None."""
    writer: RolloutWriter | None = _declared(fmt, "successor")
    return writer


class StoreWriter(Protocol):
    """An agent whose sessions are rows of its own database (OpenClaw's store): a compaction
    is appended in one transaction after a backup, the session keeps its identity, and the
    backup is what an undo restores (no successor file, checkpoint or session store)."""

    #: The agent's name, as messages say it.
    agent: str

    def require_writable(self, transcript: Transcript, mode: str) -> None:
        """Raise PersistError where this write cannot be done."""

    def check_free(self, transcript: Transcript) -> None:
        """Raise LockHeldError now if the agent holds the database (before a model call)."""

    def plan(self, transcript: Transcript, record: CompactionRecord,
             now: datetime | None) -> WritePlan:
        """The dry run: what will be written where (nothing written)."""

    def write(self, transcript: Transcript, record: CompactionRecord,
              names: WriteNames) -> WriteResult:
        """Back up, then write the compaction's rows in one transaction."""

    def is_backup(self, path: Path) -> bool:
        """Whether ``path`` is a backup this writer took (what ``restore`` takes)."""

    def undo(self, backup: Path) -> WriteResult:
        """Put the backup back over the database."""

    def undo_hint(self, transcript: Transcript, compaction_id: str, backup_name: str) -> str:
        """How to undo a compaction written into the database, in words."""


def store_writer(fmt: str) -> StoreWriter | None:
    """The database writer of the agent that writes ``fmt`` sessions, or None."""
    writer: StoreWriter | None = _declared(fmt, "store")
    return writer


def store_backup_writer(path: Path) -> StoreWriter | None:
    """The database writer whose backup ``path`` is, or None (a checkpoint file)."""
    for release in AGENTS.values():
        if release.store is not None:
            writer: StoreWriter = load_named(release.store)
            if writer.is_backup(path):
                return writer
    return None
