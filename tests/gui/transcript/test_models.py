"""The timeline and diagnostics models and their prepared rows, tested without a window."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fixtures.factories import write_rows
from fixtures.scenarios import small_session
from fixtures.written import path_to_root, read_rows
from sessionlens.engine import load_transcript
from sessionlens.gui.roles import EntryIdRole, ItemRole, MarksRole, SortRole
from sessionlens.gui.transcript.diagnostics_model import DiagnosticsModel
from sessionlens.gui.transcript.timeline_model import TimelineModel
from sessionlens.gui.transcript.timeline_rows import (
    Mark,
    PathRows,
    RowFilter,
    build_rows,
    filter_rows,
)


def _transcript(tmp_path: Path) -> tuple[Any, list[dict[str, Any]]]:
    rows = small_session().lines
    path = write_rows(tmp_path / "s.jsonl", rows)
    return load_transcript(path), rows


def test_list_rows_follow_the_active_path(tmp_path: Path) -> None:
    t, rows = _transcript(tmp_path)
    built = build_rows(t)
    assert [r.entry_id for r in built] == path_to_root(rows)
    assert "offpath1" not in {r.entry_id for r in built}


def test_rows_pair_results_and_mark_problems(tmp_path: Path) -> None:
    t, _ = _transcript(tmp_path)
    by_id = {r.entry_id: r for r in build_rows(t)}
    assert by_id["r0000003"].pair_id == "a0000003"
    assert by_id["r0000003"].marks & Mark.PAIRED
    assert by_id["r0000002"].marks & Mark.ERROR            # isError tool result
    assert not by_id["r0000001"].marks & Mark.ERROR
    assert by_id["ovf00001"].marks & Mark.OVERFLOW
    assert by_id["comp0001"].marks & Mark.DIVIDER
    assert by_id["comp0001"].preview.startswith("## Goal")


def test_tree_rows_include_every_branch(tmp_path: Path) -> None:
    t, rows = _transcript(tmp_path)
    tree = build_rows(t, tree=True)
    file_ids = [r["id"] for r in rows if r["type"] != "session"]
    assert sorted(r.entry_id for r in tree) == sorted(file_ids)
    by_id = {r.entry_id: r for r in tree}
    assert by_id["offpath1"].marks & Mark.OFF_PATH
    assert by_id["r0000005"].marks & Mark.BRANCH_POINT     # two children: offpath1, ovf00001
    assert by_id["offpath1"].depth > by_id["r0000005"].depth


def test_filter_by_text_role_type_and_problems(tmp_path: Path) -> None:
    t, rows = _transcript(tmp_path)
    built = build_rows(t)
    path = set(path_to_root(rows))
    on_path = [r for r in rows if r.get("id") in path]
    users = [r for r in on_path if r["type"] == "message" and r["message"]["role"] == "user"]
    vis = filter_rows(built, RowFilter(role="user"))
    assert vis is not None and len(vis) == len(users)
    vis = filter_rows(built, RowFilter(text="STEP 7"))
    assert vis is not None and {built[i].entry_id for i in vis} == {"u0000007", "a0000007"}
    vis = filter_rows(built, RowFilter(type="compaction"))
    assert vis is not None and [built[i].entry_id for i in vis] == ["comp0001"]
    vis = filter_rows(built, RowFilter(problems_only=True))
    assert vis is not None and {built[i].entry_id for i in vis} == {"r0000002", "ovf00001"}
    assert filter_rows(built, RowFilter()) is None


def test_path_rows_are_the_list_rows_built_when_read(tmp_path: Path) -> None:
    """What a load hands the timeline: the same rows as ``build_rows``, each built once."""
    t, _ = _transcript(tmp_path)
    built = build_rows(t, context_window=1000)
    lazy = PathRows(t, 1000)
    assert len(lazy) == len(built)
    assert [lazy.entry_id(n) for n in range(len(lazy))] == [r.entry_id for r in built]
    assert lazy._rows.count(None) == len(built)  # nothing built before it is read
    assert lazy[2] == built[2] and lazy[2] is lazy[2] and lazy[-1] == built[-1]
    assert lazy[1:3] == built[1:3]
    assert tuple(lazy) == built
    assert filter_rows(lazy, RowFilter(text="user")) == filter_rows(built, RowFilter(text="user"))
    model = TimelineModel()
    model.set_rows(lazy, (1, 3))
    assert model.row_of_entry(built[3].entry_id) == 1


def test_timeline_model_adapts_rows(qtmodeltester: Any, tmp_path: Path) -> None:
    t, rows = _transcript(tmp_path)
    model = TimelineModel()
    built = build_rows(t)
    model.set_rows(built)
    qtmodeltester.check(model)
    assert model.rowCount() == len(path_to_root(rows))
    idx = model.index(3)
    assert idx.data(EntryIdRole) == built[3].entry_id
    assert idx.data(ItemRole) is built[3]
    model.set_visible((1, 4))
    assert model.rowCount() == 2
    assert model.index(1).data(EntryIdRole) == built[4].entry_id
    assert model.row_of_entry(built[4].entry_id) == 1
    assert model.row_of_entry(built[0].entry_id) is None
    assert model.index(0).data(MarksRole) == int(built[1].marks)


def test_diagnostics_model_lists_bad_lines(qtmodeltester: Any, tmp_path: Path) -> None:
    rows = small_session().lines
    path = write_rows(tmp_path / "bad.jsonl", rows)
    with path.open("a", encoding="utf-8") as fh:
        fh.write("{not json\n")
    expected_line = len(read_rows_lenient(path))
    t = load_transcript(path)
    model = DiagnosticsModel()
    model.set_rows(t.diagnostics)
    qtmodeltester.check(model)
    assert model.rowCount() >= 1
    lines = [model.index(r, DiagnosticsModel.COL_LINE).data(SortRole) for r in range(model.rowCount())]
    assert expected_line in lines


def read_rows_lenient(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def test_read_rows_helper_matches_file(tmp_path: Path) -> None:
    rows = small_session().lines
    path = write_rows(tmp_path / "s.jsonl", rows)
    assert read_rows(path) == rows
