"""What a recorded compaction did with the tail the previous one kept, read per compaction
from the file (never assumed for "pi" as a whole)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixtures.factories import TranscriptBuilder
from fixtures.samples import sample_path
from sessionlens.engine.audit.report import audit_compaction, audit_report_dict
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.model import FileOps

PI16 = Path(__file__).resolve().parents[2] / "fixtures" / "agents" / "pi-1.6.0"


def _two_compactions(listed: bool, tmp: Path) -> Path:
    b = TranscriptBuilder()
    b.user("start")
    b.assistant("ok", usage=1_000)
    b.user("look at the tail file")
    kept = b.leaf
    call = b.call("read", path="/only/in/tail.py")
    b.assistant("", call, usage=1_200)
    b.result(call, "tail contents")
    b.assistant("done", usage=1_300)
    b.compaction("first summary", first_kept=kept, tokens_before=1_300)
    b.user("more")
    b.assistant("more done", usage=900)
    ops = FileOps(read_files=("/only/in/tail.py",) if listed else ())
    b.compaction("second summary", first_kept=b.leaf, tokens_before=900, file_ops=ops)
    return b.write(tmp / f"s-{listed}.jsonl")


@pytest.mark.parametrize(("listed", "verdict"), [(True, "summarized-again"),
                                                  (False, "not-summarized")])
def test_the_file_lists_say_it(tmp_path: Path, listed: bool, verdict: str) -> None:
    t = load_transcript(_two_compactions(listed, tmp_path))
    report = audit_compaction(t)
    assert len(report.carried_tail_entry_ids) == 4
    assert report.carried_tail_verdict == verdict
    assert "file lists" in report.carried_tail_text
    assert audit_report_dict(report)["carried_tail"]["verdict"] == verdict


def test_a_file_pi_16_wrote_summarized_it_again() -> None:
    t = load_transcript(PI16 / "scenario.jsonl")
    report = audit_compaction(t)  # the automatic compaction, after the manual one
    assert report.carried_tail_entry_ids and report.carried_tail_verdict == "summarized-again"
    assert "pi 1.6" in report.carried_tail_text


def test_no_tail_no_finding() -> None:
    t = load_transcript(PI16 / "overflow.jsonl")
    report = audit_compaction(t)
    assert not report.carried_tail_entry_ids and report.carried_tail_verdict == ""


@pytest.mark.samples
def test_pi_sample_01_did_not_show_its_summarizer_the_tail(samples_dir: Path) -> None:
    t = load_transcript(sample_path(samples_dir, "01_"))
    report = audit_compaction(t)
    assert len(report.carried_tail_entry_ids) == 66
    assert report.carried_tail_verdict == "not-summarized"
    assert "version 1 file" in report.carried_tail_text


@pytest.mark.samples
def test_openclaw_samples_say_the_file_does_not_show_it(samples_dir: Path) -> None:
    t = load_transcript(sample_path(samples_dir, "04_"))
    report = audit_compaction(t)
    assert report.carried_tail_entry_ids and report.carried_tail_verdict == "unknown"
    assert "does not show" in report.carried_tail_text
