"""FileMark/follow: appends are told apart from rewrites, truncations and removals."""

from __future__ import annotations

import os
from pathlib import Path

from sessionlens.engine.live.tail import follow, mark_file


def test_an_append_gives_the_new_complete_lines_only(tmp_path: Path) -> None:
    f = tmp_path / "s.jsonl"
    f.write_bytes(b'{"a":1}\n{"b":2}\n')
    mark = mark_file(f)
    assert (mark.lines, mark.complete_to) == (2, 16)
    with open(f, "ab") as fh:
        fh.write(b'{"c":3}\n{"d":')  # the second line is still being written
    change = follow(f, mark)
    assert change.kind == "appended" and change.data == b'{"c":3}\n'
    assert (change.offset, change.first_line) == (16, 3)
    assert change.mark is not None
    with open(f, "ab") as fh:
        fh.write(b'4}\n')
    later = follow(f, change.mark)
    assert later.kind == "appended" and later.data == b'{"d":4}\n' and later.first_line == 4
    assert later.mark is not None and follow(f, later.mark).kind == "none"


def test_a_half_line_alone_is_no_change_yet(tmp_path: Path) -> None:
    f = tmp_path / "s.jsonl"
    f.write_bytes(b'{"a":1}\n')
    mark = mark_file(f)
    with open(f, "ab") as fh:
        fh.write(b'{"b"')
    change = follow(f, mark)
    assert change.kind == "none" and change.mark is not None
    assert change.mark.complete_to == mark.complete_to


def test_truncation_replacement_and_removal_are_not_appends(tmp_path: Path) -> None:
    f = tmp_path / "s.jsonl"
    f.write_bytes(b'{"a":1}\n{"b":2}\n')
    mark = mark_file(f)
    f.write_bytes(b'{"a":1}\n')  # truncated in place
    assert follow(f, mark).kind == "rewritten"
    f.write_bytes(b'{"x":1}\n{"y":2}\n{"z":3}\n')  # same inode, other first bytes, grown
    assert follow(f, mark).kind == "rewritten"
    g = tmp_path / "new.jsonl"
    g.write_bytes(b'{"a":1}\n{"b":2}\n{"c":3}\n')
    os.replace(g, f)  # an atomic rewrite: another inode
    assert follow(f, mark).kind == "rewritten"
    f.unlink()
    assert follow(f, mark).kind == "removed"
