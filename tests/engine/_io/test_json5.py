"""The JSON5 reader used for openclaw.json."""

from __future__ import annotations

import math

import pytest

from sessionlens.engine._io.json5 import Json5Error, line_of_key, loads


def test_json5_syntax() -> None:
    text = """// head
    {
      unquoted: 'single \\'quoted\\'', "double": "tab\\there \\u00e9 \\x41",
      hex: 0xFF, neg: -.5, exp: 1e3, plus: +3, inf: -Infinity,
      list: [1, 2, /* inline */ 3,],
      nested: { ok: true, no: false, nothing: null, },
    }
    """
    assert loads(text) == {
        "unquoted": "single 'quoted'", "double": "tab\there é A", "hex": 255, "neg": -0.5,
        "exp": 1000.0, "plus": 3, "inf": -math.inf, "list": [1, 2, 3],
        "nested": {"ok": True, "no": False, "nothing": None},
    }
    assert math.isnan(loads("NaN"))
    assert loads('"a\\\nb"') == "ab"  # line continuation


def test_plain_json_still_parses() -> None:
    assert loads('{"a": [1, {"b": "c"}], "d": 1.5}') == {"a": [1, {"b": "c"}], "d": 1.5}


@pytest.mark.parametrize(("text", "line", "column"), [
    ("{\n  a: 1\n  b: 2\n}", 3, 3),            # missing comma
    ("{\n  a: 'open\n}", 2, 11),               # newline inside a string
    ("[1, 2\n/* never closed", 2, 1),
    ("{a: 1} trailing", 1, 8),
    ("", 1, 1),
    ("{\n  'k' 1}", 2, 7),
])
def test_errors_have_line_and_column(text: str, line: int, column: int) -> None:
    with pytest.raises(Json5Error) as info:
        loads(text)
    assert (info.value.line, info.value.column) == (line, column)


def test_line_of_key() -> None:
    text = '{\n  agents: {\n    "mode": 1,\n  }\n}'
    assert line_of_key(text, "agents") == 2
    assert line_of_key(text, "mode") == 3
    assert line_of_key(text, "missing") is None
