"""Fact trace: first seen, every mention, kept or dropped by each compaction along a chain."""

from __future__ import annotations

from pathlib import Path

from fixtures.chains import make_chain
from fixtures.factories import TranscriptBuilder
from sessionlens.engine.lineage.chain import load_chain_transcripts
from sessionlens.engine.lineage.trace import describe_trace, trace_fact, trace_to_json


def test_a_fact_kept_by_one_compaction_and_lost_by_the_next(tmp_path: Path) -> None:
    files = make_chain(tmp_path, depth=4, side_every=3)
    transcripts, diags = load_chain_transcripts(files.transcripts[1])
    assert diags == () and [t.path for t in transcripts] == files.transcripts
    # /src/app/mod1.py: written in generation 1's turns; the second summary (which nests
    # the first) still names it, the third does not and keeps no turn that does
    trace = trace_fact(transcripts, "/src/app/mod1.py")
    assert trace.cls == "path"
    statuses = [c.status for c in trace.compactions]
    assert statuses == ["kept", "kept", "dropped", "absent"]
    assert trace.compactions[1].in_summary and not trace.compactions[2].kept
    lost = trace.lost_at
    assert lost is not None and lost.number == 3
    assert lost.compaction_id == trace.compactions[2].compaction_id
    assert lost.path == files.transcripts[3]  # where that compaction was written
    first = trace.first_seen
    assert first is not None and first.role == "user" and first.path == files.transcripts[1]
    # a successor's copies of kept entries are not counted twice
    assert len({m.entry_id for m in trace.mentions}) == len(trace.mentions) == 2
    text = describe_trace(trace)
    assert lost.timestamp is not None
    assert f"lost at compaction 3 ({lost.timestamp.replace('T', ' ')[:16]})" in text
    assert "never mentioned again" in text


def test_a_fact_only_summaries_carried(tmp_path: Path) -> None:
    """ABC-1234 lives in summaries 1-3 only; summary 4 drops it."""
    files = make_chain(tmp_path, depth=5)
    transcripts, _ = load_chain_transcripts(files.transcripts[0])
    trace = trace_fact(transcripts, "ABC-1234")
    assert trace.mentions == () and trace.first_seen is None
    assert [c.kept for c in trace.compactions] == [True, True, True, False, False]
    data = trace_to_json(trace)
    assert [c["id"] for c in data["compactions"]] == [c.compaction_id for c in trace.compactions]
    assert [c["kept"] for c in data["compactions"]] == [True, True, True, False, False]
    assert data["lost_at"] == trace.compactions[3].compaction_id and data["lost_at_number"] == 4
    assert "brought it in through its summary" in data["verdict"]


def test_never_lost_never_seen_and_the_kept_tail() -> None:
    b = TranscriptBuilder()
    b.user("the deploy key is in /etc/app/deploy.key")
    kept = b.user("and keep /etc/app/deploy.key readable")
    b.assistant("ok")
    b.compaction("## Goal\nship", first_kept=kept.id)
    b.user("next")
    t = b.build()
    trace = trace_fact([t], "/etc/app/deploy.key")
    assert [(c.in_summary, c.in_kept_tail, c.status) for c in trace.compactions] == [
        (False, True, "kept")]
    assert trace.lost_at is None and trace_to_json(trace)["lost_at"] is None
    assert "no compaction dropped it" in describe_trace(trace)
    missing = trace_fact([t], "nowhere to be found")
    assert missing.cls is None and missing.mentions == ()
    assert [c.status for c in missing.compactions] == ["absent"]
    assert "is not mentioned" in describe_trace(missing)


def test_free_text_is_matched_ignoring_case_and_spacing() -> None:
    b = TranscriptBuilder()
    b.user("We settled on the   Blue-Green rollout for billing.")
    b.assistant("Noted", thinking="blue-green rollout it is")
    b.compaction("## Goal\nrollout")
    t = b.build()
    trace = trace_fact([t], "blue-green ROLLOUT")
    assert [m.role for m in trace.mentions] == ["user", "assistant"]  # thinking counts
    assert "Blue-Green rollout" in trace.mentions[0].snippet
    assert trace.lost_at is not None and trace.lost_at.number == 1
    assert "lost at compaction 1" in describe_trace(trace)


def test_a_placeholder_summary_keeps_nothing() -> None:
    b = TranscriptBuilder()
    b.user("we hit the context limits again")
    b.compaction("Summary unavailable due to context limits. Older messages were truncated.")
    trace = trace_fact([b.build()], "context limits")
    assert [(c.in_summary, c.status) for c in trace.compactions] == [(False, "dropped")]
