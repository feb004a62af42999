"""Aider chat histories (``<repo>/.aider.chat.history.md``, or ``$AIDER_CHAT_HISTORY_FILE``).

Aider appends every run to one Markdown file: ``# aider chat started at <time>``, then
``####`` lines (what the user typed; a long input spans several, with blank lines between),
``>`` lines (Aider's own output: version, model, "Tokens: ... sent, ... received", applied
edits, edit errors) and the model's reply as plain Markdown.

How a file of many runs maps to transcripts: each run is a session, opened alone as
``<file>/<n>`` (``n`` counts runs from 1, in file order; ``sessionlens sessions`` lists
them). The file itself opens every run in one transcript, each run starting with a ``reset``
entry (reason ``new``): Aider starts each run with an empty chat, so the context is the last
run's, and earlier runs stay readable above it. ``/clear`` and ``/reset`` empty the chat
too and are ``reset`` entries as well; other ``/commands`` are ``command`` entries (not sent
to the model); ``/ask``, ``/code`` and ``/architect`` send the rest of the line.

Aider records no ids, no per-message times (only when a run started), no tool calls and no
compaction (it summarizes old messages in memory, unrecorded). A "Tokens:" line is the
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
from .chain import Chain, freeze, text_message
from .jsonl import iter_lines

__all__ = ["START", "parse", "session_starts"]

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


@dataclass(slots=True)
class _Block:
    """A run of lines of one kind: ``user``, ``notice`` or ``reply``."""

    kind: str
    line: int
    offset: int
    end: int
    lines: list[str] = field(default_factory=list)


def session_starts(data: bytes) -> list[tuple[int, str]]:
    """(line number, start time) of every run, in file order (a cheap scan for listings)."""
    out = []
    for line_no, start, stop in iter_lines(data):
        if data.startswith(START.encode(), start):
            out.append((line_no, data[start + len(START):stop].decode("utf-8", "replace")
                        .strip()))
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
    """The blocks of the lines ``first..last`` (1-based, inclusive)."""
    out: list[_Block] = []
    blank_after_user: list[str] = []
    for line_no, start, stop in iter_lines(data):
        if line_no < first:
            continue
        if line_no > last:
            break
        raw = data[start:stop].decode("utf-8", "replace")
        if raw.startswith("#### ") or raw == "####":
            kind, text = "user", raw[5:]
        elif raw.startswith(">"):
            kind, text = "notice", raw[2:].rstrip() if raw.startswith("> ") else raw[1:].strip()
        elif not raw.strip():
            if out and out[-1].kind == "user":
                blank_after_user.append("")
                continue
            kind, text = ("reply" if out and out[-1].kind == "reply" else ""), ""
            if not kind:
                continue
        else:
            kind, text = "reply", raw
        if out and out[-1].kind == kind:
            if kind == "user" and blank_after_user:
                out[-1].lines.append("")
            out[-1].lines.append(text)
            out[-1].end = stop
        else:
            out.append(_Block(kind, line_no, start, stop, [text]))
        blank_after_user = []
    return out


def _session(chain: Chain, data: bytes, n: int, first: int, last: int, started: str,
             whole: bool, line_start: int) -> str | None:
    """Add the entries of run ``n`` (lines ``first..last``); returns its model."""
    model: str | None = None
    stamp = started.replace(" ", "T") if started else None
    if whole:
        chain.add("reset", f"run{n}", line=first, offset=line_start, timestamp=stamp,
                  reason="new", extra={"run": n, "started_at": started})
    last_reply: int | None = None
    for k, b in enumerate(_blocks(data, first + 1, last)):
        eid = f"r{n}.{k}"
        span: dict[str, Any] = {"line": b.line, "offset": b.offset, "length": b.end - b.offset}
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


def parse(data: bytes, path: Path, *, on_progress: Callable[[int, int], None] | None = None,
          cancel: Callable[[], bool] | None = None, session: str | None = None) -> ParsedFile:
    """Read an Aider history: every run, or run ``session`` (1-based) alone."""
    path = Path(path)
    diags: list[Diagnostic] = []
    starts = session_starts(data)
    total_lines = data.count(b"\n") + 1
    if not starts:
        diags.append(Diagnostic(str(path), 1, "no '# aider chat started at' line; the whole "
                                "file is read as one run", "warning"))
        starts = [(0, "")]
    offsets = {line_no: start for line_no, start, _ in iter_lines(data)
               if line_no in {s[0] for s in starts}}
    runs = list(enumerate(starts, 1))
    if session is not None:
        if not session.isdigit() or not 1 <= int(session) <= len(starts):
            raise LoadError(path / session, f"no run {session!r} in this Aider history "
                            f"(it holds {len(starts)}, numbered from 1)")
        runs = [runs[int(session) - 1]]
    chain = Chain(path, "aider-md")
    models: list[str] = []
    for n, (line_no, started) in runs:
        nxt = starts[n][0] - 1 if n < len(starts) else total_lines
        model = _session(chain, data, n, line_no, nxt, started, session is None,
                         offsets.get(line_no, 0))
        if model:
            models.append(model)
    if on_progress is not None:
        on_progress(len(data), len(data))
    first_start = runs[0][1][1]
    header = SessionHeader(
        id=f"{path.parent.name or 'aider'}:{session or 'all'}", version=0,
        timestamp=first_start.replace(" ", "T") if first_start else None,
        cwd=str(path.parent), model_id=models[0] if models else None, line=runs[0][1][0],
        extra=freeze({"agent": "aider", "runs": len(starts),
                      **({"run": int(session)} if session is not None else {})}))
    return chain.parsed(header, GAPS, diags)
