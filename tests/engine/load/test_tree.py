"""Tree rules (§1.7), replayed context (§1.8), labels and session names."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fixtures.factories import jsonl
from fixtures.sample_writes import WRITABLE_SAMPLES, WrittenSample
from sessionlens.engine.load.reader import load_transcript, load_transcript_bytes
from sessionlens.engine.load.tree import children_of, resolve_labels, resolve_tree, session_name
from sessionlens.engine.model import Transcript

HEADER = {"type": "session", "version": 3, "id": "s", "timestamp": "t", "cwd": "/"}


def e(type: str, id: str, parent: str | None, ts: str = "2026-01-01T00:00:00Z",
      **fields: Any) -> dict[str, Any]:
    return {"type": type, "id": id, "parentId": parent, "timestamp": ts, **fields}


def m(id: str, parent: str | None, role: str = "user", **fields: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"role": role, "content": fields.pop("content", id)}
    body.update(fields)
    return e("message", id, parent, message=body)


def load(*objs: Any) -> Transcript:
    return load_transcript_bytes(jsonl(HEADER, *objs), "/virtual/t.jsonl")


def ctx(t: Transcript) -> list[tuple[str, str]]:
    return [(c.kind, c.entry_id) for c in t.context]


# --------------------------------------------------------------------------- leaf and path

def test_leaf_is_the_last_entry_and_a_branch_is_an_earlier_parent() -> None:
    t = load(m("a", None), m("b", "a"), m("c", "b"), m("d", "a"), e("custom", "x", "d"))
    assert t.leaf_id == "x"  # pi: any type, last line wins
    assert t.active_path == ("a", "d", "x")
    assert ctx(t) == [("message", "a"), ("message", "d")]
    assert children_of(t)["a"] == ("b", "d")


def test_leaf_entries_move_the_leaf_and_later_appends_hang_off_it() -> None:
    t = load(m("a", None), m("b", "a"), m("c", "b"),
             e("leaf", "L1", "c", targetId="a", appendParentId="c"),
             m("d", "c"),  # raw append at the cursor c while the visible leaf is a
             m("f", "d"))
    assert t.leaf_id == "f"
    assert t.active_path == ("a", "d", "f")
    # without appendParentId the cursor is the target itself: no rewiring needed
    t = load(m("a", None), m("b", "a"), e("leaf", "L1", "b", targetId="a"), m("d", "b"))
    assert t.active_path == ("a", "b", "d")


def test_leaf_entry_alone_selects_its_target_and_null_means_no_context() -> None:
    t = load(m("a", None), m("b", "a"), e("leaf", "L1", "b", targetId="a"))
    assert (t.leaf_id, t.active_path) == ("a", ("a",))
    t = load(m("a", None), e("leaf", "L1", "a", targetId=None))
    assert (t.leaf_id, t.active_path, t.context) == (None, (), ())


def test_side_appends_and_plugin_rows_do_not_move_the_leaf() -> None:
    t = load(m("a", None), m("b", "a"),
             m("side", "b") | {"appendMode": "side"},
             e("plugin_row", "p", "b"))
    assert t.leaf_id == "b"
    assert t.active_path == ("a", "b")
    assert t.entry("side").append_mode == "side"


def test_several_roots_orphans_and_self_parents() -> None:
    t = load(m("a", None), m("b", "a"), m("o", "missing"), m("s", "s"), m("t", "s"))
    assert t.active_path == ("s", "t")
    warn = {d.line: d for d in t.diagnostics}
    assert "parent 'missing'" in warn[4].reason and warn[4].severity == "warning"
    assert "its own parent" in warn[5].reason
    assert set(children_of(t)[None]) == {"a", "o", "s"}


def test_cycles_are_broken_once_each() -> None:
    entries = load(m("a", "b"), m("b", "a"), m("c", "d"), m("d", "c"), m("e", "d")).entries
    result = resolve_tree(entries, "/x")
    cycles = [d for d in result.diagnostics if "cycle" in d.reason]
    assert len(cycles) == 2
    assert result.leaf_id == "e" and result.active_path == ("c", "d", "e")


def test_children_are_ordered_by_timestamp() -> None:
    t = load(m("a", None), e("custom", "late", "a", ts="2026-01-02T00:00:00Z"),
             e("custom", "early", "a", ts="2026-01-01T00:00:01Z"))
    assert children_of(t)["a"] == ("early", "late")


# --------------------------------------------------------------------------- replay

def test_compaction_keeps_summary_then_window_then_after() -> None:
    t = load(m("u1", None), m("a1", "u1", "assistant", content=[]), m("u2", "a1"),
             m("a2", "u2", "assistant", content=[]),
             e("compaction", "c", "a2", summary="S", firstKeptEntryId="u2", tokensBefore=9),
             m("u3", "c"))
    assert ctx(t) == [("compaction_summary", "c"), ("message", "u2"), ("message", "a2"),
                      ("message", "u3")]
    assert t.context[0].role == "compactionSummary"


def test_the_last_compaction_on_the_path_wins() -> None:
    t = load(m("u1", None), e("compaction", "c1", "u1", summary="1", firstKeptEntryId="u1"),
             m("u2", "c1"), e("compaction", "c2", "u2", summary="2", firstKeptEntryId="u2"),
             m("u3", "c2"),
             e("compaction", "off", "u1", summary="branch", firstKeptEntryId="u1"),
             m("tip", "u3"))
    assert ctx(t) == [("compaction_summary", "c2"), ("message", "u2"), ("message", "u3"),
                      ("message", "tip")]


def test_hard_boundary_when_first_kept_is_the_compaction_or_missing() -> None:
    for kept in ("c", "nowhere", None):
        fields = {"summary": "S"} | ({"firstKeptEntryId": kept} if kept else {})
        t = load(m("u1", None), m("u2", "u1"), e("compaction", "c", "u2", **fields),
                 m("u3", "c"))
        assert ctx(t) == [("compaction_summary", "c"), ("message", "u3")], kept


def test_first_kept_after_the_boundary_does_not_count() -> None:
    t = load(m("u1", None), e("compaction", "c", "u1", summary="S", firstKeptEntryId="u3"),
             m("u3", "c"))
    assert ctx(t) == [("compaction_summary", "c"), ("message", "u3")]


def test_context_kinds_and_what_stays_out() -> None:
    t = load(m("u1", None),
             m("bx", "u1", "bashExecution", command="ls", output="", excludeFromContext=True),
             m("b2", "bx", "bashExecution", command="pwd", output="/"),
             e("branch_summary", "bs0", "b2", fromId="u1", summary=""),
             e("branch_summary", "bs1", "bs0", fromId="u1", summary="came back"),
             e("custom_message", "cm", "bs1", customType="n", content="x", display=True),
             e("custom", "cu", "cm", customType="state"),
             e("label", "lb", "cu", targetId="u1", label="here"),
             e("session_info", "si", "lb", name="n"),
             e("model_change", "mc", "si", provider="p", modelId="m"),
             e("thinking_level_change", "tl", "mc", thinkingLevel="low"),
             m("cu2", "tl", "custom", customType="hook", content="y"))
    assert ctx(t) == [("message", "u1"), ("message", "b2"), ("branch_summary", "bs1"),
                      ("custom_message", "cm"), ("message", "cu2")]
    assert [c.role for c in t.context] == ["user", "bashExecution", "branchSummary", "custom",
                                           "custom"]


def test_reset_is_a_boundary_that_emits_nothing_and_keeps_paired_tools() -> None:
    call = {"type": "toolCall", "id": "k1", "name": "read", "arguments": {}}
    t = load(m("u1", None), m("a1", "u1", "assistant", content=[call]),
             m("r1", "a1", "toolResult", toolCallId="k1", toolName="read", content=[]),
             m("u2", "r1"),
             e("reset", "R", "u2", reason="daily", firstKeptEntryId="r1"),
             m("u3", "R"))
    # window [r1, R): r1's call (in a1) is not retained, so r1 is dropped
    assert ctx(t) == [("message", "u2"), ("message", "u3")]
    t = load(m("u1", None), m("u2", "u1"), e("reset", "R", "u2", reason="new"), m("u3", "R"))
    assert ctx(t) == [("message", "u3")]


def test_a_reset_after_a_compaction_wins() -> None:
    t = load(m("u1", None), e("compaction", "c", "u1", summary="S", firstKeptEntryId="u1"),
             m("u2", "c"), e("reset", "R", "u2", reason="idle"), m("u3", "R"))
    assert ctx(t) == [("message", "u3")]


# --------------------------------------------------------------------------- labels, name

def test_labels_resolve_in_file_order_and_empty_clears() -> None:
    t = load(m("a", None), m("b", "a"),
             e("label", "l1", "b", targetId="a", label="first"),
             e("label", "l2", "l1", targetId="b", label="keep"),
             e("label", "l3", "l2", targetId="a", label="second"),
             e("label", "l4", "l3", targetId="b", label=""),
             e("label", "l5", "l4", targetId="a"),
             e("label", "l6", "l5", targetId="b", label="again"))
    assert dict(t.labels) == {"b": "again"}
    assert dict(resolve_labels(t.entries[:5])) == {"a": "second", "b": "keep"}


def test_session_name_is_the_latest_and_empty_clears() -> None:
    t = load(m("a", None), e("session_info", "s1", "a", name="one"),
             e("session_info", "s2", "s1", name="two"))
    assert t.session_name == "two"
    t = load(m("a", None), e("session_info", "s1", "a", name="one"),
             e("session_info", "s2", "s1", name=""))
    assert t.session_name is None
    assert session_name(t.entries[:2]) == "one"


# --------------------------------------------------------------------------- properties

_IDS = [f"i{n}" for n in range(8)]
_TYPES = ["message", "message", "message", "compaction", "reset", "leaf", "label", "custom",
          "branch_summary", "custom_message", "plugin_row"]


@st.composite
def _rows(draw: st.DrawFn) -> list[dict[str, Any]]:
    rows = []
    for _ in range(draw(st.integers(0, 14))):
        t = draw(st.sampled_from(_TYPES))
        row = e(t, draw(st.sampled_from(_IDS)),
                draw(st.sampled_from([None, "missing", *_IDS])))
        if t == "message":
            row["message"] = {"role": draw(st.sampled_from(["user", "assistant", "toolResult"])),
                              "content": "x"}
        if t in ("compaction", "reset"):
            row["firstKeptEntryId"] = draw(st.sampled_from([None, *_IDS]))
            row["summary"] = "s"
        if t in ("leaf", "label"):
            row["targetId"] = draw(st.sampled_from([None, "missing", *_IDS]))
        if draw(st.booleans()) and draw(st.booleans()):
            row["appendMode"] = "side"
        rows.append(row)
    return rows


@given(_rows())
@settings(max_examples=300, deadline=None)
def test_any_tree_gives_a_consistent_path_and_context(rows: list[dict[str, Any]]) -> None:
    t = load(*rows)
    assert len(set(t.index)) == len(t.entries)
    on_path = set(t.active_path)
    assert len(on_path) == len(t.active_path)  # no entry twice: cycles were broken
    assert all(i in t.index for i in t.active_path)
    assert all(t.entry(i).type != "leaf" for i in t.active_path)
    if t.active_path:
        assert t.active_path[-1] == t.leaf_id
    assert {c.entry_id for c in t.context} <= on_path
    kinds = [c.kind for c in t.context]
    assert kinds.count("compaction_summary") <= 1
    assert "compaction_summary" not in kinds[1:]


def test_a_leaf_row_pointing_at_another_leaf_row_is_followed_to_a_real_entry() -> None:
    ts = "2026-01-01T00:00:00Z"
    t = load(
        {"type": "message", "id": "a1", "parentId": None, "timestamp": ts,
         "message": {"role": "user", "content": "first"}},
        {"type": "message", "id": "b2", "parentId": "a1", "timestamp": ts,
         "message": {"role": "user", "content": "second"}},
        {"type": "leaf", "id": "l1", "parentId": None, "timestamp": ts, "targetId": "a1"},
        {"type": "leaf", "id": "l2", "parentId": None, "timestamp": ts, "targetId": "l1"},
    )
    assert t.leaf_id == "a1"
    assert t.active_path == ("a1",)


def test_a_successor_copied_compaction_is_no_dangling_reference() -> None:
    """In a successor (header with ``parentSession``) an older compaction whose kept tail a
    newer one summarized names an entry only the predecessor holds: no warning. The newest
    compaction, and any compaction of a file that is no successor, still warns."""
    rows = (e("compaction", "c1", None, summary="s", firstKeptEntryId="gone1"),
            e("compaction", "c2", "c1", summary="s", firstKeptEntryId="gone2"),
            m("u", "c2"))
    successor = load_transcript_bytes(jsonl({**HEADER, "parentSession": "/x/a.jsonl"}, *rows),
                                      "/virtual/t.jsonl")
    assert [d.reason for d in successor.diagnostics if "gone" in d.reason] == [
        "compaction 'c2': firstKeptEntryId 'gone2' names no entry of this file; nothing "
        "before it is kept in the context"]
    plain = load(*rows)
    assert sum("names no entry" in d.reason for d in plain.diagnostics) == 2


@pytest.mark.parametrize("prefix", sorted(WRITABLE_SAMPLES))
def test_a_successor_sessionlens_wrote_loads_without_warnings(
        written_sample: Callable[[str], WrittenSample], prefix: str) -> None:
    """Re-reading a successor written from a real sample warns about nothing (it used to
    warn about every compaction row it copied: "firstKeptEntryId ... names no entry")."""
    written = written_sample(prefix)
    successor = load_transcript(written.successor)
    assert [d.reason for d in successor.diagnostics] == []
