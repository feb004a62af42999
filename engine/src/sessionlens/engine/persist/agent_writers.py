"""Writers for agents whose files SessionLens writes a successor of in the agent's own format.

pi and OpenClaw files go through ``successor`` (a v3 successor, checkpoint, session store).
Another agent's file gets a writer of its own, registered here by format: it says when it
refuses (before any summarizing starts), names the file it writes and builds its lines; the
generic write path (``writer``, ``dry_run``) keeps the lock, the unchanged-file proof, the
atomic exclusive write and the audit gate. One line per agent below; the module is imported
only when a file of that format is written.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from sessionlens.engine.model import Transcript

    from .names import WriteNames
    from .successor import CompactionRecord, SuccessorContent

__all__ = ["AGENT_WRITERS", "AgentWriter", "agent_writer"]


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


#: format -> (module, attribute) of its writer.
AGENT_WRITERS: dict[str, tuple[str, str]] = {
    "claude-code": ("sessionlens.engine.persist.claude_code_successor", "CLAUDE_CODE_WRITER"),
}


def agent_writer(fmt: str) -> AgentWriter | None:
    """The writer for files of ``fmt``, or None (pi/OpenClaw, or a format never written)."""
    where = AGENT_WRITERS.get(fmt)
    if where is None:
        return None
    writer: AgentWriter = getattr(importlib.import_module(where[0]), where[1])
    return writer
