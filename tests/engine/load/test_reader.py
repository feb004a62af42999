"""Loading files: detection, whole-file errors, and each bad-input class of DESIGN.md."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sessionlens.engine.load.reader as load_mod
from fixtures.factories import jsonl
from sessionlens.engine.errors import LoadCancelled, LoadError, NotATranscriptError
from sessionlens.engine.load.reader import detect_format, load_transcript, load_transcript_bytes

HEADER = {"type": "session", "version": 3, "id": "s", "timestamp": "t", "cwd": "/"}


def user(id: str, parent: str | None, text: str = "hi") -> dict[str, Any]:
    return {"type": "message", "id": id, "parentId": parent, "timestamp": "t",
            "message": {"role": "user", "content": text}}


def write(tmp_path: Path, data: bytes, name: str = "s.jsonl") -> Path:
    p = tmp_path / name
    p.write_bytes(data)
    return p


def errors_by_line(t: Any) -> dict[int | None, str]:
    return {d.line: d.reason for d in t.diagnostics}


def test_truncated_last_line_is_reported_and_the_rest_loads(tmp_path: Path) -> None:
    data = jsonl(HEADER, user("a", None)) + b'{"type":"message","id":"b","par'
    t = load_transcript(write(tmp_path, data))
    assert [e.id for e in t.entries] == ["a"]
    assert "truncated last line" in errors_by_line(t)[3]


def test_invalid_json_and_non_objects_are_skipped(tmp_path: Path) -> None:
    data = jsonl(HEADER, user("a", None)) + b"{not json}\n[1, 2]\n\"text\"\n" + \
        jsonl(user("b", "a"))
    t = load_transcript(write(tmp_path, data))
    assert [e.id for e in t.entries] == ["a", "b"]
    found = errors_by_line(t)
    assert "invalid JSON" in found[3]
    assert "list is not an object" in found[4]
    assert "str is not an object" in found[5]
    assert t.active_path == ("a", "b")


def test_missing_type_and_missing_id_are_diagnosed(tmp_path: Path) -> None:
    data = jsonl(HEADER, {"id": "x", "parentId": None}, user("a", None),
                 {"type": "message", "parentId": "a", "message": {"role": "user"}},
                 {"type": "message", "id": "c", "parentId": "a"})
    t = load_transcript(write(tmp_path, data))
    assert [e.id for e in t.entries] == ["a"]
    found = errors_by_line(t)
    assert "no string 'type'" in found[2]
    assert "no string 'id'" in found[4]
    assert "no message object" in found[5]


def test_missing_header_still_loads_entries(tmp_path: Path) -> None:
    t = load_transcript(write(tmp_path, jsonl(user("a", None), user("b", "a"))))
    assert t.header is None and t.format == "openclaw-v3"
    assert [e.id for e in t.entries] == ["a", "b"]
    assert "missing header" in errors_by_line(t)[1]


def test_duplicate_ids_keep_the_first(tmp_path: Path) -> None:
    data = jsonl(HEADER, user("a", None, "first"), user("b", "a"), user("a", "b", "second"))
    t = load_transcript(write(tmp_path, data))
    assert [e.id for e in t.entries] == ["a", "b"]
    a = t.entry("a").message
    assert a is not None and a.text == "first"
    assert "duplicate id 'a' (first on line 2)" in errors_by_line(t)[4]


def test_a_parent_cycle_is_reported_and_broken(tmp_path: Path) -> None:
    data = jsonl(HEADER, user("a", "c"), user("b", "a"), user("c", "b"))
    t = load_transcript(write(tmp_path, data))
    assert t.active_path == ("a", "b", "c")
    cyc = [d for d in t.diagnostics if "cycle" in d.reason]
    assert len(cyc) == 1 and cyc[0].severity == "error" and cyc[0].line == 2


def test_a_5_mb_single_line_loads(tmp_path: Path) -> None:
    big = "x" * (5 << 20)
    t = load_transcript(write(tmp_path, jsonl(HEADER, user("a", None, big), user("b", "a"))))
    msg = t.entry("a").message
    assert msg is not None and len(msg.text) == len(big)
    assert t.diagnostics == ()


def test_non_utf8_bytes_only_affect_their_line(tmp_path: Path) -> None:
    bad = b'{"type":"message","id":"b","parentId":"a","timestamp":"t","message":' \
          b'{"role":"user","content":"caf\xe9"}}\n'
    data = jsonl(HEADER, user("a", None)) + bad + b"\xff\xfe garbage\n" + jsonl(user("c", "b"))
    t = load_transcript(write(tmp_path, data))
    assert [e.id for e in t.entries] == ["a", "b", "c"]
    b = t.entry("b").message
    assert b is not None and b.text == "caf\ufffd"
    found = {d.line: d for d in t.diagnostics}
    assert found[3].severity == "warning" and "not valid UTF-8" in found[3].reason
    assert found[4].severity == "error" and "not valid UTF-8" in found[4].reason


def test_bom_crlf_and_blank_lines_are_accepted(tmp_path: Path) -> None:
    body = jsonl(HEADER, user("a", None), user("b", "a")).replace(b"\n", b"\r\n")
    data = b"\xef\xbb\xbf" + body.replace(b"\r\n", b"\r\n\r\n   \r\n", 1)
    t = load_transcript(write(tmp_path, data))
    assert t.diagnostics == ()
    assert t.header is not None and t.header.id == "s"
    assert [e.id for e in t.entries] == ["a", "b"]
    assert [e.line for e in t.entries] == [4, 5]
    assert json.loads(t.raw_line(t.entry("b"))) == user("b", "a")


@pytest.mark.parametrize("content", [b"", b"\n\n  \n"])
def test_an_empty_file_is_a_load_error(tmp_path: Path, content: bytes) -> None:
    with pytest.raises(LoadError, match="empty file") as info:
        load_transcript(write(tmp_path, content))
    assert not isinstance(info.value, NotATranscriptError)
    assert str(tmp_path) in str(info.value)


def test_a_directory_or_missing_path_is_a_load_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(LoadError, match="is a directory") as info:
        load_transcript(tmp_path)
    assert str(tmp_path) in str(info.value)
    with pytest.raises(LoadError, match="no such file"):
        load_transcript(tmp_path / "missing.jsonl")
    with pytest.raises(LoadError, match="is a directory"):
        detect_format(tmp_path)


def test_an_unreadable_file_is_a_load_error(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    p = write(tmp_path, jsonl(HEADER))

    def refuse(*_a: Any, **_k: Any) -> Any:
        raise PermissionError(13, "Permission denied", str(p))

    monkeypatch.setattr(load_mod, "open", refuse, raising=False)
    with pytest.raises(LoadError, match="cannot read: Permission denied") as info:
        load_transcript(p)
    assert info.value.path == p


@pytest.mark.parametrize("data, seen", [
    (b"hello world\n", "not JSON"),
    (jsonl({"name": "x"}, {"name": "y"}), "keys name"),
    (b'{\n  "agent:main:main": {"sessionId": "x"}\n}\n', "single JSON document"),
])
def test_a_file_that_is_no_transcript_says_what_was_seen(tmp_path: Path, data: bytes,
                                                         seen: str) -> None:
    p = write(tmp_path, data, "notes.jsonl")
    with pytest.raises(NotATranscriptError, match="not a session transcript") as info:
        load_transcript(p)
    assert seen in str(info.value) and "notes.jsonl" in str(info.value)


def test_detect_format_reads_headers_and_other_agents_lines() -> None:
    assert detect_format(jsonl(HEADER)) == "openclaw-v3"
    assert detect_format(jsonl({**HEADER, "version": 2})) == "pi-v2"
    assert detect_format(jsonl({"type": "session", "id": "s"})) == "pi-v1"
    assert detect_format(b"garbage\n" + jsonl(HEADER)) == "openclaw-v3"
    claude = {"type": "user", "uuid": "u", "parentUuid": None, "sessionId": "s",
              "message": {"role": "user", "content": "x"}}
    assert detect_format(jsonl(claude)) == "claude-code"
    codex = {"timestamp": "t", "type": "session_meta", "payload": {"id": "x"}}
    assert detect_format(jsonl(codex)) == "codex"


def test_a_recognised_format_without_its_adapter_says_so(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(load_mod._ADAPTERS, "codex", ("no_such_adapter_module", "Codex"))
    codex = {"timestamp": "t", "type": "session_meta", "payload": {"id": "x"}}
    with pytest.raises(NotATranscriptError, match="Codex transcript, but reading Codex files "
                                                  "is not supported yet"):
        load_transcript_bytes(jsonl(codex), "rollout.jsonl")


def test_progress_reaches_the_end_and_cancel_stops(tmp_path: Path) -> None:
    many = [HEADER] + [user(f"{i:08x}", f"{i - 1:08x}" if i else None, "y" * 2000)
                       for i in range(6000)]
    p = write(tmp_path, jsonl(*many))
    seen: list[tuple[int, int]] = []
    t = load_transcript(p, on_progress=lambda done, total: seen.append((done, total)))
    size = p.stat().st_size
    assert len(t.entries) == 6000 and t.file_size == size
    assert seen[-1] == (size, size) and len(seen) >= 2
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    with pytest.raises(LoadCancelled, match="cancelled"):
        load_transcript(p, cancel=lambda: True)


@given(st.lists(st.one_of(
    st.binary(max_size=40),
    st.just(b'{"type":"message","id":"a","parentId":null,"message":{"role":"user"}}'),
    st.just(b'{"type":"compaction","id":"c","parentId":"a","summary":3}'),
    st.just(b'{"type":"message","id":"b","parentId":"a","message":{"role":7,"content":{}}}'),
    st.just(b'{"type":"label","id":"l","parentId":"b","targetId":[]}'),
    st.just(b'{"type":"message","id":"d","parentId":"b","message":{"role":"assistant",'
            b'"content":[1,{"type":"toolCall","arguments":null}],"usage":"x"}}'),
), max_size=12))
@settings(max_examples=200, deadline=None)
def test_arbitrary_lines_after_a_header_never_raise(chunks: list[bytes]) -> None:
    data = jsonl(HEADER) + b"\n".join(chunks)
    t = load_transcript_bytes(data, "/virtual/fuzz.jsonl")
    assert t.header is not None and t.header.id == "s"
    assert all(d.line is None or 1 <= d.line <= data.count(b"\n") + 1 for d in t.diagnostics)
    assert all(i in t.index for i in t.active_path)


def test_a_complete_last_line_without_newline_loads(tmp_path: Path) -> None:
    data = jsonl(HEADER, user("a", None)) + jsonl(user("b", "a"), newline="")
    t = load_transcript(write(tmp_path, data))
    assert [e.id for e in t.entries] == ["a", "b"] and t.diagnostics == ()
    assert t.file_size == len(data)


def test_a_first_line_over_a_megabyte_is_still_detected(tmp_path: Path) -> None:
    header = {**HEADER, "note": "h" * (3 << 20)}
    p = write(tmp_path, jsonl(header, user("a", None)))
    assert detect_format(p) == "openclaw-v3"
    t = load_transcript(p)
    assert t.header is not None and len(t.header.extra["note"]) == 3 << 20
    assert [e.id for e in t.entries] == ["a"]


# ------------------------------------------------------------------ streamed pi / OpenClaw files

@given(st.lists(st.sampled_from([b"a", b"\n", b"\r", b"\r\n", b"{}", b"\xef\xbb\xbf", b"xyz" * 9]),
                max_size=40), st.integers(min_value=1, max_value=24))
@settings(max_examples=300, deadline=None)
def test_streamed_lines_are_the_lines_of_the_whole_bytes(parts: list[bytes], block: int) -> None:
    import io

    from sessionlens.engine.load.formats.jsonl import iter_file_lines, iter_raw_lines

    data = b"".join(parts)
    seen: list[bytes] = []
    assert list(iter_file_lines(io.BytesIO(data), on_block=seen.append, block_size=block)) \
        == list(iter_raw_lines(data))
    assert b"".join(seen) == data


@pytest.mark.parametrize("block", [7, 64, 1 << 20])
def test_a_streamed_load_is_the_load_of_the_bytes(tmp_path: Path, block: int,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """BOM, CRLF, blank and bad lines, a line far longer than a block, no final newline."""
    import hashlib

    from sessionlens.engine.load.formats import jsonl as jsonl_format

    monkeypatch.setattr(jsonl_format, "READ_BLOCK", block)
    data = (b"\xef\xbb\xbf" + jsonl(HEADER, user("a", None)).replace(b"\n", b"\r\n") + b"\n"
            + b"{not json\n" + jsonl(user("b", "a", "long " * 5000), user("c", "b"))
            + json.dumps(user("d", "c")).encode())
    p = write(tmp_path, data)
    streamed, whole = load_transcript(p), load_transcript_bytes(data, p)
    assert streamed.entries == whole.entries and [e.id for e in streamed.entries] == list("abcd")
    assert streamed.diagnostics == whole.diagnostics and len(streamed.diagnostics) == 1
    assert streamed.context == whole.context and streamed.active_path == whole.active_path
    assert streamed.file_size == len(data)
    assert streamed.file_sha256 == hashlib.sha256(data).hexdigest() == whole.file_sha256


@pytest.mark.samples
@pytest.mark.parametrize("prefix", ["01_", "03_", "04_"])
def test_streamed_samples_load_as_their_bytes(samples_dir: Path, prefix: str) -> None:
    from fixtures.samples import sample_path

    p = sample_path(samples_dir, prefix)
    streamed, whole = load_transcript(p), load_transcript_bytes(p.read_bytes(), p)
    assert streamed.entries == whole.entries and streamed.diagnostics == whole.diagnostics
    assert streamed.file_sha256 == whole.file_sha256 and streamed.context == whole.context
