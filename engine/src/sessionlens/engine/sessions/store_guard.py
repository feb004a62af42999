"""OpenClaw 2026.9's size guard on a session of its SQLite store: what it measures, whether it
fires. Pure: it reads the entries and the session row the reader already carries.

What OpenClaw 2026.9.6 does (its dist, file names as pinned):

- ``agent-runner-memory-*.mjs`` (``runSessionCompactionIfNeeded``): before a reply, when
  ``agents.defaults.compaction.maxActiveTranscriptBytes`` is a positive size, it reads
  ``readSessionLogSnapshot({includeByteSize: true})`` and compacts (trigger
  ``transcript_bytes``) when that size is ``>= maxActiveTranscriptBytes``. The memory flush
  compares the same size with ``memoryFlush.forceFlushTranscriptBytes``.
- ``legacy-*.mjs``: ``truncateAfterCompaction`` is retired ("byte-triggered compaction now
  opts in via maxActiveTranscriptBytes alone"): the compactor keeps the session, so no
  successor file is needed for the guard to fire.
- The size is ``readSessionTranscriptActiveStats`` (``session-accessor.sqlite-active-events-
  *.mjs``) = ``readVisibleTranscriptStats`` (``session-accessor.sqlite-visible-cursor-*.mjs``):
  over the rows of ``session_transcript_active_events`` joined to ``transcript_events``, the
  sum of ``coalesce(event_utf8_bytes, octet_length(event_json)) + 1`` (a JSONL line and its
  newline) of every active-path event after the latest compaction or reset that is
  ``context_eligible`` (not a message with ``excludeFromContext``), plus the context prefix of
  that boundary (``findLatestResetMessageWindow``): the compaction row itself, and the message
  rows from its ``firstKeptEntryId`` up to it (message rows only, context-eligible ones after a
  compaction). The session header is not an active event.
- After a byte-triggered compaction that left the history over the limit, the session row
  keeps ``transcriptByteCompactionLatch`` ``{activeBytes, sessionId, maxBytes}``; while it
  matches, the guard does not fire again until the history grew by another ``maxBytes``
  (``hasMatchingTranscriptByteCompactionLatch``).

The store reader gives each entry's ``length`` as its row's decoded UTF-8 bytes, so the sum
here is OpenClaw's number (``tests/agents/drivers/openclaw_active_bytes.mjs`` runs OpenClaw's
own function for the tests).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from sessionlens.engine.model import Entry, Transcript

from .store_row import is_store_session, store_row

__all__ = ["LATCH_KEY", "ByteLatch", "byte_latch", "guard_needs_truncate", "kept_bytes",
           "latched", "row_bytes", "store_active_bytes"]

LATCH_KEY = "transcriptByteCompactionLatch"


def _eligible(entry: Entry) -> bool:
    return entry.message is None or not entry.message.exclude_from_context


def row_bytes(entry: Entry) -> int:
    """What one active event after the boundary adds: its row's bytes and a newline, or 0
    when it is not context-eligible."""
    return entry.length + 1 if _eligible(entry) else 0


def kept_bytes(kept: Sequence[Entry], boundary: Entry) -> int:
    """The context prefix of a boundary: a compaction's own row, and the message rows it keeps
    (context-eligible ones; a reset's kept messages all count, its own row does not)."""
    compaction = boundary.type == "compaction"
    total = boundary.length + 1 if compaction else 0
    return total + sum(e.length + 1 for e in kept
                       if e.type == "message" and (not compaction or _eligible(e)))


def store_active_bytes(path: Sequence[Entry]) -> int:
    """OpenClaw 2026.9's ``readSessionTranscriptActiveStats(...).sizeBytes`` for the active
    path ``path`` (root first, no header)."""
    boundary = next((i for i in range(len(path) - 1, -1, -1)
                     if path[i].type in ("compaction", "reset")), None)
    if boundary is None:
        return sum(row_bytes(e) for e in path)
    b = path[boundary]
    first = next((i for i in range(boundary) if path[i].id == b.first_kept_entry_id), boundary)
    return kept_bytes(path[first:boundary], b) + sum(row_bytes(e) for e in path[boundary + 1:])


def guard_needs_truncate(transcript: Transcript) -> bool:
    """Whether the size guard needs ``truncateAfterCompaction``: before the store it did (the
    guard compacts by writing a successor file); in the store it is retired."""
    return not is_store_session(transcript)


@dataclass(frozen=True, slots=True)
class ByteLatch:
    """The session row's ``transcriptByteCompactionLatch``."""

    active_bytes: int
    session_id: str
    max_bytes: int


def byte_latch(transcript: Transcript) -> ByteLatch | None:
    row = store_row(transcript)
    latch = row.get(LATCH_KEY) if row is not None else None
    if not isinstance(latch, Mapping):
        return None
    active, sid, most = latch.get("activeBytes"), latch.get("sessionId"), latch.get("maxBytes")
    if not (isinstance(active, int) and isinstance(sid, str) and isinstance(most, int)):
        return None
    return ByteLatch(active, sid, most)


def latched(transcript: Transcript, active: int, limit: int) -> ByteLatch | None:
    """The latch that keeps the guard from firing again now, or None
    (``hasMatchingTranscriptByteCompactionLatch``)."""
    latch = byte_latch(transcript)
    if latch is None or latch.session_id != transcript.session_id or latch.max_bytes != limit:
        return None
    return latch if limit <= active and active - latch.active_bytes < limit else None
