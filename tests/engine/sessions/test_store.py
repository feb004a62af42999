"""Reading sessions.json: stale absolute paths resolved here, checkpoints, bad records, errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fixtures.factories import TranscriptBuilder
from fixtures.samples import sample_path
from sessionlens.engine.errors import LoadError
from sessionlens.engine.sessions.store import read_session_store

UUID = "0b0e6c1e-1111-4222-8333-444455556666"


def test_store_resolves_stale_absolute_paths_and_reads_checkpoints(tmp_path: Path) -> None:
    store = tmp_path / "sessions.json"
    here = TranscriptBuilder(session_id=UUID).write(tmp_path / f"{UUID}.jsonl")
    cp = {"checkpointId": "cp1", "sessionKey": "agent:main:main", "sessionId": UUID,
          "createdAt": 5, "reason": "manual", "tokensBefore": 100, "tokensAfter": 10,
          "summary": "S", "firstKeptEntryId": "m1",
          "preCompaction": {"sessionId": UUID,
                            "sessionFile": f"C:\\Users\\x\\sessions\\{UUID}.checkpoint.a.jsonl",
                            "leafId": "m2"},
          "postCompaction": {"sessionId": UUID, "entryId": "c0"}}
    store.write_text(json.dumps({
        "agent:main:main": {"sessionId": UUID, "compactionCount": 4, "updatedAt": 9,
                            "sessionFile": f"/home/other/.clawdbot/agents/main/sessions/{UUID}.jsonl",
                            "compactionCheckpoints": [cp, "junk"]},
        "cron:x": {"sessionId": "nofile"},
        "bad": 3,
    }))
    s = read_session_store(store)
    main = s.by_key("agent:main:main")
    assert main is not None and main.session_file == here and main.session_file_exists
    assert main.compaction_count == 4 and main.updated_at == 9
    [c] = main.checkpoints
    assert (c.checkpoint_id, c.reason, c.tokens_before, c.tokens_after) == ("cp1", "manual",
                                                                            100, 10)
    assert c.pre is not None and c.pre.session_file == tmp_path / f"{UUID}.checkpoint.a.jsonl"
    assert c.pre.leaf_id == "m2" and c.post is not None and c.post.entry_id == "c0"
    cron = s.by_session_id("nofile")
    assert cron is not None and cron.session_file == tmp_path / "nofile.jsonl"
    assert not cron.session_file_exists
    assert len(s.diagnostics) == 2  # "junk" checkpoint and the "bad" record


def test_store_errors(tmp_path: Path) -> None:
    with pytest.raises(LoadError, match="is a directory"):
        read_session_store(tmp_path)
    bad = tmp_path / "sessions.json"
    bad.write_text("{oops")
    with pytest.raises(LoadError, match="not valid JSON"):
        read_session_store(bad)
    bad.write_text("[]")
    with pytest.raises(LoadError, match="JSON object"):
        read_session_store(bad)


@pytest.mark.samples
def test_sample_store_points_at_sample_04_by_basename(samples_dir: Path, tmp_path: Path) -> None:
    src = sample_path(samples_dir, "05_")
    raw = json.loads(src.read_text())
    store = tmp_path / "sessions.json"
    store.write_bytes(src.read_bytes())
    s = read_session_store(store)
    assert [r.session_key for r in s.records] == list(raw)
    assert [r.compaction_count for r in s.records] == [v.get("compactionCount", 0)
                                                       for v in raw.values()]
    main = s.by_key("agent:main:main")
    assert main is not None and main.session_file_raw is not None
    assert main.session_file_raw.startswith("/home/admin/.clawdbot/")
    assert main.session_file == tmp_path / Path(main.session_file_raw).name
