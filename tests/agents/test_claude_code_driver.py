"""The Claude Code driver runs the real binary: turns, a tool call, a 529, compactions
(automatic and manual) and a turn after each; then SessionLens's reading, replay and rule
checks (test_claude_code_reading, test_claude_code_rule) on the session written now (the
committed fixtures may be older than the binary installed). One run, about 20 s."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import agents.test_claude_code_reading as reading  # as modules: not collected again here
import agents.test_claude_code_rule as rule
from agents.drivers.claude_code import (
    claude_binary,
    compaction_requests,
    driver,
    run_session,
    summary_of,
    write_fixture,
)

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(claude_binary() is None, reason="Claude Code not installed")]


def test_a_live_run_compacts_and_reads_and_replays_as_claude_code_sent_it(
        tmp_path: Path) -> None:
    with driver(tmp_path / "run") as d:
        run = run_session(d, extra_turns=1)
    assert run.session_file.is_file()
    assert [t.returncode for t in run.turns].count(1) == 1       # the 529 turn, only
    rows = [json.loads(line) for line in run.session_file.read_text().splitlines()]
    triggers = [r["compactMetadata"]["trigger"] for r in rows
                if r.get("subtype") == "compact_boundary"]
    assert "auto" in triggers and triggers[-1] == "manual"
    compactions = compaction_requests(run.requests)
    assert len(compactions) == len(triggers)
    # the request after each compaction starts from that compaction's summary
    for n, at in enumerate(compactions, start=1):
        assert summary_of(n) in json.dumps(run.requests[at + 1].messages()[0])
    live = tmp_path / "live"
    write_fixture(run, live)
    reading.test_recorded_requests_are_the_requests_claude_code_sent(live)
    reading.test_replay_after_each_compaction_is_what_claude_code_sent_next(live, tmp_path)
    reading.test_compactions_as_the_file_records_them(live)
    reading.test_turns_tool_pairs_errors_and_model_as_claude_code_had_them(live)
    for n in range(len(triggers)):
        (tmp_path / f"cut{n}").mkdir()
        (tmp_path / f"ctx{n}").mkdir()
        rule.test_planned_cut_is_the_cut_claude_code_made(live, n, tmp_path / f"cut{n}")
        rule.test_claude_code_summarizes_the_whole_replayed_context(live, n, tmp_path / f"ctx{n}")
