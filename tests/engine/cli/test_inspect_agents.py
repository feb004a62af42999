"""``inspect`` and ``sessions`` on other agents' files: the format name, what the format does
not record, the agent's own estimate, and one listed row per session of a database."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fixtures.agent_files import crush_db, part, write
from fixtures.factories import jsonl
from sessionlens.engine.cli import main


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> Any:
    assert main([*args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_inspect_names_the_format_and_what_it_does_not_record(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path / "p" / "agent-transcripts" / "t.jsonl", jsonl(
        {"role": "user", "message": {"content": [{"type": "text", "text": "hi"}]}},
        {"role": "assistant", "message": {"content": [
            {"type": "tool_use", "name": "Read", "input": {"path": "a"}}]}}))
    r = run_json(capsys, "inspect", str(path))
    assert (r["format"], r["agent"]) == ("cursor-jsonl", "Cursor")
    assert {g["kind"] for g in r["lacks"]} == {"ids", "timestamps", "usage", "model",
                                                "tool_results"}
    assert r["tokens"]["reported_context"] is None and r["tokens"]["agent_rule"] is None
    assert main(["inspect", str(path)]) == 0
    out = capsys.readouterr().out
    assert "not recorded  no entry ids" in out and "no token estimate of its own" in out


def test_sessions_lists_each_session_of_a_database_and_inspect_opens_one(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = crush_db(tmp_path / "proj" / ".crush" / "crush.db",
                  [{"id": "s1", "title": "first", "updated_at": 2, "created_at": 1},
                   {"id": "s2", "title": "second", "updated_at": 4, "created_at": 3,
                    "summary_message_id": "b2"}],
                  [("a1", "s1", "user", [part("text", text="hi")], 1),
                   ("b1", "s2", "user", [part("text", text="yo")], 3),
                   ("b2", "s2", "assistant", [part("text", text="## Summary")], 4)])
    r = run_json(capsys, "sessions", str(db.parent))
    rows = {Path(s["path"]).name: s for s in r["sessions"]}
    assert set(rows) == {"s1", "s2"}
    assert (rows["s2"]["entries"], rows["s2"]["compactions"], rows["s2"]["title"]) == (
        2, 1, "second")
    i = run_json(capsys, "inspect", rows["s2"]["path"])
    assert (i["format"], i["session_id"], i["compactions"]) == ("crush-sqlite", "s2", 1)
    assert i["session_name"] == "second"


def test_inspect_measures_what_is_outside_a_claude_code_file_and_gives_its_cost(
        capsys: pytest.CaptureFixture[str]) -> None:
    from fixtures.agents_paths import CLAUDE_CODE_FIXTURES
    path = next((CLAUDE_CODE_FIXTURES / "main").glob("*-*.jsonl"))
    out = run_json(capsys, "inspect", "--json", "--fresh", str(path))
    tok = out["tokens"]
    rec = tok["recorded_context"]
    assert tok["outside_transcript_source"] == "measured"
    assert rec["exact"] == rec["system"] + rec["tools"] + rec["messages"]
    assert rec["tools"] > rec["system"] > 0
    assert "Bash" in rec["tool_names"] and rec["message_count"] >= 2
    assert 0 < tok["outside_transcript"] < rec["exact"]
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert out["cost"]["total_usd"] == [r for r in rows if r["type"] == "cost-state"][-1][
        "totalCostUSD"]
    assert main(["inspect", "--fresh", str(path)]) == 0
    assert "measured: the recorded request" in capsys.readouterr().out


def test_inspect_ties_a_compaction_subagent_file_to_its_session_and_compaction(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from agents.drivers.claude_code import summary_of
    from fixtures.agents_paths import CLAUDE_CODE_FIXTURES
    parent = next((CLAUDE_CODE_FIXTURES / "short").glob("*-*.jsonl"))
    sid = parent.stem
    (tmp_path / parent.name).write_bytes(parent.read_bytes())
    sub = tmp_path / sid / "subagents" / "agent-acompact-0123abcd.jsonl"
    sub.parent.mkdir(parents=True)
    base = {"sessionId": sid, "isSidechain": True, "agentId": "acompact-0123abcd"}
    sub.write_text("\n".join(json.dumps(base | row) for row in [
        {"type": "user", "uuid": "u1", "parentUuid": None,
         "message": {"role": "user", "content": "Your task is to create a summary"}},
        {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "message": {
            "role": "assistant", "id": "m1", "content": [{"type": "text", "text":
                f"<analysis>x</analysis>\n<summary>{summary_of(1)}</summary>"}]}}]) + "\n")
    out = run_json(capsys, "inspect", "--json", "--fresh", str(sub))
    link = out["compaction_subagent"]
    rows = [json.loads(line) for line in parent.read_text().splitlines()]
    boundary = next(r for r in rows if r.get("subtype") == "compact_boundary")
    assert link["parent_session_id"] == sid and link["matched_by"] == "summary text"
    assert link["compaction_id"] == boundary["uuid"]
    assert link["parent_path"] == str(tmp_path / parent.name)
    assert any(f"compaction subagent of session {sid}" in n for n in out["notes"])
    assert run_json(capsys, "inspect", "--fresh", str(parent))["compaction_subagent"] is None
