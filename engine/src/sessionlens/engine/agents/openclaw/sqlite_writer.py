"""OpenClaw's store as the generic write path sees it (``persist.agent_writers.StoreWriter``).

OpenClaw 2026.9 keeps a session in rows of its per-agent SQLite store and compacts by
appending rows, keeping the session's identity: no successor file, no checkpoint, no
``sessions.json``. The generic layers (``persist.successor``, ``persist.writer``,
``persist.dry_run``, ``persist.restore``, ``persist.undo``, ``cli.compact_cmd``) reach these
functions through ``agents/openclaw/release.py``, never by name.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from sessionlens.engine.model import Transcript
from sessionlens.engine.persist.names import WriteNames
from sessionlens.engine.persist.record import CompactionRecord, WritePlan, WriteResult

from .sqlite_lease import check_store_free
from .sqlite_plan import plan_store_write, require_store_writable
from .sqlite_undo import backup_dir, is_store_backup, undo_store_write
from .sqlite_write import write_store_compaction

__all__ = ["STORE_WRITER"]


class _OpenClawStore:
    """Writes, plans and undoes a compaction in OpenClaw's store (see ``sqlite_write``)."""

    agent = "OpenClaw"

    def require_writable(self, transcript: Transcript, mode: str) -> None:
        require_store_writable(transcript, mode)

    def check_free(self, transcript: Transcript) -> None:
        check_store_free(transcript.path.parent)

    def plan(self, transcript: Transcript, record: CompactionRecord,
             now: datetime | None) -> WritePlan:
        return plan_store_write(transcript, record, now=now)

    def write(self, transcript: Transcript, record: CompactionRecord,
              names: WriteNames) -> WriteResult:
        return write_store_compaction(transcript, record, names)

    def is_backup(self, path: Path) -> bool:
        return is_store_backup(path)

    def undo(self, backup: Path) -> WriteResult:
        return undo_store_write(backup)

    def undo_hint(self, transcript: Transcript, compaction_id: str, backup_name: str) -> str:
        return (f"compaction {compaction_id} was written into OpenClaw's store: `sessionlens "
                f"restore {backup_dir(transcript.path.parent) / backup_name}` puts the store "
                "back as it was (refused while OpenClaw holds the store, or once it wrote to "
                "it since)")


STORE_WRITER = _OpenClawStore()
