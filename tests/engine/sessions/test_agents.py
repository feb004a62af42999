"""Finding Claude Code and Codex sessions: default folders, quick scans, subagent links."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fixtures.factories import write_rows
from fixtures.samples import sample_path
from sessionlens.engine.cli import main
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.sessions import discovery
from sessionlens.engine.sessions.agents import (
    CLAUDE_CODE_SOURCE,
    CODEX_SOURCE,
    claude_code_dirs,
    codex_dirs,
)
from sessionlens.engine.sessions.discovery import default_session_dirs, discover_sessions

CC_SID = "675b2557-7e98-4a6c-9795-be2262cc9825"
CX_SID = "019d2308-c368-7ca0-8331-65a7d470352c"


def write(path: Path, *objs: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_rows(path, objs)


def cc_line(type: str, uuid: str, parent: str | None, **fields: Any) -> dict[str, Any]:
    return {"type": type, "uuid": uuid, "parentUuid": parent, "sessionId": CC_SID,
            "cwd": "/home/me/proj", "timestamp": "2026-04-07T21:00:00Z", **fields}


def cc_session(home: Path) -> tuple[Path, Path]:
    project = home / ".claude" / "projects" / "-home-me-proj"
    main_file = write(
        project / f"{CC_SID}.jsonl",
        {"type": "queue-operation", "operation": "enqueue", "sessionId": CC_SID},
        cc_line("user", "u1", None, message={"role": "user", "content": "hi"}),
        cc_line("system", "b1", None, subtype="compact_boundary", logicalParentUuid="u1",
                compactMetadata={"trigger": "auto", "preTokens": 5}),
        cc_line("user", "s1", "b1", isCompactSummary=True,
                message={"role": "user", "content": "Summary"}),
        cc_line("user", "u2", "s1", message={"role": "user", "content": "more"}),
    )
    sub = write(
        project / CC_SID / "subagents" / "agent-a897fe51.jsonl",
        cc_line("user", "x1", None, isSidechain=True, agentId="a897fe51",
                message={"role": "user", "content": "task"}),
        cc_line("assistant", "x2", "x1", isSidechain=True,
                message={"id": "m", "role": "assistant", "content": []}),
    )
    return main_file, sub


def codex_rollout(root: Path, rel: str) -> Path:
    def rec(t: str, **p: Any) -> dict[str, Any]:
        return {"timestamp": "2026-03-25T03:29:02Z", "type": t, "payload": p}
    return write(
        root / rel,
        rec("session_meta", id=CX_SID, cwd="/home/me/other", model_provider="openai"),
        rec("response_item", type="message", role="user",
            content=[{"type": "input_text", "text": "hi"}]),
        rec("compacted", message="summary"),
        rec("event_msg", type="context_compacted"),
    )


def test_default_folders_follow_home_and_environment(tmp_path: Path) -> None:
    assert claude_code_dirs(tmp_path, {}) == [tmp_path / ".claude" / "projects"]
    assert claude_code_dirs(tmp_path, {"CLAUDE_CONFIG_DIR": "/c"}) == [Path("/c/projects")]
    assert codex_dirs(tmp_path, {}) == [tmp_path / ".codex" / "sessions",
                                        tmp_path / ".codex" / "archived_sessions"]
    assert codex_dirs(tmp_path, {"CODEX_HOME": "/x"})[1] == Path("/x/archived_sessions")
    assert {CLAUDE_CODE_SOURCE.name, CODEX_SOURCE.name} <= {s.name for s in discovery.SOURCES}
    cc_session(tmp_path)
    codex_rollout(tmp_path / ".codex" / "archived_sessions", "rollout-a.jsonl")
    found = default_session_dirs(tmp_path, {})
    assert tmp_path / ".claude" / "projects" in found
    assert tmp_path / ".codex" / "archived_sessions" in found
    assert tmp_path / ".codex" / "sessions" not in found  # missing folders are left out


def test_sessions_are_listed_with_the_same_columns_and_subagents_linked(tmp_path: Path) -> None:
    main_file, sub = cc_session(tmp_path)
    live = codex_rollout(tmp_path / ".codex" / "sessions",
                         f"2026/03/24/rollout-2026-03-24T21-27-50-{CX_SID}.jsonl")
    old = codex_rollout(tmp_path / ".codex" / "archived_sessions", f"rollout-x-{CX_SID}.jsonl")
    infos = {i.path: i for i in discover_sessions(default_session_dirs(tmp_path, {}))}
    assert set(infos) == {main_file, sub, live, old}
    m = infos[main_file]
    assert (m.agent, m.session_id, m.format, m.compactions, m.project) == (
        "claude-code", CC_SID, "claude-code", 1, "/home/me/proj")
    assert m.parent_session_id is None
    s = infos[sub]
    assert s.session_id == "agent-a897fe51" and s.parent_session_id == CC_SID
    c = infos[live]
    assert (c.agent, c.session_id, c.format, c.compactions, c.project) == (
        "codex", CX_SID, "codex", 1, "/home/me/other")
    assert infos[old].agent == "codex"
    for path, info in infos.items():  # the quick scan agrees with a full load
        t = load_transcript(path)
        assert info.entries == len(t.entries)
        assert info.compactions == len(t.compactions)
        assert info.size == path.stat().st_size


def test_sessions_command_lists_agent_sessions(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    main_file, sub = cc_session(tmp_path)
    assert main(["sessions", str(tmp_path), "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)["sessions"]
    got = {(r["path"], r["agent"], r["session_id"], r["compactions"], r["parent_session_id"])
           for r in listed}
    assert got == {(str(main_file), "claude-code", CC_SID, 1, None),
                   (str(sub), "claude-code", "agent-a897fe51", 0, CC_SID)}


@pytest.mark.samples
def test_samples_are_discovered_with_independent_counts(samples_dir: Path) -> None:
    cc = sample_path(samples_dir, "07_")
    cx = sample_path(samples_dir, "09_")
    infos = {i.path: i for i in discover_sessions([samples_dir])}
    cc_raw = [json.loads(x) for x in cc.read_bytes().splitlines() if x.strip()]
    cx_raw = [json.loads(x) for x in cx.read_bytes().splitlines() if x.strip()]
    a = infos[cc]
    assert a.agent == "claude-code" and a.session_id == cc_raw[0]["sessionId"]
    assert a.compactions == sum(1 for o in cc_raw if o.get("subtype") == "compact_boundary")
    assert a.entries == len(cc_raw) - sum(1 for o in cc_raw if o.get("isCompactSummary"))
    b = infos[cx]
    assert b.agent == "codex" and b.session_id == cx_raw[0]["payload"]["id"]
    assert b.compactions == sum(1 for o in cx_raw if o["type"] == "compacted")
    assert b.entries == len(cx_raw) - 1
