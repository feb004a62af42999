"""Reading only the lines an agent appended, into entries of the transcript already loaded.

For pi / OpenClaw files the appended lines are parsed by the same reader as a whole file
(``load.formats.pi.parse_lines``), with the file's header line in front so versions and ids
come out as a full load would give them, and with the lines' real numbers and offsets. An
append is *linear* when each new entry hangs off the one before it, starting at the loaded
leaf: that is the case the live numbers can follow without a reload. Anything else (a branch,
a compaction, a format whose entries depend on what came before) asks for a full reload.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from sessionlens.engine.load.formats.jsonl import RawLine, iter_raw_lines
from sessionlens.engine.load.formats.pi import parse_lines
from sessionlens.engine.model import Diagnostic, Entry, Transcript

from .tail import TailChange

__all__ = ["Appended", "LINEAR_FORMATS", "read_appended"]

#: Formats whose appended lines can be read without the rest of the file.
LINEAR_FORMATS = frozenset({"openclaw-v3", "pi-v2"})


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
    parent = transcript.leaf_id if leaf_id is None else leaf_id
    linear = True
    for entry in parsed.entries:
        if entry.type == "compaction" or entry.id in transcript.index or entry.id in seen or (
                entry.parent_id != parent):
            linear = False
            break
        parent = entry.id
    return Appended(parsed.entries, parsed.diagnostics, linear)
