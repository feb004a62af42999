"""Aider chat histories (``<repo>/.aider.chat.history.md``, or ``$AIDER_CHAT_HISTORY_FILE``).

Aider appends every run to one Markdown file: ``# aider chat started at <time>``, then
``####`` lines (what the user typed, one line each, a block per input),
``>`` lines (Aider's own output: version, model, "Tokens: ... sent, ... received", applied
edits, edit errors) and the model's reply as plain Markdown.

How a file of many runs maps to transcripts: each run is a session, opened alone as
``<file>/<n>`` (``n`` counts runs from 1, in file order; ``sessionlens sessions`` lists
them). The file itself opens every run in one transcript, each run starting with a ``reset``
entry (reason ``new``): Aider starts each run with an empty chat, so the context is the last
run's, and earlier runs stay readable above it. ``/clear`` and ``/reset`` empty the chat
too and are ``reset`` entries as well; other ``/commands`` are ``command`` entries (not sent
to the model); ``/ask``, ``/code`` and ``/architect`` send the rest of the line.

Aider v0.50 writes the lines of one input with blank lines between, so ``####`` blocks that
only blank lines separate are one input, unless one is a ``/command`` (always an input of its
own: every other input gets a reply or a ``>`` line before the next). A user message takes
the time ``.aider.input.history`` beside the file records for the same text, when it does. Aider records no ids, no times of its
replies, no tool calls and no compaction (it summarizes old messages in memory, unrecorded). A "Tokens:" line is the
usage of the reply before it (Aider prints large counts rounded, "1.1k"; those are kept as
printed, ``extra["usage_rounded"]``). ``>`` blocks are ``notice`` entries; the ones reporting
an edit-format failure or an API error are marked ``error``. A model reply that contains a
level-4 heading (``#### ``) reads as user input: the file cannot tell them apart. Aider
counts tokens with the model's own tokenizer, so the exact count is the one to use.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sessionlens.engine.errors import LoadError
from sessionlens.engine.model import (
    Diagnostic,
    FormatGaps,
    Message,
    SessionHeader,
    TextBlock,
    Usage,
)

from . import ParsedFile
from .entry_chain import Chain, freeze, text_message
from .jsonl import iter_lines

__all__ = ["START", "Run", "input_history", "parse", "runs", "session_starts"]

START = "# aider chat started at "
_TOKENS = re.compile(r"([\d.,]+)(k?) (sent|received|cache write|cache hit)")
_COST = re.compile(r"Cost: \$([\d.]+) message")
_MODEL = re.compile(r"^Models?: (\S+)", re.M)
_ERRORS = ("did not conform to the edit format", "litellm.", "APIError", "RateLimitError",
           "BadRequestError", "AuthenticationError")
_RESETS = frozenset({"/clear", "/reset"})
_PASS_ON = ("/ask ", "/code ", "/architect ")
GAPS = FormatGaps("Aider", ("ids", "timestamps", "tool_results"), (
    "only a run's start time is recorded", "tool output is Aider's own '>' lines"))
STAMPED_GAPS = FormatGaps("Aider", ("ids", "tool_results"), (
    "what the user typed takes its time from .aider.input.history; replies have none",
    "tool output is Aider's own '>' lines"))


@dataclass(slots=True)
class _Block:
    """A run of lines of one kind: ``user``, ``notice`` or ``reply``."""

    kind: str
    line: int
    offset: int
    end: int
    lines: list[str] = field(default_factory=list)
    #: When the user typed it (from ``.aider.input.history``), for user blocks.
    stamp: str | None = None


def session_starts(data: bytes) -> list[tuple[int, str]]:
    """(line number, start time) of every run, in file order (a cheap scan for listings)."""
    out = []
    for line_no, start, stop in iter_lines(data):
        if data.startswith(START.encode(), start):
            out.append((line_no, data[start + len(START):stop].decode("utf-8", "replace")
                        .strip()))
    return out


@dataclass(frozen=True, slots=True)
class Run:
    """One run of a history, as a session list shows it (no entries built)."""

    number: int
    line: int
    started: str
    offset: int
    end: int
    blocks: int


def runs(data: bytes, history: bytes | None = None) -> list[Run]:
    """Every run with its byte span and its number of blocks (prompts, replies, notices)."""
    spans = {line_no: start for line_no, start, _ in iter_lines(data)}
    out = []
    for n, (line_no, started, last, blocks) in enumerate(_read_runs(data, history), 1):
        end = spans.get(last + 1, len(data))
        out.append(Run(n, line_no, started, spans.get(line_no, 0), end, len(blocks)))
    return out


def input_history(data: bytes) -> list[tuple[str, str]]:
    """``.aider.input.history`` entries: (time, what was typed), in file order."""
    entries: list[tuple[str, str]] = []
    stamp: str | None = None
    lines: list[str] = []
    for raw in data.decode("utf-8", "replace").split("\n"):
        if raw.startswith("# "):
            if stamp is not None:
                entries.append((stamp, "\n".join(lines)))
            stamp, lines = raw[2:].strip(), []
        elif raw.startswith("+") and stamp is not None:
            lines.append(raw[1:])
    if stamp is not None:
        entries.append((stamp, "\n".join(lines)))
    return entries


def _norm(text: str) -> str:
    """Text compared without its whitespace layout (the two files space it differently)."""
    return "\n".join(" ".join(line.split()) for line in text.split("\n") if line.strip())


#: How far ahead in the input history a typed input is looked for.
_WINDOW = 200


def _join_inputs(blocks: list[_Block]) -> None:
    """Join ``####`` blocks that only blank lines separate into one input, except around a
    ``/command`` (a command is one line and always an input of its own)."""
    k = 0
    while k + 1 < len(blocks):
        b, nxt = blocks[k], blocks[k + 1]
        joinable = b.kind == nxt.kind == "user" and not b.lines[0].startswith("/") \
            and not nxt.lines[0].startswith("/")
        if joinable:
            b.lines.extend(nxt.lines)
            b.end = nxt.end
            del blocks[k + 1]
        else:
            k += 1


def _stamp_inputs(blocks: list[_Block], history: list[tuple[str, str]], cursor: int) -> int:
    """Give each input the time ``.aider.input.history`` records for it (matched in order,
    whitespace aside); returns the new history cursor."""
    for b in blocks:
        if b.kind != "user":
            continue
        text = _norm("\n".join(b.lines))
        for j in range(cursor, min(cursor + _WINDOW, len(history))):
            if text and _norm(history[j][1]) == text:
                b.stamp = history[j][0].replace(" ", "T")
                cursor = j + 1
                break
    return cursor


def _read_runs(data: bytes, history: bytes | None) -> list[tuple[int, str, int, list[_Block]]]:
    """(start line, start time, last line, blocks) of every run, inputs joined and timed."""
    starts = session_starts(data) or [(0, "")]
    total = data.count(b"\n") + 1
    typed = input_history(history) if history else []
    cursor = 0
    out = []
    for n, (line_no, started) in enumerate(starts, 1):
        last = starts[n][0] - 1 if n < len(starts) else total
        blocks = _blocks(data, line_no + 1, last)
        _join_inputs(blocks)
        if typed:
            cursor = _stamp_inputs(blocks, typed, cursor)
        out.append((line_no, started, last, blocks))
    return out


def _count(value: str, k: str) -> tuple[int, bool]:
    number = float(value.replace(",", ""))
    return (int(round(number * 1000)), True) if k else (int(number), False)


def _usage(text: str) -> tuple[Usage | None, bool]:
    """Usage from a ``Tokens: 10,332 sent, 439 received. Cost: $0.04 message`` line."""
    counts: dict[str, int] = {}
    rounded = False
    for value, k, what in _TOKENS.findall(text):
        counts[what], r = _count(value, k)
        rounded = rounded or r
    if "sent" not in counts and "received" not in counts:
        return None, False
    cost = _COST.search(text)
    hit, write = counts.get("cache hit", 0), counts.get("cache write", 0)
    sent = counts.get("sent", 0)
    return Usage(input=max(sent - hit - write, 0), output=counts.get("received", 0),
                 cache_read=hit, cache_write=write, total_tokens=sent + counts.get("received", 0),
                 cost_total=float(cost.group(1)) if cost else None), rounded


def _blocks(data: bytes, first: int, last: int) -> list[_Block]:
    """The blocks of the lines ``first..last`` (1-based, inclusive).

    Aider writes each input as ``####`` lines with nothing between them (a blank line of the
    input as a bare ``####``), so a blank line ends a user block; a reply keeps its blank
    lines; ``>`` lines separated by blank lines are separate notices.
    """
    out: list[_Block] = []
    for line_no, start, stop in iter_lines(data):
        if line_no < first:
            continue
        if line_no > last:
            break
        raw = data[start:stop].decode("utf-8", "replace")
        if raw.startswith("#### ") or raw.rstrip() == "####":
            kind, text = "user", raw[5:].rstrip()
        elif raw.startswith(">"):
            kind, text = "notice", raw[2:].rstrip() if raw.startswith("> ") else raw[1:].strip()
        elif not raw.strip():
            if out and out[-1].kind == "reply":
                out[-1].lines.append("")
            elif out and not out[-1].kind.endswith("/closed"):
                out[-1].kind += "/closed"
            continue
        else:
            kind, text = "reply", raw
        if out and out[-1].kind == kind:
            out[-1].lines.append(text)
            out[-1].end = stop
        else:
            out.append(_Block(kind, line_no, start, stop, [text]))
    for b in out:
        b.kind = b.kind.removesuffix("/closed")
    return out


def _session(chain: Chain, blocks: list[_Block], n: int, first: int, started: str,
             whole: bool, line_start: int) -> str | None:
    """Add the entries of run ``n`` (its blocks); returns its model."""
    model: str | None = None
    stamp = started.replace(" ", "T") if started else None
    if whole:
        chain.add("reset", f"run{n}", line=first, offset=line_start, timestamp=stamp,
                  reason="new", extra={"run": n, "started_at": started})
    last_reply: int | None = None
    for k, b in enumerate(blocks):
        eid = f"r{n}.{k}"
        span: dict[str, Any] = {"line": b.line, "offset": b.offset, "length": b.end - b.offset,
                                "timestamp": b.stamp}
        text = "\n".join(b.lines).strip("\n")
        if b.kind == "user":
            command = text.split(None, 1)[0] if text.startswith("/") else None
            if command in _RESETS:
                chain.add("reset", eid, reason="clear", extra={"command": command}, **span)
                last_reply = None
            elif command is not None and not text.startswith(_PASS_ON):
                chain.add("command", eid, extra={"command": command, "text": text}, **span)
            else:
                body = text.split(None, 1)[1] if command is not None and " " in text else text
                chain.add("message", eid, message=text_message("user", body), **span)
                last_reply = None
        elif b.kind == "reply":
            chain.add("message", eid, message=Message(
                "assistant", (TextBlock(text),), model=model, stop_reason="stop"), **span)
            last_reply = len(chain.entries) - 1
        else:
            extra: dict[str, Any] = {"text": text}
            m = _MODEL.search(text)
            if m:
                model = m.group(1)
            if any(e in text for e in _ERRORS):
                extra["error"] = True
            usage, rounded = _usage(text) if "Tokens:" in text else (None, False)
            if usage is not None and last_reply is not None:
                chain.update_message(last_reply, usage=usage)
                if rounded:
                    entry = chain.entries[last_reply]
                    chain.update(last_reply, extra=freeze({**entry.extra,
                                                           "usage_rounded": True}))
                last_reply = None
            chain.add("notice", eid, extra=extra, **span)
    return model


def _history_beside(path: Path) -> bytes | None:
    try:
        return (path.parent / ".aider.input.history").read_bytes()
    except OSError:
        return None


def parse(data: bytes, path: Path, *, on_progress: Callable[[int, int], None] | None = None,
          cancel: Callable[[], bool] | None = None, session: str | None = None) -> ParsedFile:
    """Read an Aider history: every run, or run ``session`` (1-based) alone."""
    path = Path(path)
    diags: list[Diagnostic] = []
    if not session_starts(data):
        diags.append(Diagnostic(str(path), 1, "no '# aider chat started at' line; the whole "
                                "file is read as one run", "warning"))
    history = _history_beside(path)
    all_runs = _read_runs(data, history)
    offsets = {line_no: start for line_no, start, _ in iter_lines(data)}
    chosen = list(enumerate(all_runs, 1))
    if session is not None:
        if not session.isdigit() or not 1 <= int(session) <= len(all_runs):
            raise LoadError(path / session, f"no run {session!r} in this Aider history "
                            f"(it holds {len(all_runs)}, numbered from 1)")
        chosen = [chosen[int(session) - 1]]
    chain = Chain(path, "aider-md")
    models: list[str] = []
    for n, (line_no, started, _last, blocks) in chosen:
        model = _session(chain, blocks, n, line_no, started, session is None,
                         offsets.get(line_no, 0))
        if model:
            models.append(model)
    if on_progress is not None:
        on_progress(len(data), len(data))
    first_line, first_start = chosen[0][1][0], chosen[0][1][1]
    header = SessionHeader(
        id=f"{path.parent.name or 'aider'}:{session or 'all'}", version=0,
        timestamp=first_start.replace(" ", "T") if first_start else None,
        cwd=str(path.parent), model_id=models[0] if models else None, line=first_line,
        extra=freeze({"agent": "aider", "runs": len(all_runs), "input_history": bool(history),
                      **({"run": int(session)} if session is not None else {})}))
    stamped = any(e.timestamp for e in chain.entries if e.role == "user")
    return chain.parsed(header, STAMPED_GAPS if stamped else GAPS, diags)
