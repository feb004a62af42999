"""A small JSON5 reader for OpenClaw's ``openclaw.json`` (which is JSON5, not JSON).

OpenClaw's docs and users write comments, trailing commas, unquoted keys and single-quoted
strings; a plain ``json.loads`` would reject most real configs. No JSON5 package is a
dependency, so this reader covers the grammar (objects, arrays, strings with escapes,
numbers incl. hex/Infinity/NaN/leading dot, true/false/null, comments) and reports errors
with a line and column so the user can find them.
"""

from __future__ import annotations

import math
import re
from typing import Any

__all__ = ["Json5Error", "line_of_key", "loads"]


class Json5Error(ValueError):
    """Malformed JSON5 text; ``line`` and ``column`` are 1-based."""

    def __init__(self, reason: str, line: int, column: int) -> None:
        self.reason = reason
        self.line = line
        self.column = column
        super().__init__(f"line {line}, column {column}: {reason}")


_NUMBER = re.compile(
    r"[+-]?(?:0[xX][0-9a-fA-F]+|Infinity|NaN|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)")
_IDENT = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_ESCAPES = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "0": "\0",
            "'": "'", '"': '"', "\\": "\\", "/": "/"}


class _Parser:
    def __init__(self, text: str) -> None:
        self.s = text
        self.i = 0

    def fail(self, reason: str, at: int | None = None) -> Json5Error:
        pos = self.i if at is None else at
        line = self.s.count("\n", 0, pos) + 1
        column = pos - (self.s.rfind("\n", 0, pos) + 1) + 1
        return Json5Error(reason, line, column)

    def skip(self) -> None:
        s, n = self.s, len(self.s)
        while self.i < n:
            c = s[self.i]
            if c in " \t\r\n\ufeff\u00a0\u2028\u2029":
                self.i += 1
            elif s.startswith("//", self.i):
                end = s.find("\n", self.i)
                self.i = n if end < 0 else end + 1
            elif s.startswith("/*", self.i):
                end = s.find("*/", self.i + 2)
                if end < 0:
                    raise self.fail("unterminated /* comment")
                self.i = end + 2
            else:
                return

    def value(self) -> Any:
        self.skip()
        if self.i >= len(self.s):
            raise self.fail("unexpected end of file")
        c = self.s[self.i]
        if c == "{":
            return self.obj()
        if c == "[":
            return self.arr()
        if c in "\"'":
            return self.string()
        for word, val in (("true", True), ("false", False), ("null", None)):
            if self.s.startswith(word, self.i):
                self.i += len(word)
                return val
        m = _NUMBER.match(self.s, self.i)
        if m:
            self.i = m.end()
            return self.number(m.group())
        raise self.fail(f"unexpected character {c!r}")

    @staticmethod
    def number(tok: str) -> Any:
        sign = -1 if tok.startswith("-") else 1
        body = tok.lstrip("+-")
        if body == "Infinity":
            return sign * math.inf
        if body == "NaN":
            return math.nan
        if body[:2] in ("0x", "0X"):
            return sign * int(body, 16)
        if re.fullmatch(r"\d+", body):
            return sign * int(body)
        return sign * float(body)

    def string(self) -> str:
        quote = self.s[self.i]
        start = self.i
        self.i += 1
        out: list[str] = []
        s = self.s
        while True:
            if self.i >= len(s):
                raise self.fail("unterminated string", start)
            c = s[self.i]
            if c == quote:
                self.i += 1
                return "".join(out)
            if c == "\\":
                self.i += 1
                e = s[self.i:self.i + 1]
                if e == "u":
                    digits = s[self.i + 1:self.i + 5]
                    if not re.fullmatch(r"[0-9a-fA-F]{4}", digits):
                        raise self.fail("bad \\u escape")
                    out.append(chr(int(digits, 16)))
                    self.i += 5
                elif e == "x":
                    digits = s[self.i + 1:self.i + 3]
                    if not re.fullmatch(r"[0-9a-fA-F]{2}", digits):
                        raise self.fail("bad \\x escape")
                    out.append(chr(int(digits, 16)))
                    self.i += 3
                elif e == "\n":  # line continuation
                    self.i += 1
                elif e == "\r":
                    self.i += 2 if s[self.i + 1:self.i + 2] == "\n" else 1
                else:
                    out.append(_ESCAPES.get(e, e))
                    self.i += 1
            elif c == "\n":
                raise self.fail("newline inside a string")
            else:
                out.append(c)
                self.i += 1

    def key(self) -> str:
        if self.s[self.i:self.i + 1] in ("'", '"'):
            return self.string()
        m = _IDENT.match(self.s, self.i)
        if not m:
            raise self.fail("expected a property name")
        self.i = m.end()
        return m.group()

    def obj(self) -> dict[str, Any]:
        self.i += 1
        result: dict[str, Any] = {}
        while True:
            self.skip()
            if self.s[self.i:self.i + 1] == "}":
                self.i += 1
                return result
            name = self.key()
            self.skip()
            if self.s[self.i:self.i + 1] != ":":
                raise self.fail(f"expected ':' after {name!r}")
            self.i += 1
            result[name] = self.value()
            self.skip()
            c = self.s[self.i:self.i + 1]
            if c == ",":
                self.i += 1
            elif c != "}":
                raise self.fail("expected ',' or '}'")

    def arr(self) -> list[Any]:
        self.i += 1
        result: list[Any] = []
        while True:
            self.skip()
            if self.s[self.i:self.i + 1] == "]":
                self.i += 1
                return result
            result.append(self.value())
            self.skip()
            c = self.s[self.i:self.i + 1]
            if c == ",":
                self.i += 1
            elif c != "]":
                raise self.fail("expected ',' or ']'")


def loads(text: str) -> Any:
    """Parse JSON5 text; raises ``Json5Error`` (with line and column) on malformed input."""
    parser = _Parser(text)
    result = parser.value()
    parser.skip()
    if parser.i != len(text):
        raise parser.fail("unexpected text after the value")
    return result


def line_of_key(text: str, key: str) -> int | None:
    """1-based line where ``key`` first appears as a property name (for error messages)."""
    m = re.search(rf"""(?:^|[{{,\s])["']?{re.escape(key)}["']?\s*:""", text, re.MULTILINE)
    return None if m is None else text.count("\n", 0, m.start()) + 1 + (
        1 if text[m.start()] == "\n" else 0)
