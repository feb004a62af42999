"""Audits of recorded compactions: every kind alike, and a successor's span read from its
predecessor file."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from fixtures.sample_writes import WRITABLE_SAMPLES, WrittenSample, run_cli_json
from fixtures.samples import sample_path
from fixtures.scenarios import rich_session
from fixtures.written import path_to_root, read_rows
from sessionlens.engine.audit.recorded import (
    audit_compaction_in_chain,
    audit_every_compaction,
    predecessor_span,
)
from sessionlens.engine.audit.report import audit_compaction
from sessionlens.engine.cli import main
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.persist.record import CompactionRecord
from sessionlens.engine.persist.writer import write_compaction

SUMMARY = ("## Goal\n- read the config file, check the tests\n## Constraints & Preferences\n"
           "(none)\n## Progress\n### Done\n- [x] config read\n### In Progress\n(none)\n"
           "### Blocked\n(none)\n## Key Decisions\n(none)\n## Next Steps\n1. write the release "
           "notes\n## Critical Context\n- all 3 tests pass\n")


def _successor(tmp_path: Path, cut: str | None) -> tuple[Path, Path, str, dict[str, str]]:
    """The rich session and a successor written from it (``cut``: a key of its ids, or None
    for a hard boundary)."""
    src, ids = rich_session(tmp_path)
    record = CompactionRecord(SUMMARY, None if cut is None else ids[cut], 500,
                              provider="offline", model="extractive")
    written = write_compaction(load_transcript(src), record, "successor", store_path=None)
    assert written.successor_path is not None and written.compaction_entry_id is not None
    return src, written.successor_path, written.compaction_entry_id, ids


def _path_ids_before(src: Path, stop: str | None) -> list[str]:
    """Active-path message ids of the original up to ``stop`` (all for None), by hand."""
    rows = read_rows(src)[1:]
    by_id = {r["id"]: r for r in rows}
    chain = path_to_root(rows)
    if stop is not None:
        chain = chain[:chain.index(stop)]
    return [i for i in chain if by_id[i]["type"] == "message"]


@pytest.mark.parametrize("cut", [None, "u3"])
def test_successor_compaction_is_audited_against_the_predecessor(tmp_path: Path,
                                                                 cut: str | None) -> None:
    """QA: `audit SUCCESSOR` passed "0 of 0 identifiers; no user request in the span": the
    summarized messages are not in the successor, so every check ran on nothing."""
    src, succ, cid, ids = _successor(tmp_path, cut)
    successor = load_transcript(succ)
    alone = audit_compaction(successor, cid)
    assert not any(successor.entry(i).type == "message" for i in alone.summarized_entry_ids)
    audited = audit_compaction_in_chain(successor, cid)
    assert audited.span_source == src
    report = audited.report
    first_kept = successor.entry(cid).first_kept_entry_id
    stop = None if first_kept == cid else first_kept
    predecessor = load_transcript(src)
    span_messages = [i for i in report.summarized_entry_ids
                     if predecessor.entry(i).type == "message"]
    assert span_messages == _path_ids_before(src, stop)
    assert ids["u1"] in span_messages and ids["us"] not in span_messages  # not the side branch
    rows = {r["id"]: r for r in read_rows(src)[1:]}
    asks = [rows[i]["message"]["content"] for i in span_messages
            if rows[i]["message"]["role"] == "user"]
    texts = [c if isinstance(c, str) else c[0]["text"] for c in asks]
    assert alone.latest_ask is None and report.latest_ask == texts[-1]
    assert predecessor_span(predecessor, successor, cid) == report.summarized_entry_ids


def test_cli_audit_of_a_successor_names_where_the_span_was_read(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src, succ, cid, _ = _successor(tmp_path, None)
    assert main(["audit", str(succ), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["compaction_id"] == cid and out["span_source"] == str(src)
    assert main(["audit", str(succ)]) == 0
    text = capsys.readouterr().out
    assert f"read from the predecessor {src}" in text
    assert main(["export", str(succ), "--format", "json", "-o", str(tmp_path / "e.json")]) == 0
    data = json.loads((tmp_path / "e.json").read_text())
    assert data["covered"]["entry_count"] > 1
    assert data["settings"]["summarized_entries_in"] == str(src)


def test_without_the_predecessor_the_file_alone_is_audited(tmp_path: Path) -> None:
    src, succ, cid, _ = _successor(tmp_path, None)
    src.unlink()
    audited = audit_compaction_in_chain(load_transcript(succ), cid)
    assert audited.span_source is None
    assert audited.report.summarized_entry_ids == audit_compaction(
        load_transcript(succ), cid).summarized_entry_ids


def test_a_file_that_holds_its_span_is_not_redirected(tmp_path: Path) -> None:
    src, ids = rich_session(tmp_path)
    record = CompactionRecord(SUMMARY, ids["u3"], 500)
    written = write_compaction(load_transcript(src), record, "append", store_path=None)
    audited = audit_compaction_in_chain(load_transcript(src), written.compaction_entry_id)
    assert audited.span_source is None
    assert ids["u1"] in audited.report.summarized_entry_ids


@pytest.mark.samples
def test_every_recorded_compaction_kind_feeds_the_audit(samples_dir: Path) -> None:
    """pi/OpenClaw, Claude Code ``compact_boundary`` and Codex ``compacted`` alike."""
    for prefix in ("03_", "07_", "09_"):
        t = load_transcript(sample_path(samples_dir, prefix))
        audits = audit_every_compaction(t)
        assert list(audits) == [c.id for c in t.compactions]
        assert any(a.report.summarized_entry_ids for a in audits.values()), prefix
        for audited in audits.values():
            r = audited.report
            assert r.openclaw is not None and r.checks[0].name == "content"
            if t.format in ("claude-code", "codex"):  # free-form writers: no headings, no cap
                assert r.check("sections").passed and r.check("budget").passed, r.reasons
                assert r.template == "none"
            else:  # sample 03: five fallback placeholders, each replacing real history
                assert r.total_loss == bool(r.summarized_entry_ids)
                assert not r.check("content").passed
    t = load_transcript(sample_path(samples_dir, "09_"))
    report = audit_compaction(t)
    assert report.latest_ask and not report.latest_ask.startswith("# Files mentioned")
    assert sum(c.total for c in report.coverage) > 100


@pytest.mark.samples
def test_sample04_placeholders_lost_the_tail_the_one_before_kept(samples_dir: Path) -> None:
    """Each of sample 04's placeholders kept its own region verbatim, so the first lost
    nothing; each later one took the tail the one before kept out of the context, and a
    placeholder carries none of it: a total loss of exactly that tail."""
    t = load_transcript(sample_path(samples_dir, "04_"))
    first, *later = audit_every_compaction(t).values()
    assert not first.report.summarized_entry_ids and not first.report.carried_tail_entry_ids
    assert not first.report.total_loss and not first.report.dropped
    assert len(later) == 2
    for audited in later:
        r = audited.report
        assert r.summarized_entry_ids and r.carried_tail_entry_ids == r.summarized_entry_ids
        assert not r.check("content").passed and r.total_loss and r.dropped


@pytest.mark.parametrize("prefix", sorted(WRITABLE_SAMPLES))
def test_a_written_successor_audits_as_it_did_when_written(
        written_sample: Callable[[str], WrittenSample], prefix: str) -> None:
    """The verdict, every check, the identifier counts and the span are the same at write
    time and when ``audit`` reads the written successor back (it used to flip: the write
    judged the kept-back assistant turn as summarized, the re-read did not)."""
    written = written_sample(prefix)
    code, reread = run_cli_json("audit", str(written.successor))
    assert code in (0, 3)
    at_write = written.compact["audit"]
    assert reread["passed"] == at_write["passed"]
    assert reread["checks"] == at_write["checks"]
    assert reread["identifiers"] == at_write["identifiers"]
    assert reread["summarized_entry_ids"] == at_write["summarized_entry_ids"]
    assert reread["latest_ask"] == at_write["latest_ask"]
    assert reread["coverage"] == at_write["coverage"]
    # what the successor still holds verbatim is not counted as summarized
    held = load_transcript(written.successor).index
    assert not set(at_write["summarized_entry_ids"]) & set(held)
