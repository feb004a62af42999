"""The Codex driver runs the real 0.171.0 binary through the standard scenario."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.drivers import codex

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not codex.available(), reason="codex binary not installed")]


def test_scenario_compacts_manually_then_automatically(tmp_path: Path) -> None:
    run = codex.run_scenario(tmp_path)
    triggers = [codex.compaction_trigger(run.requests[i]) for i in run.compactions]
    assert triggers == ["manual", "auto"]
    assert len(run.after) == 2
    lines = [json.loads(line) for line in run.rollout.read_text().splitlines()]
    assert sum(1 for o in lines if o["type"] == "compacted") == 2
    # the turn after each compaction carries that compaction's summary
    for i, summary in zip(run.after, (codex.SUMMARY_MANUAL, codex.SUMMARY_AUTO), strict=True):
        assert any(summary in item["text"] for item in codex.input_texts(run.requests[i]))
    # the tool round trip ran: the output of `cat notes.txt` went back to the model
    assert any("alpha" in item["text"] for item in codex.input_texts(run.requests[1])
               if item["role"] == "tool_result")
