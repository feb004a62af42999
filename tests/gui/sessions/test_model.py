"""The session tree model: groups, sort keys, labels and filter text, without a window."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from sessionlens.engine import SessionInfo
from sessionlens.gui.roles import FilterRole, SortRole
from sessionlens.gui.sessions.model import SessionTreeModel, group_key, human_size


def _info(path: str, agent: str, project: str | None, entries: int, size: int) -> SessionInfo:
    return SessionInfo(path=Path(path), agent=agent, session_id=Path(path).stem, format="openclaw-v3",
                       entries=entries, compactions=1, size=size, modified=datetime(2026, 1, 2, 3, 4),
                       project=project)


def test_session_tree_groups_and_sorts(qtmodeltester: Any) -> None:
    infos = [_info("/a/one.jsonl", "openclaw", "main", 10, 2048), _info("/a/two.jsonl", "openclaw", "main", 5, 10),
             _info("/b/three.jsonl", "pi", "/home/x", 7, 3 * 1024 * 1024)]
    model = SessionTreeModel()
    model.set_rows(infos)
    qtmodeltester.check(model)
    assert model.rowCount() == 2                              # two groups
    expected = sorted({group_key(i) for i in infos})
    shown = [model.index(r, 0).data() for r in range(model.rowCount())]
    counts = {g: sum(1 for i in infos if group_key(i) == g) for g in expected}
    assert shown == [f"{g}  ({counts[g]})" for g in expected]
    first = model.index(0, 0)
    assert model.rowCount(first) == 2
    child = model.index(0, 1, first)
    assert child.data(SortRole) == 10 and child.data() == "10"
    assert model.index(0, 0, first).data() == "one"                # short label
    assert "/a/one.jsonl" in model.index(0, 0, first).data(FilterRole)
    assert model.session_at(child) is infos[0]
    assert model.session_at(first) is None
    assert model.session_count() == 3
    assert human_size(3 * 1024 * 1024) == "3.0 MB"
