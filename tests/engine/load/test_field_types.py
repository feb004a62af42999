"""A JSON field of the wrong type never stops a command (issue 39 item 13).

The fuzzer's failing lines first (a ``type`` that is an object or an array crashed format
detection, so every command), then a property over every JSON-lines and JSON-document
format SessionLens reads: any JSON value put in any field of any record of a real file
either loads (the bad record a diagnostic naming the file and its line) or is refused as a
LoadError naming the file, never a traceback.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fixtures.factories import jsonl
from fixtures.samples import SAMPLES_DIR
from sessionlens.engine.errors import LoadError, NotATranscriptError
from sessionlens.engine.load.detect import classify_line, sniff_format
from sessionlens.engine.load.reader import load_transcript, load_transcript_bytes

_PI_LINES = [
    {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-01-01T00:00:00Z",
     "cwd": "/w"},
    {"type": "message", "id": "a1", "parentId": None, "timestamp": "2026-01-01T00:00:01Z",
     "message": {"role": "user", "content": [{"type": "text", "text": "hi"}]}},
]


@pytest.mark.parametrize("bad", [{}, ["x"], [], 5])
def test_a_first_line_whose_type_is_not_text_does_not_crash_detection(bad: Any) -> None:
    data = jsonl({"type": bad, "id": "x", "payload": {}}, *_PI_LINES[1:])
    assert classify_line({"type": bad, "payload": {}}) is None
    assert classify_line({"role": bad, "content": "x"}) is None
    t = load_transcript_bytes(data, "/virtual/s.jsonl")
    assert [e.id for e in t.entries] == ["a1"]
    assert any(d.line == 1 for d in t.diagnostics)


def test_a_one_line_file_with_an_array_type_is_refused_in_words(tmp_path: Path) -> None:
    path = tmp_path / "one.jsonl"
    path.write_bytes(b'{"type": ["x"]}\n')
    with pytest.raises(NotATranscriptError, match="one.jsonl"):
        load_transcript(path)
    with pytest.raises(NotATranscriptError):
        sniff_format(b'{"type": {}}\n')


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2 ** 63), 2 ** 63 - 1)
    | st.floats(allow_nan=False) | st.text(max_size=6),
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=5), kids,
                                                              max_size=3),
    max_leaves=6)
_AWKWARD = st.sampled_from([{}, [], ["x"], [{}], {"type": {}}, None, 0, -1, 1e300, True, "",
                            "x", [[]], {"a": []}])

_LINE_FILES = ["01_", "03_", "07_", "09_", "agents/gemini/*.jsonl", "agents/copilot/*/events.jsonl",
               "agents/cursor/*/*.jsonl", "agents/kimi/*/context.jsonl"]
_DOC_FILES = ["agents/gemini/*.json", "agents/copilot/session_*.json", "agents/cline/*/ui_messages.json",
              "agents/amp/*.json", "agents/continue/*.json"]


def _find(pattern: str) -> Path | None:
    found = sorted(SAMPLES_DIR.glob(pattern if "/" in pattern else f"{pattern}*"))
    return found[0] if found else None


def _shortened(value: Any) -> Any:
    """A document with every array cut to its first few items (a fast, still real, seed)."""
    if isinstance(value, list):
        return [_shortened(v) for v in value[:6]]
    if isinstance(value, dict):
        return {k: _shortened(v) for k, v in value.items()}
    return value


def _seeds() -> list[tuple[Path, str, list[Any]]]:
    """(path, kind, records): the first lines of each line file, each document shortened."""
    out: list[tuple[Path, str, list[Any]]] = []
    for pattern in _LINE_FILES:
        path = _find(pattern)
        if path is not None:
            lines = path.read_bytes().split(b"\n")[:14]
            out.append((path, "lines", [json.loads(x) for x in lines if x.strip()]))
    for pattern in _DOC_FILES:
        path = _find(pattern)
        if path is not None:
            out.append((path, "doc", [_shortened(json.loads(path.read_bytes()))]))
    return out


_SEEDS = _seeds()


def _field_paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _field_paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _field_paths(v, (*prefix, i))
    return out


def _replaced(value: Any, at: tuple[Any, ...], new: Any) -> Any:
    if not at:
        return new
    copy = json.loads(json.dumps(value))
    node = copy
    for key in at[:-1]:
        node = node[key]
    node[at[-1]] = new
    return copy


def test_every_format_the_fuzz_covers_has_a_seed() -> None:
    if not SAMPLES_DIR.is_dir():
        pytest.skip("no samples beside the repository")
    assert len(_SEEDS) == len(_LINE_FILES) + len(_DOC_FILES)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_no_json_value_in_any_field_of_any_format_raises(data: st.DataObject) -> None:
    if not _SEEDS:
        pytest.skip("no samples beside the repository")
    path, kind, records = data.draw(st.sampled_from(_SEEDS), label="file")
    k = data.draw(st.integers(0, len(records) - 1), label="record")
    at = data.draw(st.sampled_from(_field_paths(records[k])), label="field")
    value = data.draw(_AWKWARD | _JSON, label="value")
    changed = list(records)
    changed[k] = _replaced(records[k], at, value)
    if kind == "lines":
        body = b"".join(json.dumps(r).encode() + b"\n" for r in changed)
    else:
        body = json.dumps(changed[0], indent=1).encode()
    try:
        t = load_transcript_bytes(body, path)
    except LoadError as exc:  # refused as a whole: in words, naming the file
        assert exc.path == path
        return
    assert all(d.path == str(path) for d in t.diagnostics)
    if kind == "lines":
        assert all(d.line is not None for d in t.diagnostics if d.severity == "error")


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(["type", "id", "payload", "role", "content", "message",
                                        "uuid", "version", "data", "timestamp", "parentId",
                                        "sessionId", "projectHash", "$set", "protocol_version"]),
                       _AWKWARD | _JSON, max_size=6))
def test_detection_of_any_first_line_never_raises_but_in_words(obj: dict[str, Any]) -> None:
    classify_line(obj)
    try:
        sniff_format(json.dumps(obj).encode() + b"\n", "x.jsonl")
    except NotATranscriptError as exc:
        assert "x.jsonl" in str(exc)
