"""The bookkeeping every adapter of a flat message list repeats, done once.

Most agents store a session as a plain sequence of messages (or events) with no parent
links. ``Chain`` turns each record into entries hanging off the previous one (a linear
path, leaf = last entry), keeps every entry's line and byte span, collects diagnostics
naming file and line, and hands back the ``ParsedFile``. The time helpers turn the epoch
numbers these formats use (milliseconds, or seconds in the Go agents' databases) into the
ISO strings entries carry; a missing time stays None, never "now".
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from types import MappingProxyType
from typing import Any
from urllib.parse import unquote

import orjson

from sessionlens.engine.model import (
    Diagnostic,
    Entry,
    Format,
    FormatGaps,
    Message,
    SessionHeader,
    TextBlock,
)

from . import ParsedFile

__all__ = [
    "Chain", "arguments_of", "as_dict", "as_list", "as_str", "epoch_ms", "freeze", "iso_from_ms",
    "json_text", "path_of_uri", "text_message",
]

#: Epoch values below this are seconds, not milliseconds (2001-09-09 in ms, year 5138 in s).
_SECONDS_BELOW = 100_000_000_000


def as_dict(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else an empty one (files are not trusted)."""
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    """``value`` when it is a JSON array, else an empty one."""
    return value if isinstance(value, list) else []


def as_str(value: Any) -> str | None:
    """``value`` when it is a non-empty string, else None."""
    return value if isinstance(value, str) and value else None


def freeze(extra: Mapping[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType(dict(extra))


def epoch_ms(value: Any) -> int | None:
    """Epoch milliseconds from a number in seconds or milliseconds (None if not a number)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        return None
    return int(value * 1000) if value < _SECONDS_BELOW else int(value)


def iso_from_ms(ms: int | None) -> str | None:
    """``2026-04-25T12:48:44.969Z`` for epoch milliseconds (None stays None)."""
    if ms is None:
        return None
    try:
        stamp = datetime.fromtimestamp(ms / 1000, UTC)
    except (OverflowError, OSError, ValueError):
        return None
    return stamp.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def arguments_of(raw: Any) -> tuple[Any, str | None]:
    """Tool-call arguments as an object, plus the raw text when it is not JSON (kept, as
    pi keeps ``partialJson``); a missing value is ``{}``."""
    if raw is None or raw == "":
        return {}, None
    if not isinstance(raw, str):
        return raw, None
    try:
        return orjson.loads(raw), None
    except orjson.JSONDecodeError:
        return raw, raw


def json_text(value: Any) -> str:
    """Compact JSON of a value that is not text (tool output objects, arguments)."""
    if isinstance(value, str):
        return value
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return str(value)


def path_of_uri(uri: Any) -> str | None:
    """The path of a ``file://`` URI (percent-escapes decoded), or the string as it is."""
    if not isinstance(uri, str) or not uri:
        return None
    if not uri.startswith("file://"):
        return uri
    path = unquote(uri.removeprefix("file://"))
    if len(path) > 2 and path[0] == "/" and path[2] == ":":  # file:///c:/... on Windows
        path = path[1:]
    return path


def text_message(role: str, text: str, ms: int | None = None, **fields: Any) -> Message:
    """A message whose content is one text block (empty text gives no block)."""
    return Message(role, (TextBlock(text),) if text else (), timestamp_ms=ms, **fields)


class Chain:
    """Entries of one session in order, each the child of the one before."""

    def __init__(self, path: Path | str, fmt: Format) -> None:
        self.path = Path(path)
        self.spath = str(path)
        self.format = fmt
        self.entries: list[Entry] = []
        self.diags: list[Diagnostic] = []
        self.prev: str | None = None
        self._ids: set[str] = set()

    def unique(self, wanted: str) -> str:
        """``wanted``, or ``wanted~2``, ``~3``... when an earlier entry took it."""
        eid, n = wanted, 1
        while eid in self._ids:
            n += 1
            eid = f"{wanted}~{n}"
        return eid

    def add(self, etype: str, eid: str, *, line: int, offset: int = 0, length: int = 0,
            timestamp: str | None = None, parent: str | None | object = ...,
            extra: Mapping[str, Any] | None = None, moves_leaf: bool = True,
            **fields: Any) -> Entry:
        """Append an entry; its parent is the previous entry unless ``parent`` is given.

        ``moves_leaf=False`` adds it beside the path (``append_mode="side"``): shown in the
        timeline, never on the active path or in the context.
        """
        eid = self.unique(eid)
        entry = Entry(type=etype, id=eid,
                      parent_id=self.prev if parent is ... else parent,  # type: ignore[arg-type]
                      timestamp=timestamp, line=line, offset=offset, length=length,
                      extra=freeze(extra or {}),
                      append_mode=None if moves_leaf else "side", **fields)
        self.entries.append(entry)
        self._ids.add(eid)
        if moves_leaf:
            self.prev = eid
        return entry

    def update(self, index: int, **changes: Any) -> None:
        self.entries[index] = dataclasses.replace(self.entries[index], **changes)

    def update_message(self, index: int, **changes: Any) -> None:
        entry = self.entries[index]
        assert entry.message is not None
        self.update(index, message=dataclasses.replace(entry.message, **changes))

    def error(self, line: int | None, reason: str) -> None:
        self.diags.append(Diagnostic(self.spath, line, reason))

    def warn(self, line: int | None, reason: str) -> None:
        self.diags.append(Diagnostic(self.spath, line, reason, "warning"))

    def parsed(self, header: SessionHeader | None, gaps: FormatGaps,
               diags: list[Diagnostic] | None = None) -> ParsedFile:
        """The result, with ``diags`` (those found before the chain existed) first."""
        return ParsedFile(self.format, header, tuple(self.entries),
                          tuple((diags or []) + self.diags), gaps)
