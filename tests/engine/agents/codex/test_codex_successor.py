"""The Codex successor rollout (the binary resuming it is tested in tests/agents)."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from agents.codex_checks import FIXTURE
from sessionlens.engine.agents.codex.codex_successor import codex_names, codex_successor_path
from sessionlens.engine.agents.codex.compacted import SUMMARY_PREFIX
from sessionlens.engine.compaction import prepare_write, user_summary_outcome, write_prepared
from sessionlens.engine.errors import PersistError
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.model import Transcript
from sessionlens.engine.opened import resolve_settings
from sessionlens.engine.plan.planner import plan_compaction

NOW = datetime(2026, 12, 5, 8, 9, 10, tzinfo=UTC)


def _in_home(tmp_path: Path) -> Transcript:
    day = tmp_path / "home" / "sessions" / "2026" / "12" / "04"
    day.mkdir(parents=True)
    path = day / "rollout-2026-12-04T02-48-14-01a23ef3-ca55-7bc3-8ea7-7f6702ab8cbc.jsonl"
    shutil.copyfile(FIXTURE / "rollout.jsonl", path)
    return load_transcript(path)


def test_names_follow_codex_and_the_dry_run_names_the_written_file(tmp_path: Path) -> None:
    t = _in_home(tmp_path)
    names = codex_names(t, NOW)
    assert names.session_id[14] == "7"             # a v7 uuid, as Codex makes them
    assert codex_successor_path(t, names) == (
        tmp_path / "home/sessions/2026/12/05"
        / f"rollout-2026-12-05T08-09-10-{names.session_id}.jsonl")
    plan = plan_compaction(t, resolve_settings(t).settings)
    prepared = prepare_write(t, user_summary_outcome(t, plan, "## Goal\n- g"))
    (target,) = prepared.written_paths
    original = t.path.read_bytes()
    result = write_prepared(t, prepared, accept_failed_audit=True)
    assert result.written == (target,) and t.path.read_bytes() == original
    lines = [json.loads(x) for x in target.read_text().splitlines()]
    assert [o["ordinal"] for o in lines] == list(range(len(lines)))
    assert [o["type"] for o in lines] == ["session_meta", "compacted", "world_state",
                                          "turn_context"]
    meta = lines[0]["payload"]
    assert meta["id"] == meta["session_id"] == prepared.session_id
    assert meta["sessionlens"]["predecessor_id"] == t.session_id
    comp = lines[1]["payload"]
    assert comp["message"] == f"{SUMMARY_PREFIX}\n## Goal\n- g"
    assert comp["replacement_history"][-1]["content"][0]["text"] == comp["message"]
    kept = [h["content"][0]["text"] for h in comp["replacement_history"][:-1]
            if h["role"] == "user" and not h["content"][0]["text"].startswith("<")]
    assert kept == [t.entry(i).message.text for i in plan.copied_entry_ids]  # type: ignore[union-attr]
    # read back: one compaction, its summary the message, the kept messages after it
    back = load_transcript(target)
    assert [c.summary for c in back.compactions] == [comp["message"]]
    assert prepared.tokens_after < plan.tokens_before + 1_000


def test_writes_that_cannot_be_done_are_refused_in_one_sentence(tmp_path: Path) -> None:
    stray = tmp_path / "rollout.jsonl"
    shutil.copyfile(FIXTURE / "rollout.jsonl", stray)
    t = load_transcript(stray)
    plan = plan_compaction(t, resolve_settings(t).settings)
    outcome = user_summary_outcome(t, plan, "## Goal\n- g")
    with pytest.raises(PersistError, match="not in a Codex home's sessions/YYYY/MM/DD/"):
        prepare_write(t, outcome)
    home = _in_home(tmp_path)
    with pytest.raises(PersistError, match="never appended to"):
        prepare_write(home, user_summary_outcome(home, plan_compaction(
            home, resolve_settings(home).settings), "## Goal\n- g"), "append")
