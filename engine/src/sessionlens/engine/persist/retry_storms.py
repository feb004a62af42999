"""Retry storms: the same long prompt sent again and again because no reply came back.

A chat channel that gets no answer resends the message (Telegram, WhatsApp, a flaky client,
a user hitting Enter twice); pi records each copy with its failed reply (``stopReason``
"error" or "aborted"). OpenClaw's successor leaves such repeats out so the storm is not carried
into the next transcript. SessionLens does it more narrowly than OpenClaw, whose dedupe once
dropped a deliberately re-sent prompt (its PR #93732): a copy is dropped only when it got no
successful reply, and the copy that was answered (else the newest) stays.

What counts, with OpenClaw's own numbers (``compaction-duplicate-user-messages.ts``):

* **window 60 s** (``DEFAULT_DUPLICATE_USER_MESSAGE_WINDOW_MS``): each copy comes within a
  minute of the one before it; channel retries come seconds apart, a person who asks the
  same thing again usually after reading an answer, so later repeats are left alone;
* **long = 24 characters or more** after collapsing whitespace
  (``MIN_DUPLICATE_USER_MESSAGE_CHARS``): "ok", "yes", "continue" are legitimately repeated;
* the same text from the same sender (``__openclaw.senderId`` when the line has it), text
  only (a message with an image is never a copy), with no successful reply and no tool call
  in between. Pure: the caller passes the raw lines in when sender ids should count.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import orjson

from sessionlens.engine.load.formats.claude_code_blocks import iso_to_ms
from sessionlens.engine.model import Entry, ImageBlock, Transcript

__all__ = ["MIN_RETRY_CHARS", "RETRY_WINDOW_MS", "RetryCopy", "RetryOutcome",
           "find_retry_copies"]

#: A copy must follow the previous one within this many milliseconds.
RETRY_WINDOW_MS = 60_000
#: Only prompts at least this long (whitespace collapsed) are treated as copies.
MIN_RETRY_CHARS = 24

RetryOutcome = Literal["error", "aborted", "no-reply"]
RawLine = Callable[[Entry], bytes]


@dataclass(frozen=True, slots=True)
class RetryCopy:
    """A user message left out of the successor, with the failed replies it got."""

    entry_id: str
    line: int
    #: The copy that stays (the answered one, else the newest).
    kept_entry_id: str
    #: The failed assistant replies to this copy, left out with it.
    reply_entry_ids: tuple[str, ...]
    outcome: RetryOutcome
    #: Milliseconds until the next copy was sent.
    gap_ms: int
    chars: int
    #: The first 80 characters, for a list the user can read.
    preview: str

    @property
    def dropped_ids(self) -> tuple[str, ...]:
        return (self.entry_id, *self.reply_entry_ids)


@dataclass(slots=True)
class _Turn:
    index: int
    entry: Entry
    #: The normalized text of a long prompt (None: not a candidate copy).
    text: str | None
    at_ms: int | None
    replies: list[str]
    outcome: RetryOutcome | Literal["answered"]
    #: Read from the source line only when the text repeats: reading it for every prompt
    #: re-read the whole file on each plan (1.6 s of CPU on a 100 MB session).
    sender: str | None = None

    def sender_of(self, raw_line: RawLine | None) -> str:
        if self.sender is None:
            self.sender = _sender(self.entry, raw_line)
        return self.sender


def _sent_ms(entry: Entry) -> int | None:
    """When the message was sent: its own timestamp (what OpenClaw compares), else the row's."""
    msg = entry.message
    if msg is not None and msg.timestamp_ms is not None:
        return msg.timestamp_ms
    return iso_to_ms(entry.timestamp)


def _sender(entry: Entry, raw_line: RawLine | None) -> str:
    if raw_line is None:
        return ""
    try:
        obj = orjson.loads(raw_line(entry))
    except orjson.JSONDecodeError:
        return ""
    meta = obj.get("message", {}).get("__openclaw") if isinstance(obj, dict) else None
    sender = meta.get("senderId") if isinstance(meta, dict) else None
    return sender if isinstance(sender, str) else ""


def _text_key(entry: Entry, min_chars: int) -> str | None:
    msg = entry.message
    if msg is None or any(isinstance(b, ImageBlock) for b in msg.content):
        return None
    text = unicodedata.normalize("NFC", " ".join(msg.text.split()))
    return text if len(text) >= min_chars else None


def _turns(path: Sequence[Entry], min_chars: int) -> list[_Turn]:
    """User turns of the path: the message, its failed replies, and how the turn ended."""
    turns: list[_Turn] = []
    for i, entry in enumerate(path):
        if entry.type == "compaction" or entry.type == "reset":
            turns.append(_Turn(i, entry, None, None, [], "answered"))  # a wall between copies
            continue
        msg = entry.message
        if entry.type != "message" or msg is None:
            continue
        if msg.role == "user":
            turns.append(_Turn(i, entry, _text_key(entry, min_chars), _sent_ms(entry), [],
                               "no-reply"))
        elif turns and turns[-1].outcome != "answered":
            turn = turns[-1]
            if msg.role == "assistant" and msg.stop_reason in ("error", "aborted"):
                turn.replies.append(entry.id)
                turn.outcome = "error" if msg.stop_reason == "error" else "aborted"
            else:
                turn.outcome = "answered"  # a reply, a tool run: the prompt got through
    return turns


def find_retry_copies(transcript: Transcript, *, after_entry_id: str | None = None,
                      window_ms: int = RETRY_WINDOW_MS, min_chars: int = MIN_RETRY_CHARS,
                      raw_line: RawLine | None = None) -> tuple[RetryCopy, ...]:
    """Unanswered copies of a repeated long prompt on the active path, in path order.

    ``after_entry_id`` limits the drops to entries after it (a successor keeps its
    ``firstKeptEntryId`` and what follows; that entry itself always stays). ``raw_line``
    reads an entry's source line, for sender ids."""
    path = transcript.path_entries()
    floor = -1
    if after_entry_id is not None:
        floor = next((i for i, e in enumerate(path) if e.id == after_entry_id), len(path))
    turns = _turns(path, min_chars)
    copies: list[RetryCopy] = []
    run: list[_Turn] = []

    def close(run: list[_Turn]) -> None:
        kept = run[-1]
        for turn, nxt in zip(run, run[1:], strict=False):
            if turn.index <= floor:
                continue
            text = turn.text or ""
            copies.append(RetryCopy(
                entry_id=turn.entry.id, line=turn.entry.line, kept_entry_id=kept.entry.id,
                reply_entry_ids=tuple(turn.replies),
                outcome="no-reply" if turn.outcome == "answered" else turn.outcome,
                gap_ms=(nxt.at_ms or 0) - (turn.at_ms or 0), chars=len(text),
                preview=text[:80]))

    for turn in turns:
        prev = run[-1] if run else None
        joins = (prev is not None and turn.text is not None and turn.text == prev.text
                 and prev.outcome != "answered" and prev.at_ms is not None
                 and turn.at_ms is not None and 0 <= turn.at_ms - prev.at_ms <= window_ms
                 and turn.sender_of(raw_line) == prev.sender_of(raw_line))
        if joins:
            run.append(turn)
            continue
        if len(run) > 1:
            close(run)
        run = [turn]
    if len(run) > 1:
        close(run)
    return tuple(copies)
