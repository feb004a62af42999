"""Cutting a transcript's text into overlapping chunks that can be resumed when it grows.

OpenClaw's memory engine indexes 400-token chunks with 80 tokens of overlap. Here whole
entries are packed into a chunk while they fit; an entry that does not fit starts the next
chunk, and one larger than a chunk is cut at a token boundary. Each chunk begins with the
last ``overlap`` tokens of the one before, so a fact that straddles a boundary is found
whole. Every chunk remembers which piece of which entry each part of its text came from,
so a hit names its entry.

The chunker is restartable: ``ChunkerState`` says where the last chunk began (its carried
overlap and the entry position after it). When an append-only file grows, the indexer drops
that last chunk and resumes from its state, which gives exactly the chunks a rebuild would.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple, Protocol

from sessionlens.engine.contract.identifiers import entry_text
from sessionlens.engine.model import Entry
from sessionlens.engine.tokens.estimate import CHARS_PER_TOKEN

from .search_settings import ESTIMATE

__all__ = [
    "Chunk", "ChunkerState", "EstimatedTokens", "ExactTokens", "Piece", "TokenMeasure",
    "chunk_entries", "indexed_text", "token_measure",
]

#: Text between two pieces of one chunk.
PIECE_SEPARATOR = "\n"


def indexed_text(entry: Entry) -> str:
    """What search finds in an entry: message text, tool calls (name and arguments), tool
    results, shell runs, custom messages and branch/compaction summaries; never thinking
    or images, which no reader quotes back."""
    if entry.type == "compaction":
        return entry.summary or ""
    text = entry_text(entry)
    msg = entry.message
    if msg is not None and msg.tool_calls:
        names = " ".join(call.name for call in msg.tool_calls)
        text = f"{names}\n{text}" if text else names
    return text


# --------------------------------------------------------------------------- measuring

class TokenMeasure(Protocol):
    """Token arithmetic the chunker needs, on ``text[start:end]`` without copying the rest
    (a 400 KB tool result is cut hundreds of times); ``counts`` may run in parallel."""

    def counts(self, texts: Sequence[str]) -> list[int]: ...

    def count(self, text: str, start: int = 0, end: int | None = None) -> int: ...

    def head(self, text: str, start: int, tokens: int) -> int:
        """The end of the first ``tokens`` tokens of ``text[start:]`` (an index into text)."""
        ...

    def tail(self, text: str, start: int, end: int, tokens: int) -> int:
        """Where the last ``tokens`` tokens of ``text[start:end]`` begin (an index into text)."""
        ...


class EstimatedTokens:
    """The agents' own estimate, ``CHARS_PER_TOKEN`` characters a token: what OpenClaw's
    memory chunker measures with (its 400 tokens are 1,600 characters)."""

    def counts(self, texts: Sequence[str]) -> list[int]:
        return [-(-len(t) // CHARS_PER_TOKEN) for t in texts]

    def count(self, text: str, start: int = 0, end: int | None = None) -> int:
        stop = len(text) if end is None else end
        return -(-(stop - start) // CHARS_PER_TOKEN)

    def head(self, text: str, start: int, tokens: int) -> int:
        return min(len(text), start + tokens * CHARS_PER_TOKEN)

    def tail(self, text: str, start: int, end: int, tokens: int) -> int:
        return max(start, end - tokens * CHARS_PER_TOKEN)


class ExactTokens:
    """Real token boundaries from the engine's offline tiktoken encodings.

    ``counts`` goes through ``TextCounter`` (helper threads on spare cores, since tiktoken
    releases the GIL); ``head`` and ``tail`` encode only a window around the boundary.
    """

    def __init__(self, encoding: str, *, helpers: bool = True,
                 cancel: Callable[[], bool] | None = None) -> None:
        from sessionlens.engine.tokens.tokenizer import get_encoding

        self._name = encoding
        self._enc = get_encoding(encoding)
        self._helpers = helpers
        self._cancel = cancel

    def counts(self, texts: Sequence[str]) -> list[int]:
        from pathlib import Path

        from sessionlens.engine.tokens.text_counter import count_texts

        return count_texts(self._name, texts, len(texts), path=Path("<search>"),
                           cancel=self._cancel, helpers=self._helpers)

    def count(self, text: str, start: int = 0, end: int | None = None) -> int:
        part = text[start:end]
        return len(self._enc.encode_ordinary(part)) if part else 0

    def _chars(self, tokens: list[int]) -> int:
        return len(self._enc.decode_bytes(tokens).decode("utf-8", errors="ignore"))

    def head(self, text: str, start: int, tokens: int) -> int:
        span = tokens * 6 + 64  # most text runs 3-4 characters a token; CJK about 1
        while True:
            toks = self._enc.encode_ordinary(text[start:start + span])
            if len(toks) > tokens:
                return start + self._chars(toks[:tokens])
            if start + span >= len(text):
                return len(text)
            span *= 2

    def tail(self, text: str, start: int, end: int, tokens: int) -> int:
        if tokens <= 0:
            return end
        span = tokens * 6 + 64
        while True:
            lo = max(start, end - span)
            toks = self._enc.encode_ordinary(text[lo:end])
            if len(toks) > tokens:
                return end - self._chars(toks[-tokens:])
            if lo == start:
                return start
            span *= 2


def token_measure(encoding: str, *, helpers: bool = True,
                  cancel: Callable[[], bool] | None = None) -> TokenMeasure:
    """The measure a ``SearchSettings.chunk_encoding`` names."""
    if encoding == ESTIMATE:
        return EstimatedTokens()
    return ExactTokens(encoding, helpers=helpers, cancel=cancel)


# --------------------------------------------------------------------------- chunking

class Piece(NamedTuple):
    """Characters ``start:end`` of the indexed text of the entry at file position ``seq``.

    Piece and Chunk are tuples, not frozen dataclasses: a first build makes millions of
    them, and a frozen dataclass takes 1.3 us to make against 0.6 for a tuple."""

    seq: int
    start: int
    end: int
    tokens: int


class Chunk(NamedTuple):
    """One indexed chunk: its text and, per piece, where in ``text`` that piece begins."""

    text: str
    pieces: tuple[Piece, ...]
    offsets: tuple[int, ...]
    tokens: int


class ChunkerState(NamedTuple):
    """Where a chunk began: the overlap it carried, then entry ``seq`` from character ``char``."""

    carry: tuple[Piece, ...] = ()
    seq: int = 0
    char: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"carry": [[p.seq, p.start, p.end, p.tokens] for p in self.carry],
                "seq": self.seq, "char": self.char}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ChunkerState:
        """Read back ``to_json`` (other keys, such as the indexer's own, are ignored)."""
        carry = tuple(Piece(int(a), int(b), int(c), int(d)) for a, b, c, d in data["carry"])
        return cls(carry, int(data["seq"]), int(data["char"]))


def _build(pieces: list[Piece], texts: Mapping[int, str], tokens: int) -> Chunk:
    """The chunk of ``pieces`` (``tokens`` is their total, which the caller keeps)."""
    parts: list[str] = []
    offsets: list[int] = []
    at = 0
    prev_seq, prev_end = -1, -1
    sep = len(PIECE_SEPARATOR)
    for p in pieces:
        # the carried end of an entry and its continuation are one run of text
        if prev_seq >= 0 and not (prev_seq == p.seq and prev_end == p.start):
            parts.append(PIECE_SEPARATOR)
            at += sep
        offsets.append(at)
        text = texts[p.seq]
        part = text if p.start == 0 and p.end == len(text) else text[p.start:p.end]
        parts.append(part)
        at += len(part)
        prev_seq, prev_end = p.seq, p.end
    return Chunk("".join(parts), tuple(pieces), tuple(offsets), tokens)


def _carry(pieces: list[Piece], texts: Mapping[int, str], overlap: int,
           measure: TokenMeasure) -> tuple[Piece, ...]:
    """The last ``overlap`` tokens of a chunk, as pieces (the next chunk starts with them)."""
    out: list[Piece] = []
    need = overlap
    for p in reversed(pieces):
        if need <= 0:
            break
        if p.tokens <= need:
            out.append(p)
            need -= p.tokens
            continue
        text = texts[p.seq]
        start = measure.tail(text, p.start, p.end, need)
        if start < p.end:
            out.append(Piece(p.seq, start, p.end, measure.count(text, start, p.end)))
        break
    out.reverse()
    return tuple(out)


def chunk_entries(items: Sequence[tuple[int, str]], counts: Mapping[int, int],
                  measure: TokenMeasure, size: int, overlap: int,
                  state: ChunkerState | None = None) -> tuple[list[Chunk], ChunkerState]:
    """Chunks of ``items`` ((file position, text) in file order, texts non-empty) from
    ``state`` on; ``counts`` holds each whole text's tokens.

    Returns the chunks and the state the last of them began at (the "open" chunk a later
    append re-does). With nothing to chunk past ``state`` the list is empty.
    """
    state = state or ChunkerState()
    texts = {seq: text for seq, text in items}
    cur = list(state.carry)
    cur_tokens = sum(p.tokens for p in cur)
    fresh = False
    begun = state
    chunks: list[Chunk] = []
    order = [seq for seq, _ in items if seq >= state.seq]
    i = 0
    #: Past this many characters a text cannot fit in a chunk (no token is 16 chars long).
    window = size * 16 + 64
    char = state.char if order and order[0] == state.seq else 0

    def close(next_seq: int, next_char: int) -> None:
        nonlocal cur, cur_tokens, fresh, begun
        chunks.append(_build(cur, texts, cur_tokens))
        carry = _carry(cur, texts, overlap, measure)
        begun = ChunkerState(carry, next_seq, next_char)
        cur, cur_tokens, fresh = list(carry), sum(p.tokens for p in carry), False

    while i < len(order):
        seq = order[i]
        text = texts[seq]
        if char == 0:
            n = counts[seq]
        elif len(text) - char <= window:
            n = measure.count(text, char)
        else:  # the rest of a long entry: more than a chunk, no need to count it all
            n = size + 1
        if cur_tokens + n <= size:
            cur.append(Piece(seq, char, len(text), n))
            cur_tokens += n
            fresh, i, char = True, i + 1, 0
            continue
        if fresh:  # start the next chunk with this entry
            close(seq, char)
            continue
        room = size - cur_tokens
        cut = max(char + 1, measure.head(text, char, room))
        if cut >= len(text):  # the tokenizer's count and its boundaries disagree by a hair
            cur.append(Piece(seq, char, len(text), n))
            cur_tokens += n
            fresh, i, char = True, i + 1, 0
            continue
        cur.append(Piece(seq, char, cut, measure.count(text, char, cut)))
        fresh = True
        close(seq, cut)
        char = cut
    if fresh:
        chunks.append(_build(cur, texts, cur_tokens))
    return chunks, begun
