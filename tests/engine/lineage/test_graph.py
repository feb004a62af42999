"""The lineage graph: chains ten deep, checkpoints, restores, archives, foreign paths, samples."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from fixtures.chains import make_chain, make_foreign
from fixtures.factories import TranscriptBuilder, write_rows
from fixtures.scenarios import rich_session
from fixtures.written import read_rows
from sessionlens.engine.cli import main as cli
from sessionlens.engine.lineage.chain import build_chain, chain_to_json
from sessionlens.engine.lineage.graph import branch_outline, build_lineage
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.persist.record import CompactionRecord
from sessionlens.engine.persist.restore import restore_checkpoint
from sessionlens.engine.persist.writer import write_compaction

SAMPLE_04_SID = "76cc5ab5-0425-4038-b41f-0af9f313d594"


def sample_path(samples: Path, prefix: str) -> Path:
    """The sample named ``prefix*`` (local: ``conftest`` is ambiguous beside tests/gui)."""
    found = sorted(samples.glob(f"{prefix}*"))
    if not found:
        pytest.skip(f"sample {prefix}* not found")
    return found[0]


def _compaction_ids(path: Path) -> list[str]:
    return [o["id"] for o in read_rows(path) if o.get("type") == "compaction"]


def test_ten_successors_deep_with_checkpoints(tmp_path: Path) -> None:
    files = make_chain(tmp_path, 10)
    lineage = build_lineage(files.transcripts[5])
    transcripts = lineage.of_kind("transcript")
    assert [n.path for n in transcripts] == files.transcripts
    assert [n.generation for n in transcripts] == list(range(11))
    assert [n.session_id for n in transcripts] == [read_rows(p)[0]["id"]
                                                   for p in files.transcripts]
    succ = [(e.source, e.target) for e in lineage.edges if e.kind == "successor"]
    assert succ == [(f"t:{a}", f"t:{b}") for a, b in zip(files.transcripts,
                                                        files.transcripts[1:], strict=False)]
    # every checkpoint copy is a node, attached to the transcript it was taken of
    cps = {n.path: n for n in lineage.of_kind("checkpoint")}
    assert set(cps) == set(files.checkpoints)
    owner = {e.target: e.source for e in lineage.edges if e.kind == "checkpoint-of"}
    for gen, cp in enumerate(files.checkpoints):
        node = cps[cp]
        assert node.in_store and node.exists
        assert owner[node.key] == f"t:{files.transcripts[gen]}"
        assert node.entry_id == read_rows(cp)[-1]["id"]  # opened at the captured leaf
    # compactions: one node per compaction line of each file; new ones once per generation
    comps = lineage.of_kind("compaction")
    for path in files.transcripts:
        mine = [n for n in comps if n.path == path]
        assert [n.entry_id for n in mine] == _compaction_ids(path)
    assert sum(not n.inherited for n in comps) == 10
    store = json.loads((tmp_path / "sessions.json").read_text())["agent:main:main"]
    last = lineage.node(f"t:{files.transcripts[-1]}")
    assert last.store_key == "agent:main:main"
    assert last.store_compactions == store["compactionCount"]


def test_lineage_reads_the_same_chain_as_the_cli(tmp_path: Path) -> None:
    files = make_chain(tmp_path, 3, store=False)
    chain = build_chain(files.transcripts[1])
    lineage = build_lineage(files.transcripts[1], chain=chain)
    assert lineage.chain is chain
    assert build_lineage(files.transcripts[1]).chain == chain
    cli = chain_to_json(chain)["chain"]
    nodes = lineage.of_kind("transcript")
    assert [(str(n.path), n.session_id, n.compactions) for n in nodes] == [
        (c["path"], c["session_id"], c["compactions"]) for c in cli]


def test_parent_paths_from_another_machine(tmp_path: Path) -> None:
    files = make_chain(tmp_path, 10, store=False)
    make_foreign(files)
    headers = [read_rows(p)[0].get("parentSession") for p in files.transcripts[1:]]
    assert all(h and not Path(h).exists() for h in headers)
    assert any("\\" in h for h in headers) and any(h.startswith("/home/") for h in headers)
    for start in (files.transcripts[0], files.transcripts[7], files.transcripts[-1]):
        lineage = build_lineage(start)
        assert [n.path for n in lineage.of_kind("transcript")] == files.transcripts
        assert not lineage.diagnostics


def test_restored_checkpoint_and_archive_are_in_the_graph(tmp_path: Path) -> None:
    files = make_chain(tmp_path, 4)
    restored = restore_checkpoint(files.checkpoints[2]).successor_path
    assert restored is not None
    archive = tmp_path / f"{files.transcripts[1].name}.reset.2026-03-02T00-00-00.000Z"
    shutil.copyfile(files.transcripts[1], archive)
    lineage = build_lineage(files.transcripts[0])
    node = lineage.node(f"t:{restored}")
    assert node.relation == "restored"
    cp = next(n for n in lineage.of_kind("checkpoint") if n.path == files.checkpoints[2])
    assert node.generation == cp.generation + 1
    assert [(e.source, e.kind) for e in lineage.edges if e.target == node.key] == [
        (cp.key, "restored")]
    # seen from the restored file: the same graph, the checkpoint once, as a checkpoint
    from_fork = build_lineage(restored)
    assert {n.key for n in from_fork.nodes} == {n.key for n in lineage.nodes}
    assert {(e.source, e.target, e.kind) for e in from_fork.edges} == {
        (e.source, e.target, e.kind) for e in lineage.edges}
    assert from_fork.node(cp.key).generation == cp.generation
    assert from_fork.node(node.key).relation == "self"
    # the checkpoint copy keeps its session's header, so that session's parents are the
    # fork's ancestors too; the session itself and its successors are its origin
    assert [from_fork.node(f"t:{p}").relation for p in files.transcripts] == [
        "ancestor", "ancestor", "origin", "origin", "origin"]
    assert len(from_fork.edges) == len(set(from_fork.edges))
    # the fork lives on: compacting it adds its successor and its own checkpoint
    t = load_transcript(restored)
    users = [i for i in t.active_path if t.entry(i).role == "user"]
    res = write_compaction(t, CompactionRecord("## Goal\nfork", users[-1], 7))
    grown = build_lineage(files.transcripts[0])
    assert (f"t:{restored}", f"t:{res.successor_path}", "successor") in {
        (e.source, e.target, e.kind) for e in grown.edges}
    assert (f"t:{restored}", f"k:{res.checkpoint_path}", "checkpoint-of") in {
        (e.source, e.target, e.kind) for e in grown.edges}
    arch = lineage.node(f"a:{archive}")
    assert arch.reason == "reset" and arch.generation == 1
    assert [(e.source, e.kind) for e in lineage.edges if e.target == arch.key] == [
        (f"t:{files.transcripts[1]}", "archive-of")]


def test_v1_fork_edge_and_a_missing_parent(tmp_path: Path) -> None:
    parent = TranscriptBuilder(session_id="sid-p")
    parent.user("hi")
    parent.write(tmp_path / "p.jsonl")
    child = TranscriptBuilder(session_id="sid-c", version=1,
                    parent_session="C:\\Users\\x\\.pi\\sessions\\p.jsonl")
    child.user("forked")
    child.write(tmp_path / "c.jsonl")
    lost = TranscriptBuilder(session_id="sid-l", parent_session="/gone/elsewhere/nowhere.jsonl")
    lost.user("orphan")
    lost.write(tmp_path / "l.jsonl")
    lineage = build_lineage(tmp_path / "c.jsonl")
    assert [(e.source, e.target, e.kind) for e in lineage.edges] == [
        (f"t:{tmp_path / 'p.jsonl'}", f"t:{tmp_path / 'c.jsonl'}", "fork")]
    orphan = build_lineage(tmp_path / "l.jsonl")
    missing, me = orphan.of_kind("transcript")
    assert not missing.exists and missing.path == tmp_path / "nowhere.jsonl"
    assert me.generation == missing.generation + 1
    assert [e.kind for e in orphan.edges] == ["successor"]


def test_loops_do_not_hang_and_missing_parents_show(tmp_path: Path) -> None:
    files = make_chain(tmp_path, 2, store=False)
    objs = read_rows(files.transcripts[0])
    objs[0]["parentSession"] = str(files.transcripts[2])  # the first names the last
    write_rows(files.transcripts[0], objs)
    lineage = build_lineage(files.transcripts[1])
    assert {n.path for n in lineage.of_kind("transcript")} == set(files.transcripts)
    assert any("loops" in d.reason for d in lineage.diagnostics)


def test_branch_outline_folds_side_branches(tmp_path: Path) -> None:
    path, ids = rich_session(tmp_path)
    t = load_transcript(path)
    outline = branch_outline(t)
    assert sum(n.kind == "entry" for n in outline.nodes) == len(read_rows(path)) - 1
    top = [outline.nodes[i].entry_id for i in outline.top]
    assert top == list(t.active_path)
    assert outline.branch_points == (ids["a2"],)
    fold = outline.nodes[outline.nodes[outline.node_of_entry[ids["a2"]]].children[0]]
    assert fold.kind == "branch" and not fold.on_active_path
    assert [outline.nodes[c].entry_id for c in fold.children] == [ids["us"], ids["as"],
                                                                  ids["labs"]]
    assert fold.size == 3 and fold.tip_id == ids["labs"] and fold.label == "side"


def test_branch_summary_and_nested_branches() -> None:
    b = TranscriptBuilder()
    root = b.user("root").id
    b.assistant("a")
    x1 = b.user("try x").id
    tip_x = b.assistant("x failed").id
    b.leaf = x1
    y = b.user("nested y").id  # a branch inside the x branch
    b.branch_summary("tried x; it failed", from_id=tip_x, parent=root)
    b.user("back on main")
    b.assistant("fine")
    t = b.build()
    outline = branch_outline(t)
    folds = outline.branches
    outer = next(f for f in folds if f.entry_id == "00000002")
    assert outer.summary == "tried x; it failed" and outer.size == 4
    # off the active path the newest child continues the line; the older one is folded
    assert outline.nodes[outline.node_of_entry[y]].parent == outline.nodes.index(outer)
    nested = next(f for f in folds if f.entry_id == tip_x)
    assert nested.depth == 1 and outline.nodes[nested.parent].entry_id == x1
    assert [outline.nodes[i].entry_id for i in outline.top] == list(t.active_path)


@pytest.mark.samples
def test_sample_04_with_its_real_store(samples_dir: Path, tmp_path: Path) -> None:
    src = tmp_path / f"{SAMPLE_04_SID}.jsonl"
    shutil.copyfile(sample_path(samples_dir, "04_"), src)
    shutil.copyfile(sample_path(samples_dir, "05_"), tmp_path / "sessions.json")
    store = json.loads((tmp_path / "sessions.json").read_text())
    key = next(k for k, v in store.items() if v.get("sessionId") == SAMPLE_04_SID)
    assert not Path(store[key]["sessionFile"]).exists()  # written on another machine
    lineage = build_lineage(src)
    (node,) = lineage.of_kind("transcript")
    assert node.store_key == key and node.store_compactions == store[key]["compactionCount"]
    assert [n.entry_id for n in lineage.of_kind("compaction")] == _compaction_ids(src)

    t = load_transcript(src)
    cut = [i for i in t.active_path if t.entry(i).role == "user"][-1]
    res = write_compaction(t, CompactionRecord("## Goal\nkeep going", cut, 5000))
    assert res.successor_path is not None and res.checkpoint_path is not None
    after = build_lineage(res.successor_path)
    assert [n.path for n in after.of_kind("transcript")] == [src, res.successor_path]
    (cp,) = after.of_kind("checkpoint")
    assert cp.path == res.checkpoint_path and cp.in_store
    succ_comps = [n for n in after.of_kind("compaction") if n.path == res.successor_path]
    assert [n.entry_id for n in succ_comps] == _compaction_ids(res.successor_path)
    assert Counter(n.inherited for n in succ_comps) == Counter(
        {True: len(_compaction_ids(src)), False: 1})
    store_after = json.loads((tmp_path / "sessions.json").read_text())[key]
    assert after.node(f"t:{res.successor_path}").store_compactions == store_after[
        "compactionCount"]


@pytest.mark.samples
@pytest.mark.parametrize("prefix", ["07_", "09_"])
def test_claude_and_codex_chains_know_their_ids(samples_dir: Path, prefix: str,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    path = sample_path(samples_dir, prefix)
    objs = [json.loads(x) for x in path.read_bytes().split(b"\n") if x.strip()]
    if prefix == "07_":
        sid = next(o["sessionId"] for o in objs if o.get("sessionId"))
        count = sum(o.get("subtype") == "compact_boundary" for o in objs)
    else:
        sid = next(o["payload"]["id"] for o in objs if o.get("type") == "session_meta")
        count = sum(o.get("type") == "compacted" for o in objs)
    (link,) = build_chain(path).links
    assert (link.session_id, link.compactions) == (sid, count)
    assert count > 0
    assert len(build_lineage(path).of_kind("compaction")) == count
    assert cli(["chain", str(path), "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)["chain"]
    assert (row["session_id"], row["compactions"]) == (sid, count)
