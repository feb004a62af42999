"""The JSON-lines reading every format shares: split, decode, and explain bad lines.

One home for the per-line rules (DESIGN.md "Bad input") so OpenClaw / pi, Claude Code and
Codex files report the same problems in the same words: a blank line is skipped, a line that
is not JSON, not UTF-8, cut off at the end of the file or not a JSON object becomes a
Diagnostic naming its line, and the rest of the file still loads. A line whose only fault is
bad UTF-8 is still read (bad bytes as U+FFFD) with a warning. ``parse_with`` runs the
Claude Code and Codex adapters over that loop; pi's parser inlines it for speed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Protocol

import orjson

from sessionlens.engine.errors import LoadCancelled
from sessionlens.engine.model import Diagnostic

from . import ParsedFile
from .field_errors import read_guarded

__all__ = [
    "PROGRESS_STEP", "READ_BLOCK", "JsonLine", "LineReader", "LineView", "RawLine", "iter_file_lines",
    "iter_lines", "iter_objects", "iter_raw_lines", "parse_with", "recover_line", "usage_count",
]

_BOM = b"\xef\xbb\xbf"
#: Bytes between two progress reports (and cancel polls) of a line loop.
PROGRESS_STEP = 4 << 20


@dataclass(frozen=True, slots=True)
class JsonLine:
    """One readable line: its 1-based number, byte span and the decoded object."""

    line: int
    offset: int
    length: int
    obj: dict[str, Any]


#: No model has a window anywhere near this: a usage counter above it is a broken file
#: (or a hostile one), never a context size to show or plan with.
USAGE_MAX_TOKENS = 10_000_000


def usage_count(value: Any) -> int:
    """A usage counter as a file holds it: whole numbers from 0 to ``USAGE_MAX_TOKENS``
    (floats truncated); anything else (text, negative, NaN, infinite, absurd) counts 0."""
    if type(value) is int:
        return value if 0 <= value <= USAGE_MAX_TOKENS else 0
    if type(value) is float:
        return int(value) if 0.0 <= value <= USAGE_MAX_TOKENS else 0  # NaN fails both
    return 0


def usage_problem(value: Any) -> str | None:
    """Why ``value`` is not a usable usage counter (None when it is one, or absent)."""
    if value is None or (type(value) is int and 0 <= value <= USAGE_MAX_TOKENS):
        return None
    if type(value) is float:
        if value != value or value in (float("inf"), float("-inf")):
            return f"{value!r} is not a number of tokens"
        if 0.0 <= value <= USAGE_MAX_TOKENS:
            return None
    elif type(value) is not int:
        return f"should be a number, got {type(value).__name__}"
    if value < 0:
        return f"{value!r} is negative"
    return f"{value!r} is beyond any real context window (> {USAGE_MAX_TOKENS:,})"


#: One line: 1-based number, start and stop offsets in the file (stop before ``\r\n``), its
#: bytes, and whether a newline ended it (only a file's last line may lack one).
RawLine = tuple[int, int, int, bytes, bool]
#: The same from a streamed file: the bytes are a view into the block read (``bytes(raw)``
#: where a copy must outlive the next line).
LineView = tuple[int, int, int, "bytes | memoryview", bool]

#: Bytes read at a time when a file is streamed rather than read whole (bigger blocks were
#: slower: every fresh multi-MB buffer costs page faults).
READ_BLOCK = 1 << 20


def iter_raw_lines(data: bytes) -> Iterator[RawLine]:
    """Each line's number, span (without its ``\\r\\n`` / ``\\n``), bytes, and whether a newline
    ended it. ``line_no`` is 1-based; a UTF-8 BOM at the very start is left out of line 1."""
    pos = 3 if data.startswith(_BOM) else 0
    size = len(data)
    find = data.find
    line_no = 0
    while pos < size:
        line_no += 1
        nl = find(b"\n", pos)
        end = size if nl < 0 else nl
        stop = end - 1 if end > pos and data[end - 1] == 13 else end
        yield line_no, pos, stop, data[pos:stop], nl >= 0
        pos = end + 1


def iter_file_lines(fh: BinaryIO, *, on_block: Callable[[bytes], None] | None = None,
                    block_size: int | None = None) -> Iterator[LineView]:
    """The lines ``iter_raw_lines`` gives for the file's bytes, read a block at a time.

    Why: a 100 MB transcript never sits in memory whole next to the objects built from it
    (that copy was a third of a load's peak memory). ``on_block`` sees every block read, in
    order (the file's hash is taken from them). A line longer than a block doubles the next
    read, so even a single huge line is copied only a few times. Reads to the end of the
    file as it is while reading, like ``fh.read()``.
    """
    block = max(READ_BLOCK if block_size is None else block_size, 4)
    offset = 0  # file offset of buf[0]
    buf = b""
    pos = 0
    line_no = 0
    want = block
    first = True
    while True:
        chunk = fh.read(want)
        if chunk and on_block is not None:
            on_block(chunk)
        if first:
            first = False
            buf = chunk
            pos = 3 if buf.startswith(_BOM) else 0
        elif chunk:
            offset += pos
            buf = buf[pos:] + chunk
            pos = 0
        if not chunk:  # end of file: what is left is the last line, with no newline
            size = len(buf)
            if pos < size:
                stop = size - 1 if buf[size - 1] == 13 else size
                yield line_no + 1, offset + pos, offset + stop, buf[pos:stop], False
            return
        last_nl = buf.rfind(b"\n", pos)
        if last_nl < 0:  # no line ends in what was read: read more, twice as much
            want *= 2
            continue
        want = block
        # each complete line as a view into the block: no copy of its bytes (splitting the
        # block into bytes objects copied 100 MB per load and cost ~0.1 s of it)
        view = memoryview(buf)
        find = buf.find
        while pos <= last_nl:
            nl = find(b"\n", pos)
            line_no += 1
            stop = nl - 1 if nl > pos and buf[nl - 1] == 13 else nl
            yield line_no, offset + pos, offset + stop, view[pos:stop], True
            pos = nl + 1


def iter_lines(data: bytes) -> Iterator[tuple[int, int, int]]:
    """Yield ``(line_no, offset, end)`` for each line, without its ``\\r\\n`` / ``\\n``.

    ``line_no`` is 1-based; a UTF-8 BOM at the very start is left out of line 1.
    """
    for line_no, start, stop, _raw, _ended in iter_raw_lines(data):
        yield line_no, start, stop


def recover_line(raw: bytes, exc: Exception, line_no: int, spath: str,
                 diags: list[Diagnostic], *, last: bool) -> Any:
    """Explain why a line failed; a line whose only fault is bad UTF-8 still loads."""
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as uexc:
        text = raw.decode("utf-8", errors="replace")
        try:
            obj = orjson.loads(text)
        except orjson.JSONDecodeError:
            diags.append(Diagnostic(spath, line_no,
                                    f"not valid UTF-8 (byte {uexc.start}) and not valid JSON"))
            return None
        diags.append(Diagnostic(spath, line_no, f"not valid UTF-8 (byte {uexc.start}); "
                                "bad bytes read as U+FFFD", "warning"))
        return obj
    if last:
        diags.append(Diagnostic(spath, line_no,
                                f"truncated last line (no newline at end of file): {exc}"))
    else:
        diags.append(Diagnostic(spath, line_no, f"invalid JSON: {exc}"))
    return None


def iter_objects(data: bytes, path: Path | str, diags: list[Diagnostic], *,
                 on_progress: Callable[[int, int], None] | None = None,
                 cancel: Callable[[], bool] | None = None) -> Iterator[JsonLine]:
    """Yield every line that decodes to a JSON object; report the others into ``diags``.

    ``cancel`` is polled (and ``on_progress`` called) every few MB, so a huge file can be
    abandoned; cancelling raises ``LoadCancelled``.
    """
    spath = str(path)
    total = len(data)
    next_report = PROGRESS_STEP
    loads = orjson.loads
    for line_no, start, stop, raw, ended in iter_raw_lines(data):
        if start >= next_report:
            next_report = start + PROGRESS_STEP
            if cancel is not None and cancel():
                raise LoadCancelled(path, f"cancelled at byte {start} of {total}")
            if on_progress is not None:
                on_progress(start, total)
        if not raw.strip():
            continue
        try:
            obj = loads(raw)
        except orjson.JSONDecodeError as exc:
            obj = recover_line(raw, exc, line_no, spath, diags, last=not ended)
            if obj is None:
                continue
        if type(obj) is not dict:
            diags.append(Diagnostic(spath, line_no, f"JSON {type(obj).__name__} is not an object"))
            continue
        yield JsonLine(line_no, start, stop - start, obj)
    if on_progress is not None:
        on_progress(total, total)



class LineReader(Protocol):
    """One pass of a format adapter over a file: fed each typed object, then finished."""

    diags: list[Diagnostic]

    def line(self, jl: JsonLine, etype: str) -> None: ...

    def finish(self) -> ParsedFile: ...


def parse_with(reader: LineReader, data: bytes, path: Path | str, *,
               on_progress: Callable[[int, int], None] | None = None,
               cancel: Callable[[], bool] | None = None) -> ParsedFile:
    """Feed ``reader`` every object of the file with its string ``type``, then finish it.

    An object without a string ``type`` is reported (in the words pi's loop uses) and
    skipped, since no format can place it.
    """
    spath = str(path)
    for jl in iter_objects(data, path, reader.diags, on_progress=on_progress, cancel=cancel):
        etype = jl.obj.get("type")
        if isinstance(etype, str):
            read_guarded(reader.diags, spath, jl.line, reader.line, jl, etype)
        else:
            reader.diags.append(Diagnostic(spath, jl.line, "entry has no string 'type'; skipped"))
    return reader.finish()
