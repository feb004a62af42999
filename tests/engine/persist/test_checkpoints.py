"""Checkpoint copies, store records (at most 25) and restoring from a checkpoint."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path

from fixtures.factories import SESSION_ID, TranscriptBuilder
from fixtures.scenarios import rich_session
from fixtures.written import SUCCESSOR_NAME, assert_strict_v3, read_rows
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.persist.checkpoints import MAX_CHECKPOINTS
from sessionlens.engine.persist.record import CompactionRecord
from sessionlens.engine.persist.restore import restore_checkpoint
from sessionlens.engine.persist.writer import write_compaction

CHECKPOINT_NAME = re.compile(rf"^{SESSION_ID}\.checkpoint\.[0-9a-f-]{{36}}\.jsonl$")


def _record(ids: dict[str, str]) -> CompactionRecord:
    return CompactionRecord("sum", ids["u2"], 500, 50,
                            summarized_entry_ids=tuple(ids[n] for n in ("u1", "a1", "tr1", "a2")))


def test_checkpoint_is_an_exact_copy_with_the_leaf(tmp_path: Path) -> None:
    src, ids = rich_session(tmp_path)
    t = load_transcript(src)
    res = write_compaction(t, _record(ids), "append")
    assert res.checkpoint_path is not None and CHECKPOINT_NAME.match(res.checkpoint_path.name)
    cp = load_transcript(res.checkpoint_path)
    assert cp.leaf_id == ids["a6"] == t.leaf_id
    # The copy is the pre-compaction file; the original now has one more line.
    original_lines = src.read_bytes().split(b"\n")
    assert res.checkpoint_path.read_bytes() == b"\n".join(original_lines[:-2]) + b"\n"


def test_store_records_are_capped_at_25(tmp_path: Path) -> None:
    src, ids = rich_session(tmp_path)
    old = [{"checkpointId": f"old-{i}", "sessionKey": "k", "sessionId": SESSION_ID,
            "createdAt": i, "reason": "auto-threshold",
            "preCompaction": {"sessionId": SESSION_ID}, "postCompaction": {"sessionId": "x"}}
           for i in range(MAX_CHECKPOINTS)]
    store = tmp_path / "sessions.json"
    store.write_text(json.dumps({"k": {"sessionId": SESSION_ID, "sessionFile": src.name,
                                       "compactionCount": 7, "compactionCheckpoints": old},
                                 "other": {"sessionId": "zzz"}}, indent=2))
    res = write_compaction(load_transcript(src), _record(ids),
                           now=datetime(2026, 5, 1, tzinfo=UTC))
    rec = json.loads(store.read_text())["k"]
    cps = rec["compactionCheckpoints"]
    assert len(cps) == MAX_CHECKPOINTS
    assert cps[0]["checkpointId"] == "old-1" and cps[-2]["checkpointId"] == f"old-{MAX_CHECKPOINTS - 1}"
    assert cps[-1]["createdAt"] == int(datetime(2026, 5, 1, tzinfo=UTC).timestamp() * 1000)
    assert rec["compactionCount"] == 8
    # A bare sessionFile stays a bare name, now the successor's.
    assert res.successor_path is not None and rec["sessionFile"] == res.successor_path.name
    assert json.loads(store.read_text())["other"] == {"sessionId": "zzz"}


def test_append_mode_keeps_the_session_pointer(tmp_path: Path) -> None:
    src, ids = rich_session(tmp_path)
    store = tmp_path / "sessions.json"
    store.write_text(json.dumps({"k": {"sessionId": SESSION_ID}}))
    res = write_compaction(load_transcript(src), _record(ids), "append")
    rec = json.loads(store.read_text())["k"]
    assert rec["sessionId"] == SESSION_ID and "sessionFile" not in rec
    assert rec["compactionCount"] == 1
    post = rec["compactionCheckpoints"][0]["postCompaction"]
    assert post["sessionFile"] == str(src) and post["entryId"] == res.compaction_entry_id


def test_store_without_this_session_is_left_alone(tmp_path: Path) -> None:
    src, ids = rich_session(tmp_path)
    store = tmp_path / "sessions.json"
    store.write_text('{"k": {"sessionId": "someone-else"}}')
    res = write_compaction(load_transcript(src), _record(ids))
    assert store.read_text() == '{"k": {"sessionId": "someone-else"}}'
    assert res.store_path is None and store not in res.written


def test_restore_copies_entries_verbatim(tmp_path: Path) -> None:
    src, ids = rich_session(tmp_path)
    res = write_compaction(load_transcript(src), _record(ids))
    assert res.checkpoint_path is not None
    restored = restore_checkpoint(res.checkpoint_path, now=datetime(2026, 6, 1, tzinfo=UTC))
    (out,) = restored.written
    assert SUCCESSOR_NAME.match(out.name) and out.parent == tmp_path
    head = read_rows(out)[0]
    assert head["parentSession"] == str(res.checkpoint_path) and head["version"] == 3
    assert head["id"] == restored.session_id != SESSION_ID
    assert out.read_bytes().split(b"\n")[1:] == res.checkpoint_path.read_bytes().split(b"\n")[1:]
    assert_strict_v3(out)
    assert load_transcript(out).leaf_id == ids["a6"]


def test_restore_migrates_v1(tmp_path: Path) -> None:
    b = TranscriptBuilder(version=1)
    b.user("one")
    b.assistant("two")
    b.lines.append({"type": "message", "timestamp": "2026-02-01T10:00:09.000Z",
                    "message": {"role": "hookMessage", "customType": "h", "content": "c",
                                "display": True, "timestamp": 5}})
    src = b.write(tmp_path / "legacy.jsonl")
    restored = restore_checkpoint(src)
    entries = assert_strict_v3(restored.written[0])
    t = load_transcript(src)
    assert [e["id"] for e in entries] == [e.id for e in t.entries]
    assert entries[1]["parentId"] == entries[0]["id"]
    assert entries[2]["message"]["role"] == "custom"
    assert src.read_bytes() == b.write(tmp_path / "again.jsonl").read_bytes()


def test_undo_moves_the_store_back_to_the_restored_history(tmp_path: Path) -> None:
    """restore(repoint=successor): records that pointed at the undone successor follow the
    restored file; everything else in the store stays byte-for-byte as it was."""
    src, ids = rich_session(tmp_path)
    store = tmp_path / "sessions.json"
    store.write_text(json.dumps({"k": {"sessionId": SESSION_ID, "sessionFile": src.name,
                                       "label": "keep me"},
                                 "other": {"sessionId": "zzz", "sessionFile": "zzz.jsonl"}},
                                indent=2))
    res = write_compaction(load_transcript(src), _record(ids))
    assert res.checkpoint_path is not None and res.successor_path is not None
    after_compaction = json.loads(store.read_text())
    assert after_compaction["k"]["sessionFile"] == res.successor_path.name

    undone = restore_checkpoint(res.checkpoint_path, repoint=res.successor_path)
    assert undone.successor_path is not None and store in undone.written
    rec = json.loads(store.read_text())
    assert rec["k"]["sessionFile"] == undone.successor_path.name
    assert rec["k"]["sessionId"] == undone.session_id
    assert rec["k"]["label"] == "keep me"
    assert rec["k"]["compactionCheckpoints"] == after_compaction["k"]["compactionCheckpoints"]
    assert rec["other"] == {"sessionId": "zzz", "sessionFile": "zzz.jsonl"}
    assert load_transcript(undone.successor_path).leaf_id == ids["a6"]


def test_restore_without_repoint_leaves_the_store_alone(tmp_path: Path) -> None:
    src, ids = rich_session(tmp_path)
    store = tmp_path / "sessions.json"
    store.write_text(json.dumps({"k": {"sessionId": SESSION_ID, "sessionFile": src.name}}))
    res = write_compaction(load_transcript(src), _record(ids))
    assert res.checkpoint_path is not None
    before = store.read_bytes()
    restored = restore_checkpoint(res.checkpoint_path)
    assert store.read_bytes() == before and restored.written == (restored.successor_path,)
