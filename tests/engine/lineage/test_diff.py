"""Comparing two points of a lineage: removed, added, summarized entries."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixtures.chains import make_chain
from fixtures.factories import TranscriptBuilder
from fixtures.scenarios import rich_session
from fixtures.written import path_to_root, read_rows
from sessionlens.engine.errors import LoadError
from sessionlens.engine.lineage.diff import compare_points, point_transcript
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.persist.record import CompactionRecord
from sessionlens.engine.persist.writer import write_compaction


@pytest.mark.parametrize("gen", [0, 4, 9])
def test_successor_vs_predecessor(tmp_path: Path, gen: int) -> None:
    files = make_chain(tmp_path, 10, store=False)
    a_objs, b_objs = read_rows(files.transcripts[gen]), read_rows(files.transcripts[gen + 1])
    a_path, b_path = path_to_root(a_objs), path_to_root(b_objs)
    new = [o for o in b_objs if o.get("type") == "compaction"
           and o["id"] not in {x.get("id") for x in a_objs}]
    assert len(new) == 1
    diff = compare_points(load_transcript(files.transcripts[gen]),
                          load_transcript(files.transcripts[gen + 1]))
    missing = [i for i in a_path if i not in set(b_path)]
    assert [d.entry_id for d in diff.summarized if not d.in_file] == missing
    # A's own latest summary stays in the file but is now folded into B's new summary
    types = {o["id"]: o["type"] for o in a_objs[1:]}
    a_latest = [i for i in a_path if types[i] == "compaction"][-1:]
    assert [d.entry_id for d in diff.summarized if d.in_file] == a_latest
    assert all(d.compaction_id == new[0]["id"] for d in diff.summarized)
    assert diff.removed == ()
    assert [d.entry_id for d in diff.added] == [i for i in b_path if i not in set(a_path)]
    assert diff.new_compactions == (new[0]["id"],)
    assert diff.kept == len(a_path) - len(missing) - len(a_latest)


def test_checkpoint_vs_current_state_across_generations(tmp_path: Path) -> None:
    files = make_chain(tmp_path, 5, store=False)
    cp_objs, last_objs = read_rows(files.checkpoints[1]), read_rows(files.transcripts[-1])
    diff = compare_points(load_transcript(files.checkpoints[1]),
                          load_transcript(files.transcripts[-1]))
    a_path, b_path = path_to_root(cp_objs), set(path_to_root(last_objs))
    assert {d.entry_id for d in diff.summarized if not d.in_file} == {
        i for i in a_path if i not in b_path}
    assert len(diff.new_compactions) == 4  # generations 2..5 compacted after checkpoint 2
    latest = diff.new_compactions[-1]
    assert {d.compaction_id for d in diff.summarized} == {latest}


def test_append_mode_compaction_is_summarized_in_file(tmp_path: Path) -> None:
    path, ids = rich_session(tmp_path)
    before = load_transcript(path)
    write_compaction(before, CompactionRecord("s", ids["u3"], 10), mode="append")
    after = load_transcript(path)
    objs = read_rows(path)
    fk = objs[-1]["firstKeptEntryId"]
    a_path = path_to_root(objs[:-1])
    folded = [i for i in a_path[: a_path.index(fk)]
              if next(o for o in objs if o.get("id") == i)["type"] == "message"]
    diff = compare_points(before, after)
    assert [d.entry_id for d in diff.summarized] == folded
    assert all(d.in_file and d.compaction_id == objs[-1]["id"] for d in diff.summarized)
    assert [d.entry_id for d in diff.added] == [objs[-1]["id"]]
    assert diff.removed == ()


def test_removed_without_compaction_and_identical_points() -> None:
    b = TranscriptBuilder()
    b.user("one")
    kept = b.assistant("two").id
    gone = b.user("three").id
    b.assistant("four")
    a = b.build()
    b.leaf = kept
    b.user("other way")
    c = b.build()
    diff = compare_points(a, c)
    assert [d.entry_id for d in diff.removed] == [gone, "00000004"]
    assert diff.summarized == () and [d.entry_id for d in diff.added] == ["00000005"]
    assert compare_points(a, a).same and not diff.same


def test_point_transcript_stands_at_an_entry(tmp_path: Path) -> None:
    path, ids = rich_session(tmp_path)
    t = load_transcript(path)
    at = point_transcript(t, ids["a4"])
    objs = read_rows(path)
    upto = [o["id"] for o in objs[1:]]
    assert at.leaf_id == ids["a4"]
    assert [e.id for e in at.entries] == upto[: upto.index(ids["a4"]) + 1]
    assert point_transcript(t, t.leaf_id or "") is t
    with pytest.raises(LoadError):
        point_transcript(t, "nope")
