"""Single-document JSON transcripts read record by record, with each record's line and bytes.

Gemini CLI's older chats, Copilot's history-session-state, Cline's ``ui_messages.json``, Amp
threads and Continue sessions are one JSON document holding an array of messages. Decoding
the whole document at once would lose where each message sits, and one cut-off byte at the
end would lose everything. So the named top-level arrays are decoded element by element
(stdlib ``json``'s C scanner), each element becoming a ``Record`` with its 1-based line and
byte span (the raw-JSON view and diagnostics use them), and a document that breaks off keeps
every record before the break, with a Diagnostic naming the line where it broke.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sessionlens.engine.model import Diagnostic

__all__ = ["Document", "Record", "peek_document", "read_document"]

_BOM = b"\xef\xbb\xbf"
_WS = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()
#: What ``peek_document`` reports for a key whose value did not fit in the head.
UNREAD = object()


@dataclass(frozen=True, slots=True)
class Record:
    """One element of a top-level array: where it is, and its decoded value."""

    index: int
    line: int
    offset: int
    length: int
    value: Any


@dataclass(frozen=True, slots=True)
class Document:
    """A document read this way: its top-level fields and the records of its arrays.

    ``top`` holds every top-level field except the streamed arrays (None when the document
    is itself an array, whose records are under ``""``). ``complete`` is False when the
    document broke off or was malformed (a Diagnostic says where).
    """

    top: dict[str, Any] | None
    arrays: dict[str, list[Record]] = field(default_factory=dict)
    complete: bool = True


class _Positions:
    """Character index -> (line, byte offset), counted forward once over the text."""

    def __init__(self, text: str, base: int, exact: bool) -> None:
        self.text = text
        self.ascii = text.isascii()
        self.exact = exact
        self.base = base
        self.char = 0
        self.line = 1
        self.byte = base

    def at(self, pos: int) -> tuple[int, int]:
        if pos < self.char:  # never needed by the scanner, kept for safety
            self.char, self.line, self.byte = 0, 1, self.base
        chunk = self.text[self.char:pos]
        self.line += chunk.count("\n")
        self.byte += len(chunk) if self.ascii else len(chunk.encode("utf-8", "surrogatepass"))
        self.char = pos
        return self.line, self.byte


def _skip(text: str, i: int) -> int:
    m = _WS.match(text, i)
    return m.end() if m else i


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _decode(data: bytes, spath: str, diags: list[Diagnostic]) -> tuple[str, int, bool]:
    base = 3 if data.startswith(_BOM) else 0
    body = data[base:]
    try:
        return body.decode("utf-8"), base, True
    except UnicodeDecodeError as exc:
        diags.append(Diagnostic(spath, _line_of(body[:exc.start].decode("utf-8", "replace"),
                                                exc.start),
                                f"not valid UTF-8 (byte {exc.start + base}); bad bytes read "
                                "as U+FFFD and raw lines are not shown", "warning"))
        return body.decode("utf-8", "replace"), base, False


def _array(text: str, i: int, key: str, pos: _Positions, spath: str,
           diags: list[Diagnostic], out: list[Record]) -> tuple[int, bool]:
    """Decode the array starting at ``text[i] == "["``; returns (end, complete)."""
    where = f"'{key}'" if key else "the top-level array"
    i = _skip(text, i + 1)
    if text.startswith("]", i):
        return i + 1, True
    while True:
        start = i
        try:
            value, i = _DECODER.raw_decode(text, i)
        except json.JSONDecodeError as exc:
            diags.append(Diagnostic(
                spath, exc.lineno, f"{where} breaks off at record {len(out)} "
                f"({'the file ends there' if exc.pos >= len(text) else exc.msg}); the "
                f"{len(out)} record(s) before it are read"))
            return len(text), False
        line, offset = pos.at(start)
        _, stop = pos.at(i)
        out.append(Record(len(out), line, offset if pos.exact else 0,
                          (stop - offset) if pos.exact else 0, value))
        i = _skip(text, i)
        if text.startswith(",", i):
            i = _skip(text, i + 1)
            continue
        if text.startswith("]", i):
            return i + 1, True
        diags.append(Diagnostic(spath, _line_of(text, i), f"{where}: expected ',' or ']' "
                                f"after record {len(out) - 1}; the records before are read"))
        return len(text), False


def read_document(data: bytes, path: Path | str, diags: list[Diagnostic], *,
                  arrays: Collection[str] = ()) -> Document:
    """Read a JSON document, streaming the top-level arrays named in ``arrays``.

    Problems become Diagnostics (with the line where they are); never raises.
    """
    spath = str(path)
    text, base, exact = _decode(data, spath, diags)
    pos = _Positions(text, base, exact)
    i = _skip(text, 0)
    if text.startswith("[", i):
        records: list[Record] = []
        _, complete = _array(text, i, "", pos, spath, diags, records)
        return Document(None, {"": records}, complete)
    if not text.startswith("{", i):
        diags.append(Diagnostic(spath, _line_of(text, i), "not a JSON object or array"))
        return Document({}, {}, False)
    top: dict[str, Any] = {}
    streamed: dict[str, list[Record]] = {}
    i = _skip(text, i + 1)
    if text.startswith("}", i):
        return Document(top, streamed, True)
    while True:
        try:
            if not text.startswith('"', i):
                raise json.JSONDecodeError("expected a key", text, i)
            key, i = json.decoder.scanstring(text, i + 1)  # type: ignore[attr-defined]
            i = _skip(text, i)
            if not text.startswith(":", i):
                raise json.JSONDecodeError("expected ':'", text, i)
            i = _skip(text, i + 1)
            if key in arrays and text.startswith("[", i):
                records = streamed.setdefault(key, [])
                i, complete = _array(text, i, key, pos, spath, diags, records)
                if not complete:
                    return Document(top, streamed, False)
            else:
                top[key], i = _DECODER.raw_decode(text, i)
            i = _skip(text, i)
            if text.startswith(",", i):
                i = _skip(text, i + 1)
                continue
            if text.startswith("}", i):
                return Document(top, streamed, True)
            raise json.JSONDecodeError("expected ',' or '}'", text, i)
        except json.JSONDecodeError as exc:
            cut = exc.pos >= len(text)
            diags.append(Diagnostic(spath, exc.lineno, "the document breaks off"
                                    + (" (the file ends there)" if cut else f": {exc.msg}")
                                    + "; what comes before is read"))
            return Document(top, streamed, False)


def peek_document(head: bytes) -> tuple[str, dict[str, Any], Any]:
    """What the start of a JSON document shows, for format detection.

    Returns ``("object", fields, None)`` with each top-level key seen so far mapped to its
    value (``UNREAD`` when the value did not fit in ``head``), ``("array", {}, first)`` with
    the first element (``UNREAD`` if cut), or ``("", {}, None)`` when it is neither.
    """
    text = head.removeprefix(_BOM).decode("utf-8", "replace")
    i = _skip(text, 0)
    if text.startswith("[", i):
        try:
            first, _ = _DECODER.raw_decode(text, _skip(text, i + 1))
        except json.JSONDecodeError:
            first = UNREAD
        return "array", {}, first
    if not text.startswith("{", i):
        return "", {}, None
    fields: dict[str, Any] = {}
    i = _skip(text, i + 1)
    while text.startswith('"', i):
        try:
            key, i = json.decoder.scanstring(text, i + 1)  # type: ignore[attr-defined]
        except json.JSONDecodeError:
            break
        i = _skip(text, i)
        if not text.startswith(":", i):
            break
        try:
            fields[key], i = _DECODER.raw_decode(text, _skip(text, i + 1))
        except json.JSONDecodeError:
            fields[key] = UNREAD
            break
        i = _skip(text, i)
        if not text.startswith(",", i):
            break
        i = _skip(text, i + 1)
    return "object", fields, None
