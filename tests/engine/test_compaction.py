"""The end-to-end run used by the CLI and the GUI: summarize, audit, quality loop."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from fixtures.factories import TranscriptBuilder
from fixtures.sample_writes import run_cli_json
from sessionlens.engine import (
    DEFAULT_SETTINGS,
    CompactionOptions,
    Completion,
    OfflineProvider,
    ProviderProfile,
    SummarizationCancelled,
    compaction_record,
    plan_compaction,
    run_compaction,
)
from sessionlens.engine.compaction import prepare_write, user_summary_outcome, write_prepared
from sessionlens.engine.contract.templates import REQUIRED_SECTIONS
from sessionlens.engine.errors import AuditGateError
from sessionlens.engine.load.reader import load_transcript


def text_of(words: int) -> str:
    return " ".join("lorem ipsum dolor sit amet".split()[i % 5] for i in range(words // 5))


def _transcript():
    b = TranscriptBuilder()
    for i in range(12):
        b.user(f"Please fix /srv/app/module_{i}.py and keep port 8080 {text_of(400)}")
        call = b.call("read", path=f"/srv/app/module_{i}.py")
        b.assistant(f"Reading module {i}", call, usage=1000 * (i + 1))
        b.result(call, f"contents of module {i} {text_of(800)}")
    b.user("Now write the release notes for 3f2a9c1d7e")
    b.assistant("Writing them", usage=20_000)
    return b.build()


class _Scripted:
    """A provider that writes ``bad`` until the prompt carries audit feedback, then ``good``."""

    def __init__(self, bad: str, good: str | None = None) -> None:
        self.bad, self.good = bad, good
        self.calls = 0
        self.saw_feedback = False

    @property
    def profile(self) -> ProviderProfile:
        return ProviderProfile(name="scripted", kind="openai", model="script-1")

    async def complete(self, request, *, on_delta=None):  # type: ignore[no-untyped-def]
        self.calls += 1
        prompt = request.system + "".join(m.content for m in request.messages)
        if "did not pass the quality audit" in prompt:
            self.saw_feedback = True
        answer = self.good if (self.saw_feedback and self.good) else self.bad
        return Completion(text=answer, provider="scripted", model="script-1")


def _plan(t):
    # the tool-frames rule keeps the last read with its result, which these audits rely on
    return plan_compaction(t, DEFAULT_SETTINGS, manual=True, keep_recent_tokens=500,
                           cut_rule="tool-frames")


def test_offline_run_audits_the_summary_it_returns() -> None:
    t = _transcript()
    plan = _plan(t)
    out = asyncio.run(run_compaction(t, plan, OfflineProvider(), CompactionOptions(
        instructions="Focus on the module paths")))
    for heading in REQUIRED_SECTIONS["structured"]:
        assert heading in out.summary
    assert out.audit.passed == all(c.passed for c in out.audit.checks)
    assert out.quality.kept_attempt == 1 and len(out.quality.attempts) == 1
    assert out.result.instructions == "Focus on the module paths"
    assert out.tokens_after < plan.tokens_before
    record = compaction_record(out)
    assert record.summary == out.summary
    assert record.first_kept_entry_id == plan.first_kept_entry_id
    assert record.summarized_entry_ids == out.summarized_entry_ids


def test_failed_audit_is_regenerated_and_the_better_attempt_kept() -> None:
    t = _transcript()
    plan = _plan(t)
    good = asyncio.run(run_compaction(t, plan, OfflineProvider())).summary
    provider = _Scripted("nothing useful here", good)
    out = asyncio.run(run_compaction(t, plan, provider, CompactionOptions(quality_retries=2)))
    assert provider.saw_feedback
    first = out.quality.attempts[0].report
    assert first is not None and not first.passed
    # one try, one retry; the second retry gave the same text, which ends the loop
    assert len(out.quality.attempts) == 2
    assert out.quality.note is not None and "same text" in out.quality.note
    assert out.quality.kept_attempt > 1
    assert out.audit.checks_passed > first.checks_passed
    assert out.summary.startswith(good.split("\n", 1)[0])
    # the record keeps the user's instructions, not the audit feedback
    assert out.result.instructions == ""


def test_no_retry_keeps_the_failing_summary_and_says_so() -> None:
    t = _transcript()
    out = asyncio.run(run_compaction(t, _plan(t), _Scripted("nothing useful here")))
    assert not out.audit.passed
    assert [c.name for c in out.audit.checks if not c.passed]


def test_cancel_propagates_and_nothing_is_kept() -> None:
    t = _transcript()
    with pytest.raises(SummarizationCancelled):
        asyncio.run(run_compaction(t, _plan(t), OfflineProvider(), cancel=lambda: True))


def test_a_pi_rule_run_summarizes_the_tail_the_last_compaction_kept() -> None:
    """pi 0.58 would drop the last compaction's kept tail unsummarized; the run hands it to
    the summarizer with the region, so the summary carries its specifics and the audit,
    which judges the summary on it too, passes."""
    b = TranscriptBuilder()
    b.user(f"Set up the repo {text_of(200)}")
    b.assistant("Done", usage=2_000)
    tail = b.user("The canary runs on edge-7f3a91.example.net:8443, keep an eye on it").id
    b.assistant("Watching edge-7f3a91.example.net:8443", usage=3_000)
    b.compaction("## Goal\n- set up the repo", first_kept=tail)
    for i in range(4):
        b.user(f"Please fix /srv/app/module_{i}.py {text_of(400)}")
        b.assistant(f"Fixed module {i}", usage=4_000 + i)
    t = b.build()
    plan = plan_compaction(t, DEFAULT_SETTINGS, manual=True, keep_recent_tokens=200,
                           cut_rule="pi-0.58")
    assert plan.carried_tail_entry_ids[0] == tail and tail not in plan.summarize_entry_ids
    out = asyncio.run(run_compaction(t, plan, OfflineProvider(), CompactionOptions()))
    assert "edge-7f3a91.example.net:8443" in out.summary
    assert tail in out.audit.summarized_entry_ids
    assert out.audit.passed, out.audit.reasons


def test_each_write_records_the_audit_of_the_span_it_takes_out(tmp_path: Path) -> None:
    """A successor keeps the last summarized assistant turn verbatim; an append takes it out.
    A summary that lacks that turn's identifier passes as a successor and fails as an append,
    and each write records (and gates on) its own verdict, the one ``audit`` gives later."""
    b = TranscriptBuilder()
    b.user("Move the report to the new folder.")
    b.assistant("Moving it now to /srv/reports/kept-back-42/final.txt as asked.")
    b.user("Now tell me when it is done.")
    b.assistant("It is done.")
    path = b.write(tmp_path / "s.jsonl")
    t = load_transcript(path)
    plan = plan_compaction(t, DEFAULT_SETTINGS, keep_recent_tokens=1)
    text = "\n".join(f"{h}\n- report moved; tell the user when it is done"
                     for h in REQUIRED_SECTIONS["structured"])
    outcome = user_summary_outcome(t, plan, text)
    assert outcome.audit.passed  # the successor keeps that assistant turn verbatim
    successor = prepare_write(t, outcome, "successor")
    append = prepare_write(t, outcome, "append")
    assert successor.record.audit_passed is True
    assert append.record.audit_passed is False and "identifiers" in append.record.failed_checks
    with pytest.raises(AuditGateError, match="--accept-failed-audit"):
        write_prepared(t, append, store_path=None)
    write_prepared(t, append, accept_failed_audit=True, store_path=None)
    code, reread = run_cli_json("audit", str(path))
    assert code == 0 and reread["passed"] is False
