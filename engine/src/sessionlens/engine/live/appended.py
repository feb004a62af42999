"""Reading only the lines an agent appended, into entries of the transcript already loaded.

For pi / OpenClaw files the appended lines are parsed by the same reader as a whole file
(``agents.pi.parse.parse_lines``), with the file's header line in front so versions and ids
come out as a full load would give them, and with the lines' real numbers and offsets. An
append is *linear* when each new entry hangs off the one before it, starting at the loaded
leaf: that is the case the live numbers can follow without a reload. Anything else (a branch,
a compaction, a format whose entries depend on what came before) asks for a full reload.
Rows appended to OpenClaw's SQLite store are read the same way (``read_store_appended``):
the session's header row in front, each row a line numbered ``seq`` + 1, as the store
reader gives them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from sessionlens.engine.agents.pi.parse import parse_lines
from sessionlens.engine.load.formats.jsonl import RawLine, iter_raw_lines
from sessionlens.engine.model import Diagnostic, Entry, Transcript

from .store_tail import StoreChange
from .tail import TailChange

__all__ = ["Appended", "LINEAR_FORMATS", "read_appended", "read_store_appended"]

#: Formats whose appended lines can be read without the rest of the file.
LINEAR_FORMATS = frozenset({"openclaw-v3", "pi-v2"})
#: The store's format (its rows are pi-shaped entries, one per row).
STORE_FORMAT = "openclaw-sqlite"


@dataclass(frozen=True, slots=True)
class Appended:
    """The entries of an append; ``linear`` when they continue the loaded active path."""

    entries: tuple[Entry, ...]
    diagnostics: tuple[Diagnostic, ...]
    linear: bool


def _header_line(path: Path) -> RawLine | None:
    with open(path, "rb") as fh:
        head = fh.readline(1 << 20)
    if not head.endswith(b"\n"):
        return None
    stop = len(head) - (2 if head.endswith(b"\r\n") else 1)
    return 1, 0, stop, head[:stop], True


def _shifted(change: TailChange) -> Iterator[RawLine]:
    base_line, base_offset = change.first_line - 1, change.offset
    for line_no, start, stop, raw, ended in iter_raw_lines(change.data):
        yield line_no + base_line, start + base_offset, stop + base_offset, raw, ended


def read_appended(transcript: Transcript, change: TailChange, *, leaf_id: str | None = None,
                  seen: frozenset[str] | set[str] = frozenset()) -> Appended | None:
    """The appended entries, or None when this format must be reloaded whole. ``leaf_id`` is
    where the path ends now (default: the transcript's leaf); ``seen`` holds the ids already
    appended since the transcript was loaded."""
    if transcript.format not in LINEAR_FORMATS or change.kind != "appended":
        return None
    header = _header_line(transcript.path)
    if header is None:
        return None
    parsed = parse_lines(iter([header, *_shifted(change)]), change.offset + len(change.data),
                         transcript.path)
    return _linear(transcript, parsed.entries, parsed.diagnostics, leaf_id, seen)


def _linear(transcript: Transcript, entries: tuple[Entry, ...],
            diagnostics: tuple[Diagnostic, ...], leaf_id: str | None,
            seen: frozenset[str] | set[str]) -> Appended:
    parent = transcript.leaf_id if leaf_id is None else leaf_id
    linear = True
    for entry in entries:
        if entry.type == "compaction" or entry.id in transcript.index or entry.id in seen or (
                entry.parent_id != parent):
            linear = False
            break
        parent = entry.id
    return Appended(entries, diagnostics, linear)


def read_store_appended(transcript: Transcript, change: StoreChange, *,
                        leaf_id: str | None = None,
                        seen: frozenset[str] | set[str] = frozenset()) -> Appended | None:
    """``read_appended`` for rows of OpenClaw's store: None unless ``change`` appended rows
    to a store session. Entries carry ``offset`` = seq and ``length`` = JSON bytes, as a
    full load of the store gives them."""
    if transcript.format != STORE_FORMAT or change.kind != "appended":
        return None
    head: list[RawLine] = [(1, 0, len(change.header), change.header, True)] \
        if change.header else []
    lines = head + [(seq + 1, 0, len(data), data, True) for seq, data in change.rows]
    parsed = parse_lines(iter(lines), sum(len(d) for _, d in change.rows), transcript.path)
    size = {seq + 1: (seq, len(data)) for seq, data in change.rows}
    entries = tuple(dataclasses.replace(e, offset=size[e.line][0], length=size[e.line][1])
                    if e.line in size else e for e in parsed.entries)
    return _linear(transcript, entries, change.diagnostics + parsed.diagnostics, leaf_id, seen)
