"""memory_health: every compaction judged from forensics, audits and the flush, worst first."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from fixtures.samples import sample_path
from fixtures.scenarios import memory_session
from sessionlens.engine.audit.recorded import audit_every_compaction
from sessionlens.engine.cli import main
from sessionlens.engine.lineage.forensics import analyze_compactions
from sessionlens.engine.lineage.memory_flush import analyze_memory_flush
from sessionlens.engine.lineage.memory_health import examine_memory, memory_health
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.settings import DEFAULT_SETTINGS, CompactionSettings


def _settings(window: int = 50_000) -> CompactionSettings:
    return replace(DEFAULT_SETTINGS, context_window=window)


def test_the_fallback_compaction_comes_first_flagged_total_loss(tmp_path: Path) -> None:
    path, ids = memory_session(tmp_path)
    health = examine_memory(load_transcript(path), _settings(), store_record=None)
    order = [c.compaction_id for c in health.compactions]
    assert order == [ids["lost"], ids["good"]]
    worst = health.compactions[0]
    assert worst.severity == "critical" and "total-loss" in worst.flags
    assert worst.number == 2 and not worst.audit_passed and worst.dropped > 0
    good = health.get(ids["good"])
    assert good is not None and "total-loss" not in good.flags
    assert good.severity != "critical"


def test_numbers_are_the_analyses_own(tmp_path: Path) -> None:
    path, _ids = memory_session(tmp_path)
    t = load_transcript(path)
    settings = _settings()
    forensics = analyze_compactions(t, settings)
    audits = audit_every_compaction(t)
    flush = analyze_memory_flush(t, settings)
    health = memory_health(t, forensics, audits, flush)
    for f in forensics:
        row = health.get(f.compaction_id)
        assert row is not None
        assert (row.tokens_replaced, row.summary_tokens, row.trigger) == (
            f.replaced_tokens, f.summary_tokens, f.trigger)
        report = audits[f.compaction_id].report
        assert row.audit is report and row.dropped == len(report.dropped)
        assert row.coverage == tuple(c for c in report.coverage if c.total)
        assert row.timestamp == t.entry(f.compaction_id).timestamp
    assert health.soft_threshold == flush.soft_threshold


def test_flags_carry_one_sentence_each(tmp_path: Path) -> None:
    path, ids = memory_session(tmp_path)
    health = examine_memory(load_transcript(path), _settings(), store_record=None)
    for row in health.compactions:
        assert len(row.flags) == len(row.flag_details)
        assert all(d for d in row.flag_details)
    lost = health.get(ids["lost"])
    assert lost is not None and "placeholder" in lost.flag_details[0]


def test_sample_03_lists_five_total_losses(samples_dir: Path) -> None:
    t = load_transcript(sample_path(samples_dir, "03_"))
    health = examine_memory(t, _settings(128_000))
    assert len(health.compactions) == 5
    # five placeholders; the first replaced nothing (it kept its whole region), so it lost
    # nothing: its audit failed, the other four are total losses
    losses = {c.number for c in health.compactions if "total-loss" in c.flags}
    assert losses == {2, 3, 4, 5}
    first = next(c for c in health.compactions if c.number == 1)
    assert first.tokens_replaced == 0 and "audit-failed" in first.flags
    # the one that replaced the most comes first
    assert health.compactions[0].tokens_replaced == max(c.tokens_replaced
                                                        for c in health.compactions)
    assert "flush-missed" in health.compactions[0].flags


def test_a_compaction_that_drops_the_kept_tail_says_so(tmp_path: Path,
                                                       samples_dir: Path) -> None:
    """Sample 01 is pi's own session, whose rule never summarizes the tail the previous
    compaction kept; sample 04's placeholders replaced nothing but that tail. A carried tail
    with no specific in it (the memory session's "good, continue") loses nothing to flag."""
    t = load_transcript(sample_path(samples_dir, "01_"))
    rows = {c.number: c for c in examine_memory(t, _settings(200_000)).compactions}
    assert "kept-tail-lost" not in rows[1].flags and "kept-tail-lost" in rows[2].flags
    detail = rows[2].flag_details[rows[2].flags.index("kept-tail-lost")]
    assert "of the 66 entries the previous compaction kept verbatim" in detail
    t = load_transcript(sample_path(samples_dir, "04_"))
    rows = {c.number: c for c in examine_memory(t, _settings(128_000)).compactions}
    assert ["kept-tail-lost" in rows[n].flags for n in (1, 2, 3)] == [False, True, True]
    path, ids = memory_session(tmp_path)
    t = load_transcript(path)
    lost = examine_memory(t, _settings(), store_record=None).get(ids["lost"])
    assert lost is not None and lost.audit.carried_tail_entry_ids
    assert "kept-tail-lost" not in lost.flags


def test_audit_json_holds_the_memory_health(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    path, ids = memory_session(tmp_path)
    assert main(["audit", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    rows = out["memory_health"]["compactions"]
    assert [r["id"] for r in rows] == [ids["lost"], ids["good"]]
    assert "total-loss" in rows[0]["flags"] and rows[0]["severity"] == "critical"


def test_audit_text_lists_every_compaction_worst_first(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    path, ids = memory_session(tmp_path)
    assert main(["audit", str(path)]) == 0
    text = capsys.readouterr().out
    health = text.split("memory health", 1)[1]
    assert health.index(ids["lost"]) < health.index(ids["good"])
    assert "fallback placeholder: total loss" in health
