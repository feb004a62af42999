"""A write's dry run names the real files and measures the written result before writing."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from fixtures.factories import TranscriptBuilder, text_of
from fixtures.samples import sample_path
from sessionlens.engine.compaction import write_prepared
from sessionlens.engine.errors import AuditGateError, FileChangedError, PersistError
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.persist.dry_run import plan_write
from sessionlens.engine.persist.record import CompactionRecord
from sessionlens.engine.persist.writer import write_compaction
from sessionlens.engine.plan.planner import plan_compaction
from sessionlens.engine.settings import DEFAULT_SETTINGS
from sessionlens.engine.tokens.context import context_estimate


def _session(folder: Path) -> Path:
    b = TranscriptBuilder(plain_users=True)
    for k in range(12):
        b.user(f"step {k} " + text_of(3_000))
        call = b.call("read", call_id=f"c{k}", path=f"/a/{k}.py")
        b.assistant("looking", call, usage=15)
        b.result(call, text_of(5_000))
        b.assistant("noted " + text_of(500), usage=15)
    return b.write(folder / "session.jsonl")


def _record(path: Path, **kw: object) -> CompactionRecord:
    t = load_transcript(path)
    plan = plan_compaction(t, DEFAULT_SETTINGS, keep_recent_tokens=8_000)
    fields = dict(summary="## Goal\nship it", first_kept_entry_id=plan.first_kept_entry_id,
                  tokens_before=plan.tokens_before, audit_passed=True)
    fields.update(kw)
    return CompactionRecord(**fields)  # type: ignore[arg-type]


def test_successor_dry_run_is_what_the_write_writes(tmp_path: Path) -> None:
    path = _session(tmp_path)
    t = load_transcript(path)
    record = _record(path)
    prepared = plan_write(t, record, "successor")
    assert set(tmp_path.iterdir()) == {path}  # nothing written by the dry run
    result = write_compaction(t, prepared.record, "successor", names=prepared.names)
    assert set(result.written) == set(prepared.written_paths)
    successor = load_transcript(result.successor_path)  # type: ignore[arg-type]
    compaction = successor.entries[-1]
    assert compaction.type == "compaction" and compaction.id == prepared.compaction_entry_id
    assert compaction.first_kept_entry_id == prepared.first_kept_entry_id
    # the successor keeps the last summarized assistant turn: the first kept moved back to it
    assert prepared.first_kept_entry_id != record.first_kept_entry_id
    assert successor.entry(prepared.first_kept_entry_id).role == "assistant"
    # "tokens after" is what inspect of the written file says, not a second estimate
    assert context_estimate(successor) == prepared.tokens_after
    assert len(successor.entries) == len(t.entries) - prepared.entries_removed + 1
    assert successor.session_id == prepared.session_id
    assert prepared.record.tokens_after == prepared.tokens_after


def test_append_dry_run_keeps_the_cut_and_measures_the_appended_file(tmp_path: Path) -> None:
    path = _session(tmp_path)
    t = load_transcript(path)
    prepared = plan_write(t, _record(path), "append")
    assert [f.kind for f in prepared.files] == ["checkpoint", "append"]
    write_compaction(t, prepared.record, "append", names=prepared.names)
    after = load_transcript(path)
    assert after.entries[-1].first_kept_entry_id == prepared.first_kept_entry_id
    assert context_estimate(after) == prepared.tokens_after and prepared.entries_removed == 0


def test_the_audit_gate_writes_nothing_unless_accepted(tmp_path: Path) -> None:
    path = _session(tmp_path)
    t = load_transcript(path)
    prepared = plan_write(t, _record(path, audit_passed=False,
                                     failed_checks=("sections", "latest_ask")), "successor")
    before = {p: p.read_bytes() for p in tmp_path.iterdir()}
    with pytest.raises(AuditGateError, match="sections, latest_ask") as caught:
        write_prepared(t, prepared)
    assert caught.value.failed_checks == ("sections", "latest_ask")
    assert {p: p.read_bytes() for p in tmp_path.iterdir()} == before
    result = write_prepared(t, prepared, accept_failed_audit=True)
    assert result.successor_path is not None and result.successor_path.exists()


def test_dry_run_refuses_where_the_write_would(tmp_path: Path) -> None:
    path = _session(tmp_path)
    t = load_transcript(path)
    with path.open("a", encoding="utf-8") as fh:
        fh.write("\n")
    with pytest.raises(FileChangedError):
        plan_write(t, _record(path), "successor")


@pytest.mark.samples
def test_a_claude_code_dry_run_names_the_new_session_and_refuses_an_append(
        samples_dir: Path, tmp_path: Path) -> None:
    src = sample_path(samples_dir, "07_")
    copy = tmp_path / src.name
    shutil.copyfile(src, copy)
    t = load_transcript(copy)
    record = CompactionRecord(summary="x", first_kept_entry_id=None, tokens_before=1)
    plan = plan_write(t, record, "successor")
    assert [f.kind for f in plan.files] == ["successor"]          # no checkpoint, no store
    assert plan.files[0].path == tmp_path / f"{plan.session_id}.jsonl"
    assert "new Claude Code session" in plan.files[0].note
    with pytest.raises(PersistError, match="Claude Code"):
        plan_write(t, record, "append")
