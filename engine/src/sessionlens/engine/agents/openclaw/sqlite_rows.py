"""The rows OpenClaw 2026.9's compactor writes for one compaction, computed, not yet written.

Read from the pinned 2026.9.6 package (``session-accessor.sqlite-transcript-store``
``appendTranscriptEvent``, ``transcript-payload`` ``prepareTranscriptPayload``,
``session-transcript-index`` ``prepareSessionTranscriptProjectionAppend``,
``session-accessor.sqlite-transcript-write`` ``projectCompactionAccountingPatch``) and checked
against what its own ``SessionManager.appendCompaction`` + ``incrementCompactionCount`` write
into a copy of a store (``tests/agents/test_openclaw_store_write.py``). One compaction is:

- ``transcript_events``: the next ``seq``; ``created_at`` = the event's timestamp in ms;
  ``event_utf8_bytes`` = its JSON's UTF-8 size; the JSON as ``event_json``, or, when it is at
  least 1,024 bytes, has no ``\\u`` escape and zstd (level 1, with checksum) saves at least
  max(64, 10 %) including the navigation facts, as ``event_zstd`` + ``navigation_json``.
- ``transcript_event_identities``: id, seq, type ``compaction``, parent id, no idempotency key.
- ``session_transcript_active_events``: the next active position, no message position,
  context eligible; ``session_transcript_index_state``: indexed seq, leaf, one more active
  event, ``updated_at`` = the event's ``created_at``. No FTS row (only messages get one).
- ``session_windows``: ``updated_at``, ``transcript_updated_at`` (strictly later than the last
  mutation and observation) and ``transcript_observed_at`` (= that mutation, as the session
  row write records it).
- ``session_nodes``: the session row's accounting (``compactionCount`` + 1, ``totalTokens`` =
  tokens after, fresh; run usage and ``contextBudgetStatus`` cleared), ``updated_at``.
Pure: nothing here opens or writes a database.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import zstandard

__all__ = ["MIN_COMPRESS_BYTES", "Payload", "accounting_patch", "compaction_event",
           "compaction_navigation", "event_json_text", "event_payload", "iso_ms"]

MIN_COMPRESS_BYTES = 1024
_SURROGATE = re.compile("[\ud800-\udfff]")
MAX_EVENT_BYTES = 4 * 1024 * 1024
MAX_NAVIGATION_BYTES = 16384
#: ``MODEL_CONTEXT_NAVIGATION_KEYS`` and its first part, ``TRANSCRIPT_NAVIGATION_KEYS``.
_TREE_KEYS = ("type", "id", "parentId", "targetId", "appendParentId", "appendMode")
_MODEL_KEYS = (*_TREE_KEYS, "timestamp", "version", "cwd", "firstKeptEntryId", "reason",
               "tokensBefore", "thinkingLevel", "provider", "modelId", "fromId", "customType",
               "display", "label", "name")
_RESET_KEYS = (*_TREE_KEYS, "timestamp", "firstKeptEntryId", "customType", "display")
#: ``COMPACTION_RUN_USAGE_CLEAR_PATCH`` and the other keys the accounting patch removes.
_CLEARED = ("inputTokens", "outputTokens", "cacheRead", "cacheWrite", "estimatedCostUsd",
            "contextBudgetStatus", "transcriptByteCompactionLatch")


@dataclass(frozen=True, slots=True)
class Payload:
    """How one event is stored: as JSON text, or zstd-compressed with its navigation facts."""

    event_json: str | None
    event_zstd: bytes | None
    event_utf8_bytes: int
    navigation_json: str | None


def _dumps(value: Any) -> str:
    """``JSON.stringify``: compact, non-ASCII as is, a lone surrogate as ``\\udxxx``."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def event_json_text(event: Mapping[str, Any]) -> str:
    return _dumps(event)


def iso_ms(timestamp: str) -> int:
    """Milliseconds since the epoch of an ISO timestamp (``readEventTimestamp``)."""
    return int(datetime.fromisoformat(timestamp.replace("Z", "+00:00")).timestamp() * 1000)


def compaction_event(base: Mapping[str, Any], tokens_after: int | None) -> dict[str, Any]:
    """The compaction entry in ``SessionManager.appendCompaction``'s key order: type, id,
    parentId, timestamp, summary, firstKeptEntryId, tokensBefore, tokensAfter, details,
    fromHook (false: the details hold file lists in the built-in shape, which OpenClaw's
    next compaction merges), then SessionLens's own ``sessionlens`` facts."""
    head = ("type", "id", "parentId", "timestamp", "summary", "firstKeptEntryId",
            "tokensBefore")
    out: dict[str, Any] = {k: base[k] for k in head if k in base}
    if tokens_after is not None:
        out["tokensAfter"] = int(tokens_after)
    if "details" in base:
        out["details"] = base["details"]
    out["fromHook"] = False
    out.update({k: v for k, v in base.items() if k not in out})
    return out


def _pick(event: Mapping[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    """``pickJsonObject``: the members named in ``keys``, in the event's own order."""
    wanted = set(keys)
    return {k: v for k, v in event.items() if k in wanted}


def compaction_navigation(event: Mapping[str, Any]) -> str:
    """The ``navigation_json`` OpenClaw stores beside a compressed compaction event
    (``navigationProjection`` for an entry without ``message``)."""
    report = {"kind": "canonical", "hasParentId": "parentId" in event,
              "entry": {k: event[k] for k in ("id", "parentId", "timestamp", "type")
                        if k in event}}
    navigation = _pick(event, _MODEL_KEYS)
    reset = {**_pick(event, _RESET_KEYS), "message": {"role": None}}
    model = {**_pick(event, _MODEL_KEYS), "summary": ""}
    size = len(_dumps(event).encode("utf-8"))
    without_data = len(_dumps({k: v for k, v in event.items() if k != "data"}).encode("utf-8"))
    return _dumps({"version": 1, "report": report, "navigation": navigation, "reset": reset,
                   "model": model, "modelBytes": size, "modelWithoutCheckpointBytes": size,
                   "withoutCustomDataBytes": without_data})


def event_payload(event: Mapping[str, Any]) -> Payload:
    """``prepareTranscriptPayload`` for a compaction event on a UTF-8 store."""
    text = _dumps(event)
    raw = text.encode("utf-8")
    identity = Payload(text, None, len(raw), None)
    if len(raw) > MAX_EVENT_BYTES or "\\u" in text or "\0" in text \
            or len(raw) < MIN_COMPRESS_BYTES or event.get("type") != "compaction":
        return identity
    compressed = zstandard.ZstdCompressor(level=1, write_checksum=True,
                                          write_content_size=True).compress(raw)
    maximum = len(raw) - max(64, -(-len(raw) // 10))
    if len(compressed) > maximum:
        return identity
    navigation = compaction_navigation(event)
    nav_bytes = len(navigation.encode("utf-8"))
    if nav_bytes > MAX_NAVIGATION_BYTES or len(compressed) + nav_bytes > maximum:
        return identity
    return Payload(None, compressed, len(raw), navigation)


def accounting_patch(entry: Mapping[str, Any], tokens_after: int | None,
                     now_ms: int) -> dict[str, Any]:
    """The session row after ``incrementCompactionCount`` (``projectCompactionAccountingPatch``
    spread over the row; keys it sets to undefined disappear from the JSON)."""
    out: dict[str, Any] = dict(entry)
    count = entry.get("compactionCount")
    out["compactionCount"] = (count if isinstance(count, int) else 0) + 1
    out["updatedAt"] = now_ms
    for key in _CLEARED:
        out.pop(key, None)
    if tokens_after is not None and tokens_after >= 0:
        out["totalTokens"] = int(tokens_after)
        out["totalTokensFresh"] = True
        out["totalTokensVersion"] = 1
    else:
        out["totalTokensFresh"] = False
        out.pop("totalTokensVersion", None)
    return out
