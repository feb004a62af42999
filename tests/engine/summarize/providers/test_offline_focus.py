"""The offline summarizer honours focus, speaks the user's words, keeps errors and numbers
with their context, and never claims a focus that did nothing."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from fixtures.factories import TranscriptBuilder
from fixtures.samples import sample_path
from sessionlens.engine.audit.report import audit_summary
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.model import Transcript
from sessionlens.engine.plan.planner import plan_compaction
from sessionlens.engine.settings import DEFAULT_SETTINGS
from sessionlens.engine.summarize.providers import (
    ChatMessage,
    CompletionRequest,
    OfflineProvider,
    SummarySource,
)
from sessionlens.engine.summarize.providers.offline_focus import parse_focus
from sessionlens.engine.summarize.runner import SummaryResult, summarize_plan

API = "Decision: we'll use REST instead of gRPC for the public API because clients are browsers."
API2 = "We decided the API will version routes with a /v2 prefix rather than headers."
DB = "Decision: we'll use Postgres instead of SQLite for the ledger because it handles locks."


def _session() -> Transcript:
    b = TranscriptBuilder()
    b.user("Let's redesign the billing service.")
    b.assistant(DB)
    b.assistant(API)
    b.user("Never log user emails.")
    b.assistant(API2)
    call = b.call("bash", command="pytest -x tests/")
    b.assistant("Running tests", call)
    b.result(call, "collected 4 items\nE   ValueError: parser failed at step 5\n1 failed")
    b.user("The p99 latency went from 240 ms to 175 ms after the cache change.")
    b.user("ok continue with the docs")
    b.assistant("done")
    return b.build()


def _run(t: Transcript, instructions: str = "") -> SummaryResult:
    plan = plan_compaction(t, DEFAULT_SETTINGS, manual=True)
    return asyncio.run(summarize_plan(t, plan, OfflineProvider(), instructions=instructions))


def _section(summary: str, heading: str) -> list[str]:
    lines = summary.splitlines()
    start = lines.index(heading) + 1
    end = next((i for i in range(start, len(lines)) if lines[i].startswith("#")), len(lines))
    return [x for x in lines[start:end] if x.strip()]


def test_focus_instructions_change_the_summary() -> None:
    t = _session()
    plain, focused = _run(t), _run(t, "Focus on the API decisions")
    assert plain.summary != focused.summary
    assert _section(plain.summary, "## Key Decisions")[0] == f"- {DB}"
    assert _section(focused.summary, "## Key Decisions")[:2] == [f"- {API}", f"- {API2}"]
    assert focused.focus_matched is True and plain.focus_matched is None
    assert not focused.warnings


def test_a_focus_that_matches_nothing_says_so() -> None:
    result = _run(_session(), "Focus on the kubernetes rollout")
    assert result.focus_matched is False
    assert any("matched nothing" in w for w in result.warnings)
    assert result.summary == _run(_session()).summary


def test_focused_items_are_kept_whole_when_the_budget_trims() -> None:
    b = TranscriptBuilder()
    for i in range(40):
        b.assistant(f"Decision: we'll use plan {i:02d} instead of plan {i + 1:02d} for the "
                    f"storage layer because it benchmarks at step {i}.")
    b.assistant("Decision: we'll use OAuth instead of API keys for the public API gateway.")
    for i in range(40):
        b.assistant(f"Decision: we'll use cache {i:02d} instead of cache {i + 1:02d} because "
                    "it is simpler.")
    b.user("write the changelog")
    entries = tuple(b.build().entries)

    def render(instructions: str) -> str:
        source = SummarySource("history", "structured", entries, instructions=instructions)
        request = CompletionRequest("s", (ChatMessage("user", "p"),), 400, None, source)
        return asyncio.run(OfflineProvider().complete(request)).text

    plain, focused = render(""), render("keep the API gateway details")
    assert "left out to fit the summary budget" in focused
    assert "OAuth instead of API keys for the public API gateway" not in plain
    assert "- Decision: we'll use OAuth instead of API keys for the public API gateway." in focused


def test_the_focus_is_the_users_words_not_the_audit_feedback() -> None:
    focus = parse_focus("Focus on the API\n\nThe previous summary did not pass the quality "
                        "audit. Problems found:\n- identifiers: missing /srv/x.py")
    assert focus.terms == ("api",)
    assert parse_focus("Focus on the decisions").terms == ("decision",)  # a kind alone counts
    assert not parse_focus("please focus on everything important")


def test_errors_and_numbers_keep_their_context() -> None:
    t = _session()
    result = _run(t)
    assert ("- Error in bash `pytest -x tests/` output: ValueError: parser failed at step 5"
            in result.summary)
    assert "p99 latency went from 240 ms to 175 ms" in result.summary
    plan = plan_compaction(t, DEFAULT_SETTINGS, manual=True)
    report = audit_summary(t, result.summary, summarized_entry_ids=plan.summarized_entry_ids,
                           template="structured")
    assert report.check("errors").passed
    assert not [d for d in report.dropped if d.cls in ("error", "quantity")]


@pytest.mark.samples
def test_goals_and_asks_are_the_users_words_on_sample_04(samples_dir: Path) -> None:
    t = load_transcript(sample_path(samples_dir, "04_"))
    # the span the test was written on: the former default rule (tool-frames)
    plan = plan_compaction(t, DEFAULT_SETTINGS, manual=True, cut_rule="tool-frames")
    result = asyncio.run(summarize_plan(t, plan, OfflineProvider()))
    for heading in ("## Goal", "## Next Steps"):
        body = "\n".join(_section(result.summary, heading))
        assert "[message_id:" not in body and "System: [" not in body, heading
        assert "Pre-compaction memory flush" not in body and "NO_REPLY" not in body
    # the first ask is the one the last compaction kept verbatim (its carried tail), in the
    # user's own words: the "[message_id: ...]" envelope around it is gone
    assert plan.carried_tail_entry_ids
    assert _section(result.summary, "## Goal")[0] == "- 咋回事现在"
