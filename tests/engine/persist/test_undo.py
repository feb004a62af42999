"""Undo a compaction SessionLens wrote: the checkpoint restored, the store repointed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fixtures.factories import TranscriptBuilder
from fixtures.scenarios import STORE_KEY, store_session
from sessionlens.engine.errors import PersistError
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.persist.undo import plan_undo, undo_compaction
from sessionlens.engine.persist.writer import write_compaction


def test_undo_restores_the_checkpoint_and_repoints_the_store(tmp_path: Path) -> None:
    src, store, record = store_session(tmp_path)
    wrote = write_compaction(load_transcript(src), record, "successor")
    assert wrote.successor_path is not None and wrote.checkpoint_path is not None
    successor = load_transcript(wrote.successor_path)
    plan = plan_undo(successor)
    assert plan.checkpoint == wrote.checkpoint_path
    assert plan.store_keys == (STORE_KEY,)
    assert any(plan.restore.target.name in c and STORE_KEY in c for c in plan.changes)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.name != store.name}
    result = undo_compaction(plan)
    assert result.successor_path == plan.restore.target
    rec = json.loads(store.read_text())[STORE_KEY]
    assert rec["sessionFile"].endswith(plan.restore.target.name)
    assert rec["sessionId"] == load_transcript(plan.restore.target).session_id
    restored = load_transcript(plan.restore.target)
    assert [e.id for e in restored.entries] == [e.id for e in load_transcript(src).entries]
    # nothing existing was changed but the store
    assert all((tmp_path / n).read_bytes() == b for n, b in before.items())


def test_a_compaction_of_another_writer_cannot_be_undone(tmp_path: Path) -> None:
    b = TranscriptBuilder()
    kept = b.user("hi").id
    b.compaction("someone else's summary", kept)
    t = load_transcript(b.write(tmp_path / "s.jsonl"))
    with pytest.raises(PersistError, match="not written by SessionLens"):
        plan_undo(t)
