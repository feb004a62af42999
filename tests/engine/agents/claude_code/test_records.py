"""Claude Code 2.1.3xx request records: rebuilt requests, cost, unknown kinds said once."""

from __future__ import annotations

import json
from pathlib import Path

from fixtures.agents_paths import CLAUDE_CODE_FIXTURES
from sessionlens.engine.agents.claude_code.records import (
    last_cost,
    message_hash,
    recorded_requests,
)
from sessionlens.engine.lineage.forensics import analyze_compactions
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.settings import DEFAULT_SETTINGS

MAIN = next((CLAUDE_CODE_FIXTURES / "main").glob("*-*.jsonl"))


def test_message_hash_is_claude_codes_content_address() -> None:
    rows = [json.loads(line) for line in MAIN.read_text().splitlines()]
    blobs = [r for r in rows if r["type"] == "api-request-blob"]
    # Claude Code hashes a blob before it may add a cache mark to it in place, so most (not
    # all) stored blobs hash to their own address
    assert sum(message_hash(b["message"]) == b["hash"] for b in blobs) > len(blobs) // 2
    assert message_hash({"role": "user", "content": [{"type": "text", "text": "é"}]}) == \
        message_hash({"content": [{"text": "é", "type": "text"}], "role": "user"})


def test_unknown_record_kinds_are_one_diagnostic_each(tmp_path: Path) -> None:
    lines = MAIN.read_text().splitlines()
    odd = [json.dumps({"type": "future-thing", "n": k}) for k in range(3)]
    path = tmp_path / MAIN.name
    path.write_text("\n".join(lines[:5] + odd + lines[5:] + [json.dumps({"type": "x-y"})])
                    + "\n")
    t = load_transcript(path)
    said = [d for d in t.diagnostics if "not known" in d.reason]
    assert [(d.line, d.reason.split("'")[1]) for d in said] == [(6, "future-thing"),
                                                                 (len(lines) + 4, "x-y")]
    assert "3 lines" in said[0].reason
    assert sum(e.type == "future-thing" for e in t.entries) == 3    # kept, not dropped


def test_cost_is_the_last_cost_state_and_requests_are_complete() -> None:
    t = load_transcript(MAIN)
    cost = last_cost(t.entries)
    assert cost is not None and cost.total_usd > 0
    assert set(cost.by_model) == {"claude-opus-5-5"}
    requests = recorded_requests(t.entries)
    assert len(requests) == 7 and all(not r.missing for r in requests)
    assert all(len(r.tools) == 12 and r.system for r in requests)


def test_forensics_take_trigger_and_sizes_from_compact_metadata() -> None:
    t = load_transcript(MAIN)
    found = analyze_compactions(t, DEFAULT_SETTINGS)
    assert [f.trigger for f in found] == ["threshold", "threshold", "manual"]
    assert all(f.context_window == 1_000_000 for f in found)
    # 12,591 -> 2,699 as Claude Code measured: smaller, whatever the estimates say
    assert all("summary-not-smaller" not in f.flags for f in found)
    assert all("far-below-threshold" not in f.flags for f in found)


def test_memory_health_gives_the_sizes_claude_code_measured() -> None:
    from sessionlens.engine.lineage.memory_health import examine_memory

    rows = [json.loads(line) for line in MAIN.read_text().splitlines()]
    recorded = {r["uuid"]: (r["compactMetadata"]["preTokens"], r["compactMetadata"]["postTokens"])
                for r in rows if r.get("subtype") == "compact_boundary"}
    health = examine_memory(load_transcript(MAIN), DEFAULT_SETTINGS, store_record=None)
    assert {c.compaction_id: (c.tokens_before_recorded, c.tokens_after_recorded)
            for c in health.compactions} == recorded
    assert all("summary-not-smaller" not in c.flags for c in health.compactions)
