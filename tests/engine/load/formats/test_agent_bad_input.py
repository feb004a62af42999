"""Bad input and read-only rules for the Claude Code and Codex adapters.

Each malformed-line kind of DESIGN.md "Bad input" becomes a diagnostic naming its line while
the rest loads; arbitrary lines never stop a parse; and neither format is ever written to.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fixtures.agent_lines import CC_P, CC_SID, CX_P, META, TS, asst, jl, line, text_msg, user
from sessionlens.engine.agents.claude_code import parse as claude_code
from sessionlens.engine.agents.codex import parse as codex
from sessionlens.engine.errors import PersistError
from sessionlens.engine.load.reader import load_transcript, load_transcript_bytes
from sessionlens.engine.load.tree import build_transcript
from sessionlens.engine.persist.record import CompactionRecord
from sessionlens.engine.persist.writer import write_compaction


def test_claude_code_malformed_lines_become_diagnostics_and_the_rest_loads() -> None:
    good = [jl(user("u1", None, "one")), jl(asst("a1", "u1", [{"type": "text", "text": "x"}]))]
    data = b"".join([
        good[0],
        b"{not json\n",                                            # 2 invalid JSON
        b"[1, 2]\n",                                               # 3 not an object
        jl({"uuid": "n1", "parentUuid": None}),                    # 4 no type
        jl(line("user", None, "u1", message={"role": "user", "content": "x"})),  # 5 no uuid
        jl(line("assistant", "a0", "u1")),                         # 6 no message
        good[1],                                                   # 7
        jl(user("u2", "a1", "caf\u00e9")).replace(b"caf\\u00e9", b"caf\xff"),  # 8
        b"\xff\xfe{\n",                                            # 9 bad UTF-8, not JSON
        b'{"type": "user", "uuid": "cut"',                         # 10 truncated last line
    ])
    t = load_transcript_bytes(data, CC_P)
    assert t.format == "claude-code"
    by_line = {d.line: d for d in t.diagnostics}
    assert "invalid JSON" in by_line[2].reason
    assert "not an object" in by_line[3].reason
    assert "no string 'type'" in by_line[4].reason
    assert "no string 'uuid'" in by_line[5].reason
    assert "no 'message' object" in by_line[6].reason
    assert by_line[8].severity == "warning" and "UTF-8" in by_line[8].reason
    assert "UTF-8" in by_line[9].reason and by_line[9].severity == "error"
    assert "truncated last line" in by_line[10].reason
    assert set(by_line) == {2, 3, 4, 5, 6, 8, 9, 10}
    assert [e.id for e in t.entries] == ["u1", "a1", "u2"]
    assert t.entry("u2").message.text == "caf\ufffd"  # type: ignore[union-attr]
    assert t.active_path == ("u1", "a1", "u2")


def test_codex_malformed_lines_become_diagnostics_and_the_rest_loads() -> None:
    data = b"".join([
        jl(META),
        b"{oops\n",                                                  # 2 invalid JSON
        b"42\n",                                                     # 3 not an object
        jl({"timestamp": TS, "payload": {}}),                        # 4 no type
        jl({"timestamp": TS, "type": "response_item"}),              # 5 no payload
        jl(text_msg("user", "fine")),                                # 6
        jl(text_msg("user", "caf\u00e9")).replace(b"caf\\u00e9", b"caf\xff"),  # 7 bad byte
        b"\xfe\xff[\n",                                              # 8 bad UTF-8, no JSON
        b'{"timestamp": "x", "type": "event_msg", "pay',            # 9 truncated last line
    ])
    t = load_transcript_bytes(data, CX_P)
    assert t.format == "codex"
    by_line = {d.line: d for d in t.diagnostics}
    assert set(by_line) == {2, 3, 4, 5, 7, 8, 9}
    assert "invalid JSON" in by_line[2].reason
    assert "not an object" in by_line[3].reason
    assert "no string 'type'" in by_line[4].reason
    assert "no 'payload' object" in by_line[5].reason
    assert by_line[7].severity == "warning" and "UTF-8" in by_line[7].reason
    assert by_line[8].severity == "error" and "UTF-8" in by_line[8].reason
    assert "truncated last line" in by_line[9].reason
    assert [e.line for e in t.entries] == [6, 7]
    assert t.entries[1].message is not None and t.entries[1].message.text == "caf\ufffd"


def test_claude_code_files_are_never_written_into(tmp_path: Path) -> None:
    """An append is refused; a successor is a new session beside it, the original as it was."""
    path = tmp_path / f"{CC_SID}.jsonl"
    path.write_bytes(jl(user("u1", None, "hi"), asst("a1", "u1", [{"type": "text", "text": "x"}])))
    before = path.read_bytes()
    t = load_transcript(path)
    record = CompactionRecord(summary="S", first_kept_entry_id=None, tokens_before=1)
    with pytest.raises(PersistError, match="never into the original file"):
        write_compaction(t, record, "append", store_path=None)
    assert sorted(tmp_path.iterdir()) == [path]
    result = write_compaction(t, record, "successor", store_path=None)
    assert path.read_bytes() == before
    assert sorted(tmp_path.iterdir()) == sorted([path, *result.written])
    assert result.written[0].name == f"{result.session_id}.jsonl"


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=6), kids,
                                                              max_size=3),
    max_leaves=8)
_cc_value = st.sampled_from([None, 1, "x", "u1", [], {}, [{"type": "tool_result"}],
                             [{"type": "tool_use", "id": 3}], {"content": 5}])
_cc_line = st.fixed_dictionaries({
    "type": st.sampled_from(["user", "assistant", "system", "attachment", 7]),
    "uuid": st.sampled_from(["u1", "u2", "u3", None, 5]),
    "parentUuid": st.sampled_from(["u1", "u2", "u3", None, []]),
}, optional={"message": _cc_value | _JSON, "subtype": st.just("compact_boundary"),
             "isCompactSummary": st.booleans(), "logicalParentUuid": _cc_value,
             "compactMetadata": _cc_value | _JSON, "isSidechain": st.booleans(),
             "isApiErrorMessage": st.booleans(), "error": _cc_value})


@settings(max_examples=150, deadline=None)
@given(st.lists(_cc_line | _JSON, max_size=8))
def test_odd_claude_code_lines_never_stop_a_parse(lines: list[Any]) -> None:
    parsed = claude_code.parse(jl(*lines), CC_P)
    t = build_transcript(CC_P, parsed.format, parsed.header, parsed.entries, parsed.diagnostics)
    assert set(t.active_path) <= set(t.index)
    assert all(d.line is not None for d in parsed.diagnostics)
    dict_lines = sum(1 for o in lines if isinstance(o, dict))
    assert len({e.line for e in parsed.entries}) <= dict_lines


def test_codex_files_are_never_written(tmp_path: Path) -> None:
    path = tmp_path / CX_P.name
    path.write_bytes(jl(META, text_msg("user", "hi"), text_msg("assistant", "x")))
    before = path.read_bytes()
    t = load_transcript(path)
    record = CompactionRecord(summary="S", first_kept_entry_id=None, tokens_before=1)
    for mode in ("successor", "append"):
        with pytest.raises(PersistError, match="codex"):
            write_compaction(t, record, mode, store_path=None)  # type: ignore[arg-type]
    assert path.read_bytes() == before and sorted(tmp_path.iterdir()) == [path]


_payload = st.fixed_dictionaries({
    "type": st.sampled_from(["message", "reasoning", "function_call", "function_call_output",
                             "custom_tool_call", "web_search_call", "token_count", "error",
                             "turn_aborted", None, 3]),
}, optional={"role": st.sampled_from(["user", "assistant", "developer", None]),
             "content": _JSON, "summary": _JSON, "arguments": _JSON, "output": _JSON,
             "call_id": _JSON, "info": _JSON, "message": _JSON, "action": _JSON,
             "replacement_history": _JSON, "id": _JSON})
_line = st.fixed_dictionaries({
    "type": st.sampled_from(["session_meta", "turn_context", "response_item", "event_msg",
                             "compacted", 5]),
    "payload": _payload | _JSON,
})


@settings(max_examples=150, deadline=None)
@given(st.lists(_line | _JSON, max_size=8))
def test_odd_codex_lines_never_stop_a_parse(lines: list[Any]) -> None:
    parsed = codex.parse(jl(*lines), CX_P)
    t = build_transcript(CX_P, parsed.format, parsed.header, parsed.entries, parsed.diagnostics)
    assert t.header is not None
    assert [e.id for e in t.entries] == [f"{e.line:08x}" for e in t.entries]
    assert len(t.active_path) == len(t.entries)  # one linear chain, whatever the lines held
