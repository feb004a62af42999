"""The specifics a summary must not lose: identifiers, paths, commands, errors, numbers.

Two extractions are offered here. ``extract_opaque_identifiers`` (in ``opaque``) reproduces
OpenClaw's safeguard audit (transcript-format.md §3.6) so that SessionLens fails exactly the
summaries OpenClaw would fail. ``extract_identifiers`` is wider: it sorts every concrete entity of a span into
classes (paths, commands, error messages, numbers with units, ...) because users report
that compaction loses those first (users-and-peers.md §2C, §4 idea 2), and it remembers
which entries each came from so a dropped entity can be traced back.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

from sessionlens.engine.model import Entry, Message, TextBlock, ToolCallBlock

from .error_lines import exit_code_pattern, find_errors, generic_error_body, message_errors
from .measures import meaning_in_line, measured_subject
from .opaque import (
    AUDIT_RECENT_MESSAGES,
    OPENCLAW_MAX_IDENTIFIERS,
    extract_opaque_identifiers,
    is_pure_hex,
    trim_identifier,
)

__all__ = [
    "AUDIT_RECENT_MESSAGES",
    "IDENTIFIER_CLASSES",
    "OPENCLAW_MAX_IDENTIFIERS",
    "Identifier",
    "IdentifierClass",
    "entry_text",
    "extract_identifiers",
    "classify_value",
    "extract_opaque_identifiers",
    "identifier_key",
    "is_pure_hex",
    "summary_contains",
]


IdentifierClass = Literal[
    "uuid", "hash", "url", "path", "host", "port", "number", "quantity", "command", "error",
]

#: Classes in the order reports list them.
IDENTIFIER_CLASSES: tuple[IdentifierClass, ...] = (
    "path", "command", "error", "url", "uuid", "hash", "host", "port", "quantity", "number",
)


#: Tool names whose ``command`` argument is a shell command line.
_SHELL_TOOLS = frozenset({
    "bash", "exec", "shell", "sh", "run_command", "execute_command", "exec_command",
    "local_shell", "terminal", "run_shell_command", "run_terminal_cmd",
})

_COMMAND_MAX = 200


@dataclass(frozen=True, slots=True)
class Identifier:
    """One entity of a span: its text as first written, its class, and where it occurs."""

    value: str
    cls: IdentifierClass
    #: Ids of the entries it was found in, in file order.
    entry_ids: tuple[str, ...] = ()
    #: The words around it as first written, when the value means nothing alone: a
    #: quantity's subject ("p99 latency is 175 ms"), an exit code's command.
    context: str = ""
    #: Lower-cased words a summary must hold on the same line as the value for it to count
    #: as kept (a quantity's subject, an exit code's program); empty: the value alone.
    meaning: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        """The comparison key (pure hex ignores case; commands/errors ignore spacing)."""
        return identifier_key(self.value, self.cls, self.meaning)

    @property
    def display(self) -> str:
        """How a report names it: with its context when it has one."""
        return self.context or self.value


# --------------------------------------------------------------------------- rich classes

_HEX = "[0-9A-Fa-f]"
_UNITS_SPACED = (
    r"ms|sec|secs|seconds?|minutes?|mins?|hours?|hrs?|days?|µs|us|ns|"
    r"bytes|[KMGT]i?B|kB|tokens?|chars|characters|lines|MHz|GHz|fps|rps|req/s"
)
_UNITS_TIGHT = _UNITS_SPACED + r"|[smhdkKMBx]"

#: Free-text classes, tried in this order; each match masks its span for later classes.
_TEXT_PATTERNS: tuple[tuple[IdentifierClass, re.Pattern[str]], ...] = (
    ("url", re.compile(r"\b(?:https?|wss?|ftp)://[^\s<>\"'`\]\[)(]+", re.ASCII)),
    ("uuid", re.compile(
        rf"(?<![0-9A-Za-z-]){_HEX}{{8}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{12}}(?![0-9A-Za-z-])")),
    ("path", re.compile(r"(?<![\w:\\])[A-Za-z]:\\[\w\\.-]+", re.ASCII)),
    ("host", re.compile(
        r"(?<![\w.-])(?:localhost|\d{1,3}(?:\.\d{1,3}){3}|[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*\.[A-Za-z]{2,})"
        r":\d{2,5}(?![\d\w])", re.ASCII)),
    ("path", re.compile(r"(?<![\w./~-])(?:~|\.{1,2})?/[\w.@+-]{2,}(?:/[\w.@+-]+)+/?", re.ASCII)),
    ("path", re.compile(
        r"(?<![\w./~-])(?:[\w.@+-]+/)+[\w@+-][\w.@+-]*\.(?:[A-Za-z][A-Za-z0-9]{1,7}|[ch])(?![\w/])",
        re.ASCII)),
    ("port", re.compile(r"(?<![\w.])\d{1,5}/(?:tcp|udp)\b", re.ASCII)),
    ("port", re.compile(r"(?i)(?<=\bport )\d{2,5}\b|(?<=\bport=)\d{2,5}\b|(?<=\bport: )\d{2,5}\b")),
    ("hash", re.compile(r"(?<![\w-])(?=[0-9A-Fa-f]*[A-Fa-f])(?=[0-9A-Fa-f]*\d)[0-9A-Fa-f]{8,}(?![\w-])")),
    ("quantity", re.compile(
        rf"(?<![\w.,])\d+(?:[.,]\d+)?(?:\s(?:{_UNITS_SPACED})\b|(?:{_UNITS_TIGHT})\b|\s?%)",
        re.ASCII)),
    ("number", re.compile(r"(?<![\w.,])\d{6,}(?![\w]|[.,]\d)", re.ASCII)),
)


#: Endings that make ``name.ext:123`` a file location rather than a host and port.
_FILE_EXTS = frozenset(
    "ts tsx js jsx mjs cjs py pyi rs go java kt c h cc cpp hpp cs rb php swift m md txt json "
    "jsonl yaml yml toml ini cfg lock sh bash zsh ps1 css scss html vue svelte sql xml".split())


def _classify(value: str, cls: IdentifierClass) -> IdentifierClass | None:
    """Second look at a match: file:line is a path; base64-like runs are not paths."""
    if cls == "host":
        name = value.rsplit(":", 1)[0]
        if name.rsplit(".", 1)[-1].lower() in _FILE_EXTS:
            return "path"
    if cls == "path" and any(len(seg) > 64 for seg in re.split(r"[/\\]", value)):
        return None
    return cls


def _in_blob(text: str, start: int, end: int) -> bool:
    """A "number with unit" inside a long unbroken run (SVG path data, base64) is noise."""
    left = start
    while left > 0 and not text[left - 1].isspace() and start - left <= 24:
        left -= 1
    right = end
    while right < len(text) and not text[right].isspace() and right - end <= 24:
        right += 1
    return (start - left) + (right - end) > 24


def identifier_key(value: str, cls: str, meaning: tuple[str, ...] = ()) -> str:
    """How two spellings of one entity compare equal (a quantity or exit code measuring
    something else is another entity)."""
    suffix = "|" + " ".join(meaning) if meaning else ""
    if cls in ("hash", "uuid") or is_pure_hex(value):
        return value.upper()
    if cls in ("command", "quantity"):
        return " ".join(value.split()) + suffix
    if cls == "error":
        return " ".join(value.split()).casefold() + suffix
    return value


TextEntity = tuple[int, str, IdentifierClass, str, tuple[str, ...]]


def _text_entities(text: str) -> Iterator[TextEntity]:
    """Every free-text entity as (position, value, class, context, meaning); earlier classes
    mask later ones. Quantities carry what they measure (``measures``)."""
    starts: list[int] = []  # the spans taken so far, disjoint, sorted by start
    ends: list[int] = []
    for cls, pattern in _TEXT_PATTERNS:
        for match in pattern.finditer(text):
            start, end = match.span()
            at = bisect_left(starts, end)  # spans starting before this one ends...
            if at and ends[at - 1] > start:  # ...the last of which reaches into it
                continue
            value = trim_identifier(match.group(0)) if cls in ("url", "path", "host") else match.group(0)
            if cls == "path":
                value = value.lstrip("@")
            kind = _classify(value, cls)
            if kind is None or (len(value) < 4 and kind not in ("quantity", "port")):
                continue
            if kind == "quantity" and _in_blob(text, start, end):
                continue
            starts.insert(at, start)
            ends.insert(at, end)
            context, meaning = measured_subject(text, start, end) if kind == "quantity" \
                else ("", ())
            yield start, value, kind, context, meaning


def _strings(value: Any) -> Iterator[str]:
    """String leaves of a tool-call argument object (keys are not content)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _strings(item)


def _message_text(msg: Message) -> list[str]:
    parts = [b.text for b in msg.content if isinstance(b, TextBlock)]
    for call in msg.tool_calls:
        parts.extend(_strings(call.arguments))
    if msg.role == "bashExecution":
        parts.extend(p for p in (msg.command, msg.output) if p)
    if msg.error_message:
        parts.append(msg.error_message)
    return parts


def entry_text(entry: Entry) -> str:
    """The readable text of an entry that a summary could carry forward (no thinking, no images)."""
    parts: list[str] = []
    if entry.message is not None:
        parts.extend(_message_text(entry.message))
    if entry.type in ("custom_message",):
        parts.extend(b.text for b in entry.content if isinstance(b, TextBlock))
    if entry.type == "branch_summary" and entry.summary:
        parts.append(entry.summary)
    return "\n".join(parts)


def _cap(line: str, cap: int) -> str:
    line = " ".join(line.split())
    if len(line) > cap:
        cut = line.rfind(" ", 0, cap)
        line = line[: cut if cut > cap // 2 else cap]
    return line


def _first_line(text: str, cap: int) -> str:
    for line in text.splitlines():
        if line.strip():
            return _cap(line, cap)
    return ""


def _call_command(call: ToolCallBlock) -> str | None:
    """The shell command line of a shell tool call, else None."""
    if call.name.lower() not in _SHELL_TOOLS or not isinstance(call.arguments, dict):
        return None
    cmd = call.arguments.get("command", call.arguments.get("cmd"))
    if isinstance(cmd, list):
        cmd = " ".join(str(c) for c in cmd)
    return cmd if isinstance(cmd, str) else None


def _commands(msg: Message) -> Iterator[str]:
    if msg.role == "bashExecution" and msg.command:
        yield msg.command
    for call in msg.tool_calls:
        cmd = _call_command(call)
        if cmd is not None:
            yield cmd


EntityTuple = tuple[str, IdentifierClass, str, tuple[str, ...]]


def _entry_entities(entry: Entry, calls: dict[str, str]) -> Iterator[EntityTuple]:
    msg = entry.message
    if msg is not None:
        for cmd in _commands(msg):
            line = _first_line(cmd, _COMMAND_MAX)
            if len(line) >= 2:
                yield line, "command", "", ()
        for call in msg.tool_calls:  # so a result's exit code can name its command
            if (shell := _call_command(call)) is not None:
                calls[call.id] = shell
        command = calls.get(msg.tool_call_id or "") if msg.role == "toolResult" else None
        for value, context, meaning in message_errors(msg, command):
            yield value, "error", context, meaning
    for _pos, value, cls, context, meaning in sorted(_text_entities(entry_text(entry))):
        yield value, cls, context, meaning


def classify_value(value: str) -> IdentifierClass | None:
    """The class of a value that is one entity as a whole (a path, a URL, an error
    message, ...), else None (free text), so a search for it matches by that class's rule."""
    value = value.strip()
    found = [f for f in find_errors(value)]
    if len(found) == 1 and found[0].start == 0 and found[0].value == value:
        return "error"
    for _pos, entity, cls, _context, _meaning in _text_entities(value):
        if entity == value:
            return cls
    return None


def extract_identifiers(entries: Iterable[Entry]) -> tuple[Identifier, ...]:
    """Every entity of the entries, deduplicated per class, in order of first appearance."""
    order: dict[tuple[str, str], Identifier] = {}
    where: dict[tuple[str, str], list[str]] = {}
    calls: dict[str, str] = {}
    for entry in entries:
        for value, cls, context, meaning in _entry_entities(entry, calls):
            k = (cls, identifier_key(value, cls, meaning))
            if k not in order:
                order[k] = Identifier(value, cls, (), context, meaning)
                where[k] = []
            ids = where[k]
            if not ids or ids[-1] != entry.id:
                ids.append(entry.id)
    return tuple(Identifier(i.value, i.cls, tuple(where[k]), i.context, i.meaning)
                 for k, i in order.items())


# --------------------------------------------------------------------------- matching

_WS = re.compile(r"\s+")
_QTY = re.compile(r"(\d+(?:[.,]\d+)?)\s?(.*)", re.S)


def _collapse(text: str) -> str:
    return _WS.sub(" ", text)


def _positions(summary: str, value: str, cls: str | None) -> Iterator[int]:
    """Where the summary writes the value (start offsets), by the class's tolerance."""
    if is_pure_hex(value) or cls in ("hash", "uuid"):
        hay, needle = summary.upper(), value.upper()
    elif cls == "command":
        hay, needle = _collapse(summary), _collapse(value)
    elif cls == "error":
        m = _EXIT_VALUE.fullmatch(value)
        if m:
            yield from (x.start() for x in exit_code_pattern(int(m.group(1))).finditer(summary))
            return
        hay = _collapse(summary).casefold()
        needle = _collapse(value).casefold()
        if needle not in hay:  # ``error: could not compile`` kept as ``could not compile``
            body = generic_error_body(_collapse(value)).casefold()
            needle = body if len(body) >= 8 else needle
    elif cls == "quantity" and (m := _QTY.fullmatch(value.strip())):
        pattern = rf"(?<![\d.,]){re.escape(m.group(1))}\s?{re.escape(m.group(2).strip())}"
        yield from (x.start() for x in re.finditer(pattern, summary))
        return
    else:
        hay, needle = summary, value
    at = hay.find(needle)
    while at >= 0:
        yield at
        at = hay.find(needle, at + 1)


_EXIT_VALUE = re.compile(r"exit code (-?\d+)")


def summary_contains(summary: str, value: str, cls: str | None = None,
                     meaning: tuple[str, ...] = ()) -> bool:
    """Whether the summary carries this entity literally (OpenClaw rule plus class tolerances).

    Pure hex ignores case; commands ignore runs of whitespace; error messages also ignore
    case (and an ``error:`` prefix; an exit code may be spelled any usual way); a quantity
    may be written with or without a space before its unit. With ``meaning``, some line
    that holds the value must also hold those words ("175 ms" without "p99 latency" is lost).
    Positions in a whitespace-collapsed copy are only used when no meaning is asked for.
    """
    if not value:
        return True
    if not meaning:
        return next(_positions(summary, value, cls), None) is not None
    if cls in ("command", "error") and not _EXIT_VALUE.fullmatch(value):
        # collapsed positions do not map back to lines: check line by line instead
        return any(next(_positions(line, value, cls), None) is not None
                   and meaning_in_line(line, 0, meaning) for line in summary.splitlines())
    return any(meaning_in_line(summary, at, meaning) for at in _positions(summary, value, cls))
