"""The recall scope: a session named by path, file name or id inside it; anything outside
(``..``, a link out, an absolute path elsewhere) refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixtures.factories import TranscriptBuilder
from sessionlens.engine.errors import LoadError, ScopeError
from sessionlens.engine.recall.scope import RecallScope

SID = "0badc0de-0000-4000-8000-000000000001"


@pytest.fixture
def tree(tmp_path: Path) -> tuple[RecallScope, Path, Path]:
    inside = tmp_path / "root" / "proj"
    inside.mkdir(parents=True)
    b = TranscriptBuilder(session_id=SID)
    b.user("hello")
    b.assistant("hi")
    mine = b.write(inside / "mine.jsonl")
    other = tmp_path / "other"
    other.mkdir()
    theirs = b.write(other / "theirs.jsonl")
    return RecallScope.of([tmp_path / "root", tmp_path / "missing"]), mine, theirs


def test_a_session_by_path_name_or_id(tree: tuple[RecallScope, Path, Path]) -> None:
    scope, mine, _ = tree
    assert scope.roots == (mine.parents[1].resolve(),)  # the missing root is dropped
    for name in (str(mine), "proj/mine.jsonl", "mine.jsonl", "mine", SID):
        assert scope.resolve(name) == mine.resolve()


def test_outside_is_refused(tree: tuple[RecallScope, Path, Path]) -> None:
    scope, mine, theirs = tree
    link = mine.parent / "link.jsonl"
    link.symlink_to(theirs)
    for name in (str(theirs), "../other/theirs.jsonl", str(link), "theirs.jsonl", ""):
        with pytest.raises(ScopeError):
            scope.resolve(name)
    assert not scope.contains(theirs) and scope.contains(mine)
    with pytest.raises(LoadError):
        scope.resolve(str(mine.parent))  # a folder inside is no transcript
