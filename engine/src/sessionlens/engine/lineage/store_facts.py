"""Two lines of the memory report that depend on where OpenClaw keeps the fact: the memory
flush's record and the size guard's verdict. Pure.

In OpenClaw 2026.8+'s SQLite store the flush leaves no turn in the transcript; the session row
(``session_nodes.entry_json``) records ``memoryFlush {kind, compactionCount}`` and
``compactionCount``, so "0 flush turns in the file" says nothing there. The size guard measures
the active SQLite history and needs no ``truncateAfterCompaction`` (``sessions.store_guard``);
a JSONL file's guard measures the active window and needs it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sessionlens.engine.model import Transcript
from sessionlens.engine.plan.triggers import active_window_bytes, format_bytes
from sessionlens.engine.sessions.store_guard import (
    guard_needs_truncate,
    latched,
    store_active_bytes,
)

if TYPE_CHECKING:
    from sessionlens.engine.settings import CompactionSettings

    from .memory_flush import MemoryFlushReport

__all__ = ["flush_record_text", "size_guard_text"]


def flush_record_text(transcript: Transcript, flush: MemoryFlushReport) -> str | None:
    """Where a store session's flush is recorded, or None outside the store (the file's
    flush turns say it there)."""
    if guard_needs_truncate(transcript):
        return None
    s = flush.store
    if s is None:
        return "the store keeps no session row for it: no flush record"
    if s.kind is None and s.memory_flush_compaction_count is None:
        return (f"the session row records no flush yet (compactionCount "
                f"{s.compaction_count}); the store keeps flushes out of the transcript")
    kind = f"{s.kind} " if s.kind else ""
    return (f"the session row records the last flush: memoryFlush {kind}at compaction "
            f"{s.memory_flush_compaction_count} of compactionCount {s.compaction_count} "
            "(the store keeps flushes out of the transcript)")


def size_guard_text(transcript: Transcript, settings: CompactionSettings) -> str | None:
    """The size guard's verdict now, or None when ``maxActiveTranscriptBytes`` is not set."""
    limit = settings.max_active_transcript_bytes
    if not limit:
        return None
    path = transcript.path_entries()
    if guard_needs_truncate(transcript):
        active = active_window_bytes(path)
        what, armed, why = "active transcript", settings.truncate_after_compaction, \
            "it needs truncateAfterCompaction: true"
    else:
        active = store_active_bytes(path)
        latch = latched(transcript, active, limit)
        what, armed = "active SQLite history", latch is None
        why = "" if latch is None else (
            f"the session row's transcriptByteCompactionLatch ({format_bytes(latch.active_bytes)}) "
            "holds it until the history grows by another limit")
    head = f"size guard: {what} {format_bytes(active)} of {format_bytes(limit)}"
    if active < limit:
        return head
    return head + (": compacts before the next turn" if armed else f": does not fire ({why})")
