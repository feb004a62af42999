"""OpenClaw's pre-compaction memory flush as it shows in a transcript and in ``sessions.json``.

Before compacting, OpenClaw sends a silent turn asking the agent to write durable memories to
``memory/YYYY-MM-DD.md``; the agent answers ``NO_REPLY`` (or writes files, then says so).
The turn's prompt is OpenClaw's text, never the user's words, and the store records when it
ran (``memoryFlushAt``) and in which compaction cycle (``memoryFlushCompactionCount``; the
newest OpenClaw keeps ``memoryFlush: {kind, compactionCount}`` instead). This finds both.
Pure: ``sessions.store`` reads the store; this only interprets its record.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from sessionlens.engine.contract.user_words import (
    FLUSH_PROMPT_PREFIX,
    SILENT_REPLY_TOKEN,
    is_flush_prompt,
)
from sessionlens.engine.load.formats.claude_code_blocks import iso_to_ms
from sessionlens.engine.model import Entry, ImageBlock, Transcript
from sessionlens.engine.sessions.store import StoreRecord

__all__ = [
    "FLUSH_PROMPT_PREFIX", "SILENT_REPLY_TOKEN", "STORE_MATCH_TOLERANCE_MS", "FlushEvidence",
    "FlushTurn", "StoreFlushRecord", "entry_time_ms", "find_flush_turns", "is_flush_prompt",
    "store_flush_record",
]

#: A store's ``memoryFlushAt`` this close to a flush turn's end is that turn's record.
STORE_MATCH_TOLERANCE_MS = 5 * 60 * 1000
_WRITE_TOOLS = frozenset({"write", "edit", "apply_patch", "multi_edit"})
_MEMORY_FILE = re.compile(r"(?:^|/)memory/[^/]+\.md$")

FlushEvidence = Literal["prompt", "empty-prompt"]


@dataclass(frozen=True, slots=True)
class FlushTurn:
    """One flush turn on the active path: the prompt and everything up to the next user turn."""

    prompt_entry_id: str
    entry_ids: tuple[str, ...]
    line: int
    #: When the turn ended (its last entry), epoch ms; None without timestamps.
    ended_at_ms: int | None
    #: The agent answered ``NO_REPLY`` (nothing reached the user).
    silent: bool
    #: Paths the turn's write/edit calls touched (the memories it stored).
    written_files: tuple[str, ...]
    #: "prompt": OpenClaw's prompt text is in the file; "empty-prompt": the newest OpenClaw
    #: stores an empty user message and the answer shows it was a flush.
    evidence: FlushEvidence


@dataclass(frozen=True, slots=True)
class StoreFlushRecord:
    """The store's flush bookkeeping for one session (``sessions.json`` §2.4)."""

    session_key: str
    memory_flush_at: int | None
    memory_flush_compaction_count: int | None
    compaction_count: int
    #: Newest OpenClaw: "succeeded" or "failed" (with ``failure_count``); None before.
    kind: str | None
    failure_count: int | None
    #: ``contextTokens``: the model window OpenClaw used for the session.
    context_window: int | None
    #: The flush turn ``memory_flush_at`` belongs to, and how long after its end it was stamped.
    matched_turn_id: str | None = None
    lag_ms: int | None = None

    @property
    def current_cycle_flushed(self) -> bool:
        """OpenClaw counts the current cycle as flushed: no flush until the next compaction."""
        return self.memory_flush_compaction_count == self.compaction_count


def entry_time_ms(entry: Entry) -> int | None:
    """When an entry was written (its row timestamp), else its message's own timestamp."""
    at = iso_to_ms(entry.timestamp)
    if at is None and entry.message is not None:
        at = entry.message.timestamp_ms
    return at


def _count(value: Any) -> int | None:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def store_flush_record(record: StoreRecord, turns: Sequence[FlushTurn] = ()
                       ) -> StoreFlushRecord:
    """The flush fields of a store record, matched to the flush turn they stamp."""
    raw: Mapping[str, Any] = record.raw
    nested = raw.get("memoryFlush")
    nested = nested if isinstance(nested, Mapping) else {}
    at = _count(raw.get("memoryFlushAt"))
    count = _count(raw.get("memoryFlushCompactionCount"))
    if count is None:
        count = _count(nested.get("compactionCount"))
    matched: str | None = None
    lag: int | None = None
    if at is not None:
        timed = [(abs(at - t.ended_at_ms), t) for t in turns if t.ended_at_ms is not None]
        if timed:
            gap, turn = min(timed, key=lambda pair: pair[0])
            if gap <= STORE_MATCH_TOLERANCE_MS:
                matched, lag = turn.prompt_entry_id, at - (turn.ended_at_ms or 0)
    kind = nested.get("kind")
    return StoreFlushRecord(
        session_key=record.session_key, memory_flush_at=at,
        memory_flush_compaction_count=count, compaction_count=record.compaction_count,
        kind=kind if isinstance(kind, str) else None,
        failure_count=_count(nested.get("failureCount") or raw.get("memoryFlushFailureCount")),
        context_window=_count(raw.get("contextTokens")) or None,
        matched_turn_id=matched, lag_ms=lag)


def _is_user(entry: Entry) -> bool:
    return entry.type == "message" and entry.role == "user"


def _empty_prompt(entry: Entry) -> bool:
    msg = entry.message
    return (msg is not None and not msg.text.strip()
            and not any(isinstance(b, ImageBlock) for b in msg.content))


def _turn(path: Sequence[Entry], i: int, evidence: FlushEvidence) -> FlushTurn:
    end = i + 1
    while end < len(path) and not _is_user(path[end]) and path[end].type != "compaction":
        end += 1
    span = path[i:end]
    written: list[str] = []
    last_text = ""
    for e in span[1:]:
        msg = e.message
        if e.type != "message" or msg is None or msg.role != "assistant":
            continue
        if msg.text.strip():
            last_text = msg.text.strip()
        for call in msg.tool_calls:
            args = call.arguments if isinstance(call.arguments, dict) else {}
            target = args.get("path") or args.get("file_path")
            if call.name in _WRITE_TOOLS and isinstance(target, str):
                written.append(target)
    return FlushTurn(
        prompt_entry_id=path[i].id, entry_ids=tuple(e.id for e in span), line=path[i].line,
        ended_at_ms=entry_time_ms(span[-1]), silent=last_text.startswith(SILENT_REPLY_TOKEN),
        written_files=tuple(written), evidence=evidence)


def find_flush_turns(transcript: Transcript, custom_prompt: str | None = None
                     ) -> tuple[FlushTurn, ...]:
    """Flush turns on the active path, in order.

    A user message with the flush prompt opens one. So does an empty user message whose
    answer is ``NO_REPLY`` or writes ``memory/*.md`` (the newest OpenClaw keeps the prompt out
    of the transcript). ``NO_REPLY`` alone is not enough: agents also answer real user
    messages with it (sample 03 does)."""
    path = transcript.path_entries()
    turns: list[FlushTurn] = []
    for i, entry in enumerate(path):
        if not _is_user(entry) or entry.message is None:
            continue
        if is_flush_prompt(entry.message.text, custom_prompt):
            turns.append(_turn(path, i, "prompt"))
        elif _empty_prompt(entry):
            turn = _turn(path, i, "empty-prompt")
            if turn.silent or any(_MEMORY_FILE.search(f) for f in turn.written_files):
                turns.append(turn)
    return tuple(turns)
