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

from sessionlens.engine.agents.releases import agent_for_format, load_module, load_named

if TYPE_CHECKING:
    from sessionlens.engine.model import Transcript

    from .names import WriteNames
    from .record import CompactionRecord, SuccessorContent

__all__ = ["AgentWriter", "agent_writer", "successor_module"]


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


def successor_module(fmt: str) -> Any:
    """The module of the own successor write path of the agent that writes ``fmt`` files
    (Codex's rollouts: ``require_codex_writable``, ``codex_names``, ...), or None."""
    release = agent_for_format(fmt)
    if release is None or release.successor is None:
        return None
    return load_module(release.successor)
