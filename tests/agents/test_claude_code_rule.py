"""The claude-code-2.1 rule plans the cut Claude Code 2.1.332 made itself: on every compaction
of the driver's sessions (three sessions of different lengths, five compactions, manual and
automatic, one between a tool result and the next model call), the messages the plan keeps
are the ones ``compactMetadata.preservedMessages`` lists, and what it summarizes is the rest
of the conversation since the previous boundary."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.drivers.claude_code import COMPACT_ASK
from agents.drivers.claude_code_compare import DriverFolder, context_texts, request_texts
from fixtures.agents_paths import CLAUDE_CODE_FIXTURES
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.plan.planner import plan_compaction
from sessionlens.engine.plan.rules import default_cut_rule
from sessionlens.engine.settings import DEFAULT_SETTINGS

CASES = [(folder, n) for folder in sorted(p for p in CLAUDE_CODE_FIXTURES.iterdir()
                                          if p.is_dir())
         for n in range(sum(r.get("subtype") == "compact_boundary"
                            for r in DriverFolder.read(folder).rows()))]


def _uuid(entry_id: str) -> str:
    return entry_id.split(":", 1)[0]


@pytest.mark.parametrize(("folder", "n"), CASES, ids=lambda v: getattr(v, "name", str(v)))
def test_planned_cut_is_the_cut_claude_code_made(folder: Path, n: int, tmp_path: Path) -> None:
    run = DriverFolder.read(folder)
    lines = run.session_file.read_bytes().splitlines(keepends=True)
    at = [i for i, line in enumerate(lines) if b'"compact_boundary"' in line][n]
    boundary = json.loads(lines[at])
    meta = boundary["compactMetadata"]
    prefix = tmp_path / run.session_file.name
    prefix.write_bytes(b"".join(lines[:at]))
    t = load_transcript(prefix)
    assert default_cut_rule(t) == "claude-code-2.1"
    plan = plan_compaction(t, DEFAULT_SETTINGS, manual=meta["trigger"] == "manual")
    by_id = {e.id: e for e in t.entries}
    kept = [_uuid(i) for i in plan.kept_entry_ids
            if by_id[i].type == "message"]
    assert list(dict.fromkeys(kept)) == meta["preservedMessages"]["uuids"]
    summarized = {_uuid(i) for i in plan.summarize_entry_ids if by_id[i].type == "message"}
    assert summarized and not summarized & set(kept)
    assert plan.cut_rule == "claude-code-2.1" and plan.rule_note == ""
    assert plan.context_window == 1_000_000 and plan.threshold == 980_000


@pytest.mark.parametrize(("folder", "n"), CASES, ids=lambda v: getattr(v, "name", str(v)))
def test_claude_code_summarizes_the_whole_replayed_context(folder: Path, n: int,
                                                            tmp_path: Path) -> None:
    """Its compaction request is the conversation SessionLens replays (the previous summary,
    what it kept, what came after), then the summary prompt; an automatic compaction before
    a new prompt leaves that prompt out (it is kept, and sent after the summary)."""
    run = DriverFolder.read(folder)
    lines = run.session_file.read_bytes().splitlines(keepends=True)
    at = [i for i, line in enumerate(lines) if b'"compact_boundary"' in line][n]
    prefix = tmp_path / run.session_file.name
    prefix.write_bytes(b"".join(lines[:at]))
    request = [r for r in run.requests if r["compaction"]][n]
    sent = request_texts(request["messages"])
    assert sent[-1].startswith(COMPACT_ASK)
    t = load_transcript(prefix)
    mine = context_texts(t)
    last = t.entries[t.index[t.context[-1].entry_id]]
    if last.message is not None and last.message.role == "user":
        assert json.loads(lines[at])["compactMetadata"]["trigger"] == "auto"
        mine = mine[:-1]
    assert sent[:-1] == mine
