"""Successor transcripts: content per §2.5(b), v3 strictness, round trip through the loader."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from fixtures.factories import TranscriptBuilder, write_rows
from fixtures.samples import sample_path
from fixtures.scenarios import rich_session
from fixtures.written import ISO_MS_Z, SUCCESSOR_NAME, assert_strict_v3, path_to_root, read_rows
from sessionlens.engine.errors import PersistError
from sessionlens.engine.load.reader import load_transcript, load_transcript_bytes
from sessionlens.engine.model import FileOps
from sessionlens.engine.persist.record import CompactionRecord
from sessionlens.engine.persist.successor import ResumeState, resume_state
from sessionlens.engine.persist.writer import append_compaction, write_successor

CONTEXT_TYPES = {"message", "custom_message", "branch_summary"}


def _record(summarized: list[str], first_kept: str | None, **kw: object) -> CompactionRecord:
    return CompactionRecord(
        summary="## Goal\nship it", first_kept_entry_id=first_kept, tokens_before=4321,
        tokens_after=321, file_ops=FileOps(("a.txt",), ("b.txt",)),
        summarized_entry_ids=tuple(summarized), provider="offline", model="extractive",
        template="structured", audit_passed=True, **kw)  # type: ignore[arg-type]


def _summarized(ids: dict[str, str], names: str) -> list[str]:
    return [ids[n] for n in names.split()]


def test_successor_content_follows_the_rotation_rules(tmp_path: Path) -> None:
    src, ids = rich_session(tmp_path)
    before = src.read_bytes()
    mtime = src.stat().st_mtime_ns
    t = load_transcript(src)
    rec = _record(_summarized(ids, "u1 a1 tr1 a2 u2 a3 tr2 a4"), ids["u3"])
    res = write_successor(t, rec, now=datetime(2026, 3, 4, 5, 6, 7, 890000, tzinfo=UTC))

    assert src.read_bytes() == before and src.stat().st_mtime_ns == mtime
    out = res.successor_path
    assert out is not None and out.parent == tmp_path and SUCCESSOR_NAME.match(out.name)
    assert out.name.startswith("2026-03-04T05-06-07-890Z_")
    entries = assert_strict_v3(out)
    head = read_rows(out)[0]
    assert head["parentSession"] == str(src.absolute()) and head["cwd"] == "/home/dev/proj"
    assert out.name.endswith(f"_{head['id']}.jsonl") and head["id"] != t.session_id

    got = {e["id"] for e in entries}
    # Summarized active-branch messages are gone, except the last assistant (a4, no calls).
    for gone in ("u1", "a1", "tr1", "a2", "u2", "a3", "tr2"):
        assert ids[gone] not in got, gone
    # Stale state entries dropped (latest kept), the label on a removed target dropped.
    assert ids["mc1"] not in got and ids["si1"] not in got and ids["lab1"] not in got
    for kept in ("tl", "mc2", "si2", "a4", "us", "as", "labs", "u3", "a5", "u4", "a6"):
        assert ids[kept] in got, kept

    comp = entries[-1]
    assert comp["type"] == "compaction" and res.compaction_entry_id == comp["id"]
    assert re.fullmatch(r"[0-9a-f]{8}", comp["id"]) and comp["id"] not in t.index
    assert comp["parentId"] == ids["a6"] and ISO_MS_Z.match(comp["timestamp"])
    assert comp["firstKeptEntryId"] == ids["a4"] == res.first_kept_entry_id
    assert comp["tokensBefore"] == 4321 and comp["summary"] == "## Goal\nship it"
    assert comp["details"] == {"readFiles": ["a.txt"], "modifiedFiles": ["b.txt"]}
    assert comp["sessionlens"]["auditPassed"] is True
    assert comp["sessionlens"]["provider"] == "offline"
    assert comp["sessionlens"]["template"] == "structured"

    # Active branch last: the path from the last line covers the kept tail in order.
    path = path_to_root(entries, comp["id"])
    assert path[-5:] == [ids["u3"], ids["a5"], ids["u4"], ids["a6"], comp["id"]]
    assert path.index(ids["a4"]) < path.index(ids["u3"])
    # The side branch hangs off the nearest kept ancestor of its removed parent (tl).
    side = next(e for e in entries if e["id"] == ids["us"])
    assert side["parentId"] == ids["tl"]


def test_kept_lines_are_copied_verbatim(tmp_path: Path) -> None:
    src, ids = rich_session(tmp_path)
    source_lines = {json.loads(x)["id"]: x for x in src.read_bytes().split(b"\n")[1:] if x}
    t = load_transcript(src)
    res = write_successor(t, _record(_summarized(ids, "u1 a1 tr1 a2 u2 a3 tr2 a4"), ids["u3"]))
    assert res.successor_path is not None
    out_lines = res.successor_path.read_bytes().split(b"\n")[1:-2]
    same_parent = 0
    for line in out_lines:
        obj = json.loads(line)
        src_obj = json.loads(source_lines[obj["id"]])
        if src_obj["parentId"] == obj["parentId"]:
            assert line == source_lines[obj["id"]]
            same_parent += 1
        else:  # re-parented: only parentId differs
            assert {**src_obj, "parentId": obj["parentId"]} == obj
    assert same_parent >= 5


def test_round_trip_replays_summary_plus_kept_tail(tmp_path: Path) -> None:
    src, ids = rich_session(tmp_path)
    t = load_transcript(src)
    res = write_successor(t, _record(_summarized(ids, "u1 a1 tr1 a2 u2 a3 tr2 a4"), ids["u3"]))
    assert res.successor_path is not None
    s = load_transcript(res.successor_path)
    assert not [d for d in s.diagnostics if d.severity == "error"]
    assert s.leaf_id == res.compaction_entry_id
    # Expected tail, derived from the source lines: the active path from a4 on.
    src_entries = read_rows(src)[1:]
    src_path = path_to_root(src_entries, ids["a6"])
    by_id = {e["id"]: e for e in src_entries}
    tail = [i for i in src_path[src_path.index(ids["a4"]):] if by_id[i]["type"] in CONTEXT_TYPES]
    assert [c.kind for c in s.context][0] == "compaction_summary"
    assert [c.entry_id for c in s.context[1:]] == tail


def test_hard_boundary_keeps_nothing_before(tmp_path: Path) -> None:
    src, ids = rich_session(tmp_path)
    t = load_transcript(src)
    every_message = [i for i in t.active_path if t.entry(i).type == "message"]
    res = write_successor(t, _record(every_message, None))
    assert res.successor_path is not None
    entries = assert_strict_v3(res.successor_path)
    comp = entries[-1]
    assert comp["firstKeptEntryId"] == comp["id"]
    s = load_transcript(res.successor_path)
    assert [c.kind for c in s.context] == ["compaction_summary"]


def test_boundary_assistant_keeps_its_tool_results(tmp_path: Path) -> None:
    b = TranscriptBuilder()
    u1 = b.user("go").id
    c1, c2 = b.call(), b.call()
    a1 = b.assistant("calling", c1, c2).id
    r1 = b.result(c1, "one").id
    r2 = b.result(c2, "two").id
    u2 = b.user("next").id
    b.assistant("done")
    src = b.write(tmp_path / "s.jsonl")
    t = load_transcript(src)
    res = write_successor(t, _record([u1, a1, r1, r2], u2))
    assert res.successor_path is not None
    got = [e["id"] for e in assert_strict_v3(res.successor_path)]
    assert u1 not in got and {a1, r1, r2} <= set(got)
    assert res.first_kept_entry_id == a1


def test_v1_source_is_migrated_to_v3(tmp_path: Path) -> None:
    b = TranscriptBuilder(version=1)
    b.user("hello")
    b.assistant("hi")
    b.user("more")
    b.assistant("sure")
    b.lines.append({"type": "compaction", "timestamp": "2026-02-01T11:00:00.000Z",
                    "summary": "old", "firstKeptEntryIndex": 3, "tokensBefore": 10})
    b.user("after")
    b.assistant("ok")
    src = b.write(tmp_path / "v1.jsonl")
    t = load_transcript(src)
    assert t.format == "pi-v1"
    path = list(t.active_path)
    res = write_successor(t, _record(path[:2], path[2]))
    assert res.successor_path is not None
    entries = assert_strict_v3(res.successor_path)
    old = next(e for e in entries if e["type"] == "compaction" and e["summary"] == "old")
    assert "firstKeptEntryIndex" not in old and old["firstKeptEntryId"] == t.entry(
        path[4]).first_kept_entry_id
    assert all(e["id"] in t.index for e in entries[:-1])
    assert load_transcript(res.successor_path).format == "openclaw-v3"


def test_orphans_and_cycles_become_roots(tmp_path: Path) -> None:
    b = TranscriptBuilder()
    u1 = b.user("a").id
    b.assistant("b")
    b.add("custom", customType="x", parent="ffffffff")  # missing parent
    b.add("custom", customType="loop", id="a00000fe", parent="a00000ff")
    b.add("custom", customType="loop2", id="a00000ff", parent="a00000fe")
    b.leaf = b.lines[2]["id"]
    u2 = b.user("c").id
    b.assistant("d")
    src = b.write(tmp_path / "s.jsonl")
    t = load_transcript(src)
    res = write_successor(t, _record([u1], u2))
    assert res.successor_path is not None
    entries = assert_strict_v3(res.successor_path)
    kinds = {e.get("customType"): e["parentId"] for e in entries if e["type"] == "custom"}
    assert kinds["x"] is None
    assert sum(1 for k in ("loop", "loop2") if kinds[k] is None) == 1


def test_append_in_place_adds_one_line(tmp_path: Path) -> None:
    src, ids = rich_session(tmp_path)
    before = src.read_bytes()
    t = load_transcript(src)
    res = append_compaction(t, _record(_summarized(ids, "u1 a1 tr1 a2"), ids["u2"]))
    after = src.read_bytes()
    assert after.startswith(before) and after.count(b"\n") == before.count(b"\n") + 1
    entries = assert_strict_v3(src)
    assert entries[-1]["id"] == res.compaction_entry_id
    assert entries[-1]["parentId"] == ids["a6"] and entries[-1]["firstKeptEntryId"] == ids["u2"]
    assert load_transcript(src).leaf_id == res.compaction_entry_id


def test_append_refuses_v1_and_foreign_formats(tmp_path: Path) -> None:
    b = TranscriptBuilder(version=1)
    b.user("x")
    b.assistant("y")
    t = load_transcript(b.write(tmp_path / "v1.jsonl"))
    with pytest.raises(PersistError, match="v1"):
        append_compaction(t, _record([], None))


@pytest.mark.parametrize(("lines", "expected"), [
    ([{"timestamp": "t", "type": "session_meta", "payload": {"id": "x", "cwd": "/w"}},
      {"timestamp": "t", "type": "response_item",
       "payload": {"type": "message", "role": "user", "content": []}}],
     # a Codex rollout gets a rollout of its own, in a Codex home, never an append
     r"a Codex rollout is never appended to|not in a Codex home's sessions/YYYY/MM/DD/"),
    ([{"type": "message", "id": "u1", "parentId": None, "timestamp": "t",
       "message": {"role": "user", "content": "hi"}}],
     r"the file has no session header line"),
])
def test_refusals_say_what_is_wrong(tmp_path: Path, lines: list[dict[str, object]],
                                    expected: str) -> None:
    """QA: both cases read "a openclaw-v3 transcript without a pi header cannot be written",
    ungrammatical, and for a Codex file beside the point."""
    path = write_rows(tmp_path / "s.jsonl", lines)
    t = load_transcript(path)
    for write in (append_compaction, write_successor):
        with pytest.raises(PersistError, match=expected):
            write(t, _record([], None))
    assert path.read_text(encoding="utf-8").count("\n") == len(lines)
    assert [p.name for p in tmp_path.iterdir()] == ["s.jsonl"]


@pytest.mark.samples
def test_sample_04_round_trip(samples_dir: Path, tmp_path: Path) -> None:
    src = tmp_path / "76cc5ab5-0425-4038-b41f-0af9f313d594.jsonl"
    src.write_bytes(sample_path(samples_dir, "04_").read_bytes())
    t = load_transcript(src)
    lines = read_rows(src)[1:]
    by_id = {e["id"]: e for e in lines}
    leaf = lines[-1]["id"]
    path = path_to_root(lines, leaf)
    msgs = [i for i in path if by_id[i]["type"] == "message"]
    first_kept = next(i for i in reversed(msgs[:-6]) if by_id[i]["message"]["role"] == "user")
    summarized = [i for i in path[:path.index(first_kept)] if by_id[i]["type"] == "message"]
    res = write_successor(t, _record(summarized, first_kept))
    assert res.successor_path is not None
    entries = assert_strict_v3(res.successor_path)
    assert entries[-1]["type"] == "compaction"
    s = load_transcript(res.successor_path)
    fk = entries[-1]["firstKeptEntryId"]
    tail = [i for i in path[path.index(fk):] if by_id[i]["type"] in CONTEXT_TYPES]
    assert [c.entry_id for c in s.context[1:]] == tail
    assert s.context[0].kind == "compaction_summary"
    assert src.read_bytes() == sample_path(samples_dir, "04_").read_bytes()


def test_messages_folded_by_earlier_compactions_go_too(tmp_path: Path) -> None:
    b = TranscriptBuilder()
    old = [b.user("first").id, b.assistant("one").id]
    kept_by_c1 = [b.user("second").id, b.assistant("two").id]
    c1 = b.compaction("old summary", kept_by_c1[0], 9).id
    newer = [b.user("third").id, b.assistant("three").id]
    u4 = b.user("fourth").id
    a4 = b.assistant("four").id
    src = b.write(tmp_path / "s.jsonl")
    t = load_transcript(src)
    # This run summarizes only what the last replay showed (c1's kept part and after).
    res = write_successor(t, _record(kept_by_c1 + newer, u4))
    assert res.successor_path is not None
    got = [e["id"] for e in assert_strict_v3(res.successor_path)]
    assert not set(old + kept_by_c1 + newer[:1]) & set(got)
    assert newer[1] in got and res.first_kept_entry_id == newer[1]  # the boundary reply
    assert c1 in got and got[-3:-1] == [u4, a4]


def test_first_kept_off_the_active_branch_is_refused(tmp_path: Path) -> None:
    src, ids = rich_session(tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(PersistError, match="not on the active branch"):
        write_successor(load_transcript(src), _record([ids["u1"]], ids["us"]))
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_append_through_a_symlink_keeps_the_link(tmp_path: Path) -> None:
    real_dir = tmp_path / "real"
    real_dir.mkdir()
    src, ids = rich_session(real_dir)
    link = tmp_path / src.name
    link.symlink_to(src)
    append_compaction(load_transcript(link), _record([ids["u1"]], ids["u2"]))
    assert link.is_symlink() and read_rows(src)[-1]["type"] == "compaction"


def test_a_hard_boundary_successor_keeps_the_model_to_resume_with(tmp_path: Path) -> None:
    """pi resumes with the last model_change or assistant's model: a hard boundary drops every
    assistant, so without help the successor would resume with the older m2."""
    src, ids = rich_session(tmp_path)
    t = load_transcript(src)
    assert resume_state(t.path_entries()) == ResumeState(("p", "m"), "off")
    res = write_successor(t, _record([], None))
    assert res.successor_path is not None
    entries = read_rows(res.successor_path)[1:]
    by_id = {e["id"]: e for e in entries}
    comp = entries[-1]
    restored = by_id[comp["parentId"]]
    assert restored["type"] == "model_change" and restored["id"] not in t.index
    assert (restored["provider"], restored["modelId"]) == ("p", "m")
    assert entries[-2] is restored and restored["parentId"] == entries[-3]["id"]  # the leaf
    back = load_transcript(res.successor_path)
    assert resume_state(back.path_entries()) == ResumeState(("p", "m"), "off")
    # a successor that keeps an assistant with the current model needs no extra row
    kept = write_successor(t, _record([], ids["u3"]), allow_second_successor=True)
    assert kept.successor_path is not None
    rows = read_rows(kept.successor_path)[1:]
    assert not any(r["type"] == "model_change" and r["id"] not in t.index for r in rows)


def test_resume_state_reads_levels_and_models_in_path_order() -> None:
    b = TranscriptBuilder()
    b.thinking_level("high")
    b.assistant("hi")
    b.model_change("later", provider="q")
    t = load_transcript_bytes(b.jsonl(), Path("/tmp/never-written.jsonl"))
    assert resume_state(t.path_entries()) == ResumeState(("q", "later"), "high")
    assert resume_state(()) == ResumeState(None, "off")
