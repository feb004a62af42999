"""The specifics a summary must not lose: identifiers, paths, commands, errors, numbers.

Two extractions live here. ``extract_opaque_identifiers`` reproduces OpenClaw's safeguard
audit (transcript-format.md §3.6) so that SessionLens fails exactly the summaries OpenClaw
would fail. ``extract_identifiers`` is wider: it sorts every concrete entity of a span into
classes (paths, commands, error messages, numbers with units, ...) because users report
that compaction loses those first (users-and-peers.md §2C, §4 idea 2), and it remembers
which entries each came from so a dropped entity can be traced back.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

from sessionlens.engine.model import Entry, Message, TextBlock
from sessionlens.engine.secrets import find_secrets

__all__ = [
    "AUDIT_RECENT_MESSAGES",
    "IDENTIFIER_CLASSES",
    "OPENCLAW_MAX_IDENTIFIERS",
    "Identifier",
    "IdentifierClass",
    "entry_text",
    "extract_identifiers",
    "extract_opaque_identifiers",
    "identifier_key",
    "is_pure_hex",
    "summary_contains",
]

#: OpenClaw extracts the audited identifiers from this many of the last messages.
AUDIT_RECENT_MESSAGES = 10

IdentifierClass = Literal[
    "uuid", "hash", "url", "path", "host", "port", "number", "quantity", "command", "error",
]

#: Classes in the order reports list them.
IDENTIFIER_CLASSES: tuple[IdentifierClass, ...] = (
    "path", "command", "error", "url", "uuid", "hash", "host", "port", "quantity", "number",
)

#: OpenClaw keeps at most this many identifiers for its strict check.
OPENCLAW_MAX_IDENTIFIERS = 12

#: Tool names whose ``command`` argument is a shell command line.
_SHELL_TOOLS = frozenset({
    "bash", "exec", "shell", "sh", "run_command", "execute_command", "exec_command",
    "local_shell", "terminal", "run_shell_command", "run_terminal_cmd",
})

_COMMAND_MAX = 200
_ERROR_MAX = 160


@dataclass(frozen=True, slots=True)
class Identifier:
    """One entity of a span: its text as first written, its class, and where it occurs."""

    value: str
    cls: IdentifierClass
    #: Ids of the entries it was found in, in file order.
    entry_ids: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        """The comparison key (pure hex ignores case; commands/errors ignore spacing)."""
        return identifier_key(self.value, self.cls)


# --------------------------------------------------------------------------- OpenClaw-compatible

_OPENCLAW_PARTS = (
    r"[A-Fa-f0-9]{8,}",
    r"https?://\S+",
    r"/[\w.-]{2,}(?:/[\w.-]+)+",
    r"[A-Za-z]:\\[\w\\.-]+",
    r"[A-Za-z0-9._-]+\.[A-Za-z0-9._/-]+:\d{1,5}",
    r"\b\d{6,}\b",
)
_OPENCLAW_RE = re.compile("|".join(_OPENCLAW_PARTS), re.ASCII)
#: The same without host:port, whose backtracking is quadratic on long runs of word
#: characters; it can only match where a ':' is, so colon-free chunks skip it.
_OPENCLAW_NO_HOST_RE = re.compile("|".join(p for i, p in enumerate(_OPENCLAW_PARTS) if i != 4),
                                  re.ASCII)
_CHUNK = re.compile(r"\S+")
#: Full-width and CJK brackets, quotes and stops: a URL written in Chinese or Japanese
#: prose runs straight into them (``…config.git`）``), and no identifier ends with one.
_WIDE_OPEN = "（［｛「『【〔〈《“‘"
_WIDE_CLOSE = "）］｝」』】〕〉》”’，。、；：！？…"
_LEAD_TRIM = re.compile(rf"^[(\"'`\[{{<{_WIDE_OPEN}]+")
_TAIL_TRIM = re.compile(rf"[)\]\"'`,;:.!?<>{_WIDE_CLOSE}]+$")
_PURE_HEX = re.compile(r"[A-Fa-f0-9]{8,}", re.ASCII)


def is_pure_hex(value: str) -> bool:
    """True for a run of 8+ hex digits (matched case-insensitively everywhere)."""
    return _PURE_HEX.fullmatch(value) is not None


def _trim(value: str) -> str:
    return _TAIL_TRIM.sub("", _LEAD_TRIM.sub("", value.strip()))


def blank_secrets(text: str) -> str:
    """``text`` with every secret turned to spaces: a key (or a piece of one, like the
    numbers inside a Slack token) is never an identifier a summary must keep, since the
    summarizer only ever sees its placeholder."""
    found = find_secrets(text)
    if not found:
        return text
    out, pos = [], 0
    for f in found:
        out.append(text[pos:f.start])
        out.append(" " * (f.end - f.start))
        pos = f.end
    out.append(text[pos:])
    return "".join(out)


def extract_opaque_identifiers(text: str, limit: int = OPENCLAW_MAX_IDENTIFIERS) -> tuple[str, ...]:
    """OpenClaw's identifier extraction: the strict audit requires every one of these.

    Matches are trimmed of leading brackets/quotes and trailing punctuation, pure hex is
    upper-cased, values under 4 characters are dropped, duplicates removed, first ``limit`` kept.
    """
    seen: dict[str, None] = {}
    text = blank_secrets(text)
    # No alternative can match whitespace, so scanning chunk by chunk finds the same matches.
    for chunk in _CHUNK.finditer(text):
        word = chunk.group(0)
        pattern = _OPENCLAW_RE if ":" in word else _OPENCLAW_NO_HOST_RE
        for match in pattern.finditer(word):
            value = _trim(match.group(0))
            if is_pure_hex(value):
                value = value.upper()
            if len(value) >= 4:
                seen.setdefault(value, None)
                if len(seen) >= limit:
                    return tuple(seen)
    return tuple(seen)


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
_ERROR_STRONG = re.compile(r"\b[A-Za-z_.]*(?:Error|Exception)\b|\b(?:error|fatal|panic)(?:\[\w+\])?:", re.I)
_ERROR_HINT = re.compile(
    r"error|exception|failed|failure|fatal|cannot|can't|could not|not found|denied|invalid|"
    r"traceback|refused|timed out|unable|no such", re.I)


def _classify(value: str, cls: IdentifierClass) -> IdentifierClass | None:
    """Second look at a match: file:line is a path; base64-like runs are not paths."""
    if cls == "host":
        name = value.rsplit(":", 1)[0]
        if name.rsplit(".", 1)[-1].lower() in _FILE_EXTS:
            return "path"
    if cls == "path" and any(len(seg) > 64 for seg in re.split(r"[/\\]", value)):
        return None
    return cls


def identifier_key(value: str, cls: str) -> str:
    """How two spellings of one entity compare equal."""
    if cls in ("hash", "uuid") or is_pure_hex(value):
        return value.upper()
    if cls in ("command", "quantity"):
        return " ".join(value.split())
    if cls == "error":
        return " ".join(value.split()).casefold()
    return value


def _text_entities(text: str) -> Iterator[tuple[int, str, IdentifierClass]]:
    """Every free-text entity as (position, value, class); earlier classes mask later ones."""
    taken: list[tuple[int, int]] = []
    for cls, pattern in _TEXT_PATTERNS:
        for match in pattern.finditer(text):
            start, end = match.span()
            if any(start < t_end and t_start < end for t_start, t_end in taken):
                continue
            value = _trim(match.group(0)) if cls in ("url", "path", "host") else match.group(0)
            if cls == "path":
                value = value.lstrip("@")
            kind = _classify(value, cls)
            if kind is None or (len(value) < 4 and kind not in ("quantity", "port")):
                continue
            taken.append((start, end))
            yield start, value, kind


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


def _error_line(text: str, cap: int) -> str:
    """The line that says what went wrong (not a banner such as ``> pkg@1.0 check``)."""
    lines = [ln for ln in text.splitlines()[:40] if ln.strip()]
    for hint in (_ERROR_STRONG, _ERROR_HINT):
        for line in lines:
            if hint.search(line):
                return _cap(line, cap)
    return _cap(lines[0], cap) if lines else ""


def _commands(msg: Message) -> Iterator[str]:
    if msg.role == "bashExecution" and msg.command:
        yield msg.command
    for call in msg.tool_calls:
        if call.name.lower() in _SHELL_TOOLS and isinstance(call.arguments, dict):
            cmd = call.arguments.get("command", call.arguments.get("cmd"))
            if isinstance(cmd, list):
                cmd = " ".join(str(c) for c in cmd)
            if isinstance(cmd, str):
                yield cmd


def _errors(msg: Message) -> Iterator[str]:
    if msg.role == "toolResult" and msg.is_error:
        yield msg.text
    if msg.stop_reason == "error" and msg.error_message:
        yield msg.error_message


def _entry_entities(entry: Entry) -> Iterator[tuple[str, IdentifierClass]]:
    msg = entry.message
    if msg is not None:
        for cmd in _commands(msg):
            line = _first_line(cmd, _COMMAND_MAX)
            if len(line) >= 2:
                yield line, "command"
        for err in _errors(msg):
            line = _error_line(err, _ERROR_MAX)
            if len(line) >= 4:
                yield line, "error"
    for _pos, value, cls in sorted(_text_entities(entry_text(entry))):
        yield value, cls


def extract_identifiers(entries: Iterable[Entry]) -> tuple[Identifier, ...]:
    """Every entity of the entries, deduplicated per class, in order of first appearance."""
    order: dict[tuple[str, str], str] = {}
    where: dict[tuple[str, str], list[str]] = {}
    classes: dict[tuple[str, str], IdentifierClass] = {}
    for entry in entries:
        for value, cls in _entry_entities(entry):
            k = (cls, identifier_key(value, cls))
            if k not in order:
                order[k] = value
                where[k] = []
                classes[k] = cls
            ids = where[k]
            if not ids or ids[-1] != entry.id:
                ids.append(entry.id)
    return tuple(Identifier(order[k], classes[k], tuple(where[k])) for k in order)


# --------------------------------------------------------------------------- matching

_WS = re.compile(r"\s+")
_QTY = re.compile(r"(\d+(?:[.,]\d+)?)\s?(.*)", re.S)


def _collapse(text: str) -> str:
    return _WS.sub(" ", text)


def summary_contains(summary: str, value: str, cls: str | None = None) -> bool:
    """Whether the summary carries this entity literally (OpenClaw rule plus class tolerances).

    Pure hex ignores case; commands ignore runs of whitespace; error messages also ignore
    case; a quantity may be written with or without a space before its unit.
    """
    if not value:
        return True
    if is_pure_hex(value) or cls in ("hash", "uuid"):
        return value.upper() in summary.upper()
    if cls == "command":
        return _collapse(value) in _collapse(summary)
    if cls == "error":
        return _collapse(value).casefold() in _collapse(summary).casefold()
    if cls == "quantity":
        m = _QTY.fullmatch(value.strip())
        if m:
            pattern = rf"(?<![\d.,]){re.escape(m.group(1))}\s?{re.escape(m.group(2).strip())}"
            return re.search(pattern, summary) is not None
    return value in summary
