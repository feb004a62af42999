"""Chains of transcripts: parentSession back, successors forward, checkpoints, archives."""

from __future__ import annotations

import json
from pathlib import Path

from fixtures.factories import SESSION_ID, TranscriptBuilder
from fixtures.scenarios import rich_session
from sessionlens.engine.lineage.chain import build_chain
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.persist.record import CompactionRecord
from sessionlens.engine.persist.writer import write_compaction


def _small(path: Path, sid: str, parent: str | None = None, version: int = 3,
           compactions: int = 0) -> Path:
    b = TranscriptBuilder(session_id=sid, parent_session=parent, version=version)
    b.user("hi")
    b.assistant("hello")
    for _ in range(compactions):
        b.compaction("s", b.leaf, 1)
    return b.write(path)


def test_chain_back_and_forward_with_foreign_paths(tmp_path: Path) -> None:
    a = _small(tmp_path / "a.jsonl", "sid-a")
    b = _small(tmp_path / "b.jsonl", "sid-b", "/home/elsewhere/.openclaw/sessions/a.jsonl", 3, 2)
    c = _small(tmp_path / "c.jsonl", "sid-c", str(b), 3, 1)
    _small(tmp_path / "unrelated.jsonl", "sid-u", "/x/zzz.jsonl")
    for start in (a, b, c):
        chain = build_chain(start)
        assert [link.path for link in chain.links] == [a, b, c]
        assert [link.session_id for link in chain.links] == ["sid-a", "sid-b", "sid-c"]
        assert [link.parent for link in chain.links] == [None, a, b]
        assert [link.compactions for link in chain.links] == [0, 2, 1]
        assert [link.relation for link in chain.links].count("self") == 1
    assert build_chain(b).links[1].relation == "self"


def test_v1_branched_from_and_missing_parent(tmp_path: Path) -> None:
    child = _small(tmp_path / "child.jsonl", "sid-c", "/gone/parent.jsonl", version=1)
    chain = build_chain(child)
    assert [link.exists for link in chain.links] == [False, True]
    assert chain.links[0].path.name == "parent.jsonl"
    assert any("not found" in d.reason for d in chain.diagnostics)


def test_cycles_are_guarded(tmp_path: Path) -> None:
    x = tmp_path / "x.jsonl"
    y = tmp_path / "y.jsonl"
    _small(x, "sid-x", str(y))
    _small(y, "sid-y", str(x))
    chain = build_chain(x)
    assert sorted(link.path.name for link in chain.links) == ["x.jsonl", "y.jsonl"]
    assert any("loops" in d.reason for d in chain.diagnostics)


def test_checkpoints_and_archives_are_listed(tmp_path: Path) -> None:
    src, ids = rich_session(tmp_path)
    (tmp_path / "sessions.json").write_text(json.dumps({"agent:main:main": {
        "sessionId": SESSION_ID, "sessionFile": f"/other/host/{src.name}"}}, indent=2))
    rec = CompactionRecord("s", ids["u2"], 10, summarized_entry_ids=(ids["u1"], ids["a1"]))
    res = write_compaction(load_transcript(src), rec)
    stray = tmp_path / f"{SESSION_ID}.checkpoint.11111111-2222-4333-8444-555555555555.jsonl"
    stray.write_bytes(src.read_bytes())
    archive = tmp_path / f"{src.name}.reset.2026-01-01T00-00-00.000Z"
    archive.write_bytes(b"{}\n")
    (tmp_path / "other.jsonl.reset.2026-01-01T00-00-00.000Z").write_bytes(b"{}\n")

    assert res.successor_path is not None
    chain = build_chain(res.successor_path)
    assert [link.path for link in chain.links] == [src, res.successor_path]
    assert chain.links[1].compactions == 1
    by_path = {c.path: c for c in chain.checkpoints}
    assert set(by_path) == {res.checkpoint_path, stray}
    recorded = by_path[res.checkpoint_path]
    assert recorded.in_store and recorded.file_exists and recorded.reason == "manual"
    assert recorded.leaf_id == ids["a6"] and recorded.session_key == "agent:main:main"
    assert not by_path[stray].in_store and by_path[stray].session_id == SESSION_ID
    assert chain.archives == (archive,)


def test_a_checkpoint_copy_without_a_store_record_still_names_its_leaf(tmp_path: Path) -> None:
    """QA: ``chain`` printed ``leaf ?`` for every checkpoint no sessions.json describes,
    though the copy's last line names it; a torn last line is passed over."""
    src, ids = rich_session(tmp_path)
    res = write_compaction(load_transcript(src), CompactionRecord("s", ids["u2"], 10),
                           store_path=None)
    assert res.checkpoint_path is not None and res.successor_path is not None
    torn = tmp_path / f"{SESSION_ID}.checkpoint.11111111-2222-4333-8444-555555555555.jsonl"
    torn.write_bytes(src.read_bytes() + b'{"type":"message","id":"half')
    v1 = _small(tmp_path / "v1.jsonl", "v1-sid", version=1)
    (tmp_path / "v1-sid.checkpoint.21111111-2222-4333-8444-555555555555.jsonl").write_bytes(
        v1.read_bytes())
    last_id = json.loads(src.read_text().splitlines()[-1])["id"]
    by_path = {c.path: c for c in build_chain(res.successor_path).checkpoints}
    assert by_path[res.checkpoint_path].leaf_id == last_id == load_transcript(src).leaf_id
    assert by_path[torn].leaf_id == last_id
    v1_cps = build_chain(v1).checkpoints
    assert len(v1_cps) == 1 and v1_cps[0].leaf_id is None  # v1 ids exist only once loaded
