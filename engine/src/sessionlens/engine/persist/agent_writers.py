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

from typing import TYPE_CHECKING, Protocol

from sessionlens.engine.agents.releases import agent_for_format, load_named

if TYPE_CHECKING:
    from datetime import datetime
    from pathlib import Path

    from sessionlens.engine.model import Transcript

    from .names import WriteNames
    from .record import CompactionRecord, SuccessorContent

__all__ = ["AgentWriter", "RolloutWriter", "agent_writer", "rollout_writer"]


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


def agent_writer(fmt: str) -> AgentWriter | None:
    """The writer for files of ``fmt``, or None (pi/OpenClaw, or a format never written)."""
    release = agent_for_format(fmt)
    if release is None or release.writer is None:
        return None
    writer: AgentWriter = load_named(release.writer)
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
    release = agent_for_format(fmt)
    if release is None or release.successor is None:
        return None
    writer: RolloutWriter = load_named(release.successor)
    return writer
