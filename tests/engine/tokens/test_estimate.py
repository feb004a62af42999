"""``tokens.estimate``'s lengths: JavaScript's ``length`` of a text and of a tool call's JSON."""

from __future__ import annotations

import json
import sqlite3

import pytest

from sessionlens.engine.tokens.estimate import tool_arguments_length, utf16_len

TEXTS = ["", "plain", "café", "é" * 1000, "\u0100" * 3, "日本語のテキスト" * 40, "😀", "a😀b",
         "😀" * 100, "x" * 10 + "\U0010ffff", "\ud800", "é\ud83d", "€ and 🚀 and 日本"]


def _js_length(text: str) -> int:
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


@pytest.mark.parametrize("text", TEXTS)
def test_utf16_len_is_javascripts_length(text: str) -> None:
    assert utf16_len(text) == _js_length(text)


def test_utf16_len_after_the_text_was_handed_to_c_as_utf8() -> None:
    """A str that was once read as UTF-8 by C code keeps that copy; the length stays right."""
    db = sqlite3.connect(":memory:")
    for text in TEXTS:
        if not any(0xD800 <= ord(c) <= 0xDFFF for c in text):
            db.execute("SELECT ?", (text,))
        assert utf16_len(text) == _js_length(text)


@pytest.mark.parametrize("args", [{"path": "/tmp/a.txt"}, {"q": "café 😀", "n": [1, 2.5, None]},
                                  {}, {"nested": {"日本": ["語", True]}}, None])
def test_tool_arguments_length_is_the_length_of_json_stringify(args: object) -> None:
    text = json.dumps(args, ensure_ascii=False, separators=(",", ":"))
    assert tool_arguments_length(args) == _js_length(text)


def test_tool_arguments_length_of_what_orjson_refuses() -> None:
    big = {"n": 2**70}  # beyond orjson's integers: the slower encoder takes it
    assert tool_arguments_length(big) == len(json.dumps(big, separators=(",", ":")))
