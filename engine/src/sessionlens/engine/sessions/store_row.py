"""The session row of a session read from OpenClaw's SQLite store, as the old store's record.

OpenClaw 2026.8+ keeps what ``sessions.json`` held per session (``compactionCount``,
``memoryFlush``, ``contextTokens``, ``contextBudgetStatus``) in ``session_nodes.entry_json``
of the same database; ``agents.openclaw.openclaw_store`` carries its useful keys in the header
(``extra["session_row"]``). Here they become a ``StoreRecord``, so the memory flush, the
window and the threshold read them the way they read a ``sessions.json`` record. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from sessionlens.engine.model import Transcript

from .store import StoreRecord

__all__ = ["STORE_FORMAT", "RESERVE_WINDOW_SHARE", "budget_status", "is_store_session",
           "store_record", "store_row"]

STORE_FORMAT = "openclaw-sqlite"
#: OpenClaw 2026.8+'s ``MAX_COMPACTION_RESERVE_RATIO`` (agent-compaction-constants).
RESERVE_WINDOW_SHARE = 0.25


def is_store_session(transcript: Transcript) -> bool:
    return transcript.format == STORE_FORMAT


def store_row(transcript: Transcript) -> Mapping[str, Any] | None:
    """The session row's keys the reader kept, or None outside the store."""
    if not is_store_session(transcript) or transcript.header is None:
        return None
    row = transcript.header.extra.get("session_row")
    return row if isinstance(row, Mapping) else None


def _int(value: Any) -> int | None:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) \
        and value > 0 else None


def budget_status(transcript: Transcript) -> tuple[int, int, int] | None:
    """(window, reserve, prompt budget) of the row's ``contextBudgetStatus``: the budget
    OpenClaw itself computed before the last prompt, or None."""
    row = store_row(transcript)
    status = row.get("contextBudgetStatus") if row is not None else None
    if not isinstance(status, Mapping):
        return None
    window = _int(status.get("contextTokenBudget"))
    reserve = _int(status.get("effectiveReserveTokens")) or _int(status.get("reserveTokens"))
    budget = _int(status.get("promptBudgetBeforeReserve"))
    if window is None or reserve is None:
        return None
    return window, reserve, budget if budget is not None else window - reserve


def store_record(transcript: Transcript) -> StoreRecord | None:
    """The session row as a ``sessions.json`` record (no file: the store is the file)."""
    row = store_row(transcript)
    if row is None or transcript.header is None:
        return None
    extra = transcript.header.extra
    count = row.get("compactionCount")
    return StoreRecord(
        session_key=str(extra.get("session_key") or ""), session_id=transcript.header.id,
        session_file=None, session_file_raw=None, session_file_exists=False,
        updated_at=None, compaction_count=int(count) if isinstance(count, int) else 0,
        checkpoints=(), raw=MappingProxyType(dict(row)))
