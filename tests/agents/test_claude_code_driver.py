"""The Claude Code driver runs the real binary: turns, a tool call, a 529, two compactions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.drivers.claude_code import (
    claude_binary,
    compaction_requests,
    driver,
    run_session,
    summary_of,
)

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(claude_binary() is None, reason="Claude Code not installed")]


def test_main_scenario_writes_a_session_with_its_compactions(tmp_path: Path) -> None:
    with driver(tmp_path) as d:
        run = run_session(d)
    assert run.session_file.is_file()
    assert [t.returncode for t in run.turns].count(1) == 1       # the 529 turn, only
    rows = [json.loads(line) for line in run.session_file.read_text().splitlines()]
    triggers = [r["compactMetadata"]["trigger"] for r in rows
                if r.get("subtype") == "compact_boundary"]
    assert triggers == ["auto", "auto", "manual"]
    compactions = compaction_requests(run.requests)
    assert len(compactions) == 3
    # the request after each compaction starts from that compaction's summary
    for n, at in enumerate(compactions, start=1):
        first = run.requests[at + 1].messages()[0]
        assert summary_of(n) in json.dumps(first)
    assert any(b.get("type") == "tool_result" for m in run.requests[2].messages()
               if isinstance(m.get("content"), list) for b in m["content"])


def test_a_live_run_reads_and_replays_as_claude_code_sent_it(tmp_path: Path) -> None:
    """The reading checks of test_claude_code_reading, on a session written now (the
    committed fixtures may be older than the binary installed)."""
    from agents.drivers.claude_code import write_fixture
    from agents.test_claude_code_reading import (
        test_compactions_as_the_file_records_them,
        test_recorded_requests_are_the_requests_claude_code_sent,
        test_replay_after_each_compaction_is_what_claude_code_sent_next,
    )
    from agents.test_claude_code_rule import test_planned_cut_is_the_cut_claude_code_made

    with driver(tmp_path / "run") as d:
        run = run_session(d, extra_turns=1)
    live = tmp_path / "live"
    write_fixture(run, live)
    test_recorded_requests_are_the_requests_claude_code_sent(live)
    test_replay_after_each_compaction_is_what_claude_code_sent_next(live, tmp_path)
    test_compactions_as_the_file_records_them(live)
    boundaries = run.session_file.read_text().count('"subtype":"compact_boundary"')
    assert boundaries >= 2
    for n in range(boundaries):
        test_planned_cut_is_the_cut_claude_code_made(live, n, tmp_path)
