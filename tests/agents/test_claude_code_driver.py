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
