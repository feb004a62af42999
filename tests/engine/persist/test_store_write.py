"""sessions.json edits: only the touched fields change, the rest stays byte-for-byte."""

from __future__ import annotations

import difflib
import json
from pathlib import Path
from typing import Any

import pytest

from fixtures.samples import sample_path
from fixtures.written import path_to_root, read_rows
from sessionlens.engine.errors import LockHeldError
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.persist.guard import lock_path_for
from sessionlens.engine.persist.record import CompactionRecord
from sessionlens.engine.persist.store_write import (
    detect_layout,
    matching_session_keys,
    splice_store,
    update_store,
)
from sessionlens.engine.persist.writer import write_compaction

TOUCHED = ("sessionId", "sessionFile", "compactionCount", "compactionCheckpoints")


def _changed_old_lines(old: str, new: str) -> list[str]:
    sm = difflib.SequenceMatcher(a=old.splitlines(), b=new.splitlines(), autojunk=False)
    out: list[str] = []
    for tag, i1, i2, _j1, _j2 in sm.get_opcodes():
        if tag in ("replace", "delete"):
            out.extend(old.splitlines()[i1:i2])
    return out


def test_splice_changes_only_named_values() -> None:
    store = {"a": {"sessionId": "s1", "n": 1.5e-07, "deep": {"x": [1, 2]}, "last": True},
             "b": {"sessionId": "s2", "keep": "é"}}
    text = json.dumps(store, indent=2, ensure_ascii=False).replace("1.5e-07", "1.5e-7")
    new = splice_store(text, {"a": {"sessionId": "S", "extra": {"k": [1]}}})
    assert json.loads(new)["a"] == {**json.loads(text)["a"], "sessionId": "S",
                                    "extra": {"k": [1]}}
    assert json.loads(new)["b"] == store["b"]
    assert "1.5e-7" in new  # an untouched number keeps its spelling
    assert list(json.loads(new)["a"]) == ["sessionId", "n", "deep", "last", "extra"]
    changed = _changed_old_lines(text, new)
    assert changed == ['    "sessionId": "s1",', '    "last": true']


@pytest.mark.parametrize("dumps", [
    lambda o: json.dumps(o),
    lambda o: json.dumps(o, separators=(",", ":")),
    lambda o: json.dumps(o, indent="\t") + "\n",
    lambda o: json.dumps(o, indent=4),
])
def test_splice_keeps_layout(dumps: Any) -> None:
    store = {"k": {"sessionId": "old", "compactionCount": 2}, "z": {"sessionId": "q"}}
    text = dumps(store)
    new = splice_store(text, {"k": {"compactionCount": 3, "compactionCheckpoints": [{"a": 1}]}})
    want = {"k": {"sessionId": "old", "compactionCount": 3, "compactionCheckpoints": [{"a": 1}]},
            "z": {"sessionId": "q"}}
    assert json.loads(new) == want
    assert new == dumps(want)  # same layout as a fresh dump in that style
    assert detect_layout(new).final_newline == text.endswith("\n")


def test_matching_by_file_name_or_id() -> None:
    store = {"a": {"sessionId": "x", "sessionFile": "C:\\Users\\me\\s\\f.jsonl"},
             "b": {"sessionId": "sid"}, "c": {"sessionId": "sid", "sessionFile": "other.jsonl"},
             "d": "not a record"}
    assert matching_session_keys(store, Path("/here/f.jsonl"), "nope") == ["a"]
    assert matching_session_keys(store, Path("/here/sid.jsonl"), "sid") == ["b"]


def test_update_store_refuses_a_live_store_lock(tmp_path: Path) -> None:
    import os
    store = tmp_path / "sessions.json"
    store.write_text('{"k": {"sessionId": "a"}}')
    lock_path_for(store).write_text(json.dumps({"pid": os.getpid()}))
    with pytest.raises(LockHeldError):
        update_store(store, lambda obj: {"k": {"sessionId": "b"}})
    assert store.read_text() == '{"k": {"sessionId": "a"}}'


def test_empty_edit_writes_nothing(tmp_path: Path) -> None:
    store = tmp_path / "sessions.json"
    store.write_text('{"k": {"sessionId": "a"}}')
    mtime = store.stat().st_mtime_ns
    assert update_store(store, lambda obj: {}) == {}
    assert store.stat().st_mtime_ns == mtime


@pytest.mark.samples
def test_real_store_with_sample_04(samples_dir: Path, tmp_path: Path) -> None:
    store_src = sample_path(samples_dir, "05_")
    t_src = sample_path(samples_dir, "04_")
    old_text = store_src.read_text(encoding="utf-8")
    old = json.loads(old_text)
    key = next(k for k, v in old.items() if str(v.get("sessionFile", "")).endswith(
        "76cc5ab5-0425-4038-b41f-0af9f313d594.jsonl"))
    store = tmp_path / "sessions.json"
    store.write_bytes(store_src.read_bytes())
    src = tmp_path / "76cc5ab5-0425-4038-b41f-0af9f313d594.jsonl"
    src.write_bytes(t_src.read_bytes())

    lines = read_rows(src)[1:]
    by_id = {e["id"]: e for e in lines}
    path = path_to_root(lines, lines[-1]["id"])
    first_kept = [i for i in path if by_id[i]["type"] == "message"
                  and by_id[i]["message"]["role"] == "user"][-2]
    summarized = tuple(i for i in path[:path.index(first_kept)] if by_id[i]["type"] == "message")
    rec = CompactionRecord("the summary", first_kept, 14000, 3000,
                           summarized_entry_ids=summarized, provider="offline")
    res = write_compaction(load_transcript(src), rec)
    assert res.store_path == store and res.successor_path is not None
    new_text = store.read_text(encoding="utf-8")
    new = json.loads(new_text)

    # Nothing else changed: every other record, and every untouched field of this one.
    assert {k: v for k, v in new.items() if k != key} == {k: v for k, v in old.items()
                                                          if k != key}
    assert {k: v for k, v in new[key].items() if k not in TOUCHED} == {
        k: v for k, v in old[key].items() if k not in TOUCHED}
    assert list(new) == list(old)
    assert list(new[key])[:len(old[key])] == list(old[key])
    # Byte level: only the three moved values and the comma after the old last field.
    changed = _changed_old_lines(old_text, new_text)
    assert len(changed) == 4
    assert all(any(f'"{f}"' in line for f in TOUCHED + ("memoryFlushCompactionCount",))
               for line in changed)
    assert new_text.endswith("}") and not new_text.endswith("\n")

    # Counters and pointers moved to the successor; one checkpoint record in §2.6 shape.
    succ_head = read_rows(res.successor_path)[0]
    assert new[key]["sessionId"] == succ_head["id"]
    assert new[key]["sessionFile"] == str(res.successor_path)
    assert new[key]["compactionCount"] == old[key]["compactionCount"] + 1
    (cp,) = new[key]["compactionCheckpoints"]
    assert cp["sessionKey"] == key and cp["reason"] == "manual"
    assert cp["sessionId"] == old[key]["sessionId"] and cp["tokensBefore"] == 14000
    assert cp["tokensAfter"] == 3000 and cp["summary"] == "the summary"
    assert cp["firstKeptEntryId"] == res.first_kept_entry_id
    assert cp["preCompaction"] == {"sessionId": old[key]["sessionId"],
                                   "sessionFile": str(res.checkpoint_path),
                                   "leafId": lines[-1]["id"]}
    assert cp["postCompaction"] == {"sessionId": succ_head["id"],
                                    "sessionFile": str(res.successor_path),
                                    "leafId": res.compaction_entry_id,
                                    "entryId": res.compaction_entry_id}
    assert isinstance(cp["createdAt"], int) and cp["createdAt"] > 1_700_000_000_000
    assert res.checkpoint_path is not None
    assert res.checkpoint_path.read_bytes() == t_src.read_bytes() == src.read_bytes()
