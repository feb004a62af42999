"""Session folders and quick scans (§2); file names are in test_classify, sessions.json in
test_store."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fixtures.factories import TranscriptBuilder
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.sessions.discovery import (
    SOURCES,
    SessionInfo,
    SessionSource,
    default_session_dirs,
    discover_sessions,
    load_plugin_sources,
    register_source,
)

UUID = "0b0e6c1e-1111-4222-8333-444455556666"


def transcript(path: Path, n: int = 3, compactions: int = 1, sid: str = "sid",
               cwd: str = "/proj") -> Path:
    b = TranscriptBuilder(session_id=sid, cwd=cwd, plain_users=True)
    for i in range(n):
        b.user('quoting {"type":"compaction"} is not one', id=f"m{i}")
    for i in range(compactions):
        b.compaction("s", b.leaf, 1, id=f"c{i}")
    path.parent.mkdir(parents=True, exist_ok=True)
    return b.write(path)


def test_default_dirs_follow_home_and_env(tmp_path: Path) -> None:
    home = tmp_path / "home"
    pi = home / ".pi" / "agent" / "sessions"
    main = home / ".openclaw" / "agents" / "main" / "sessions"
    legacy = home / ".clawdbot" / "agents" / "old" / "sessions"
    for d in (pi, main, legacy):
        d.mkdir(parents=True)
    assert default_session_dirs(home, {}) == [pi, main, legacy]
    state = tmp_path / "state"
    (state / "agents" / "ops" / "sessions").mkdir(parents=True)
    custom_pi = tmp_path / "pi-agent"
    (custom_pi / "sessions").mkdir(parents=True)
    env = {"OPENCLAW_STATE_DIR": str(state), "PI_CODING_AGENT_DIR": str(custom_pi)}
    assert default_session_dirs(home, env) == [custom_pi / "sessions",
                                               state / "agents" / "ops" / "sessions"]
    assert default_session_dirs(tmp_path / "empty", {}) == []


def test_discovery_scans_cheaply_and_skips_artifacts(tmp_path: Path) -> None:
    sessions = tmp_path / ".openclaw" / "agents" / "main" / "sessions"
    live = transcript(sessions / f"{UUID}.jsonl", n=4, compactions=2, sid=UUID)
    (sessions / f"{UUID}.jsonl.lock").write_text("1")
    transcript(sessions / f"{UUID}.checkpoint.{UUID}.jsonl")
    transcript(sessions / f"{UUID}.jsonl.reset.2026-01-01T10-00-00.000Z")
    (sessions / "sessions.json").write_text("{}")
    (sessions / "other.jsonl").write_text('{"a": 1}\n')
    pi_file = transcript(tmp_path / ".pi" / "agent" / "sessions" / "--w--" / f"x_{UUID}.jsonl",
                         n=1, compactions=0, cwd="/w")
    found = discover_sessions([tmp_path])
    assert sorted(s.path for s in found) == sorted([live, pi_file])
    info = next(s for s in found if s.path == live)
    loaded = load_transcript(live)
    assert (info.entries, info.compactions) == (len(loaded.entries), len(loaded.compactions))
    assert (info.agent, info.session_id, info.project, info.format) == (
        "main", UUID, "/proj", "openclaw-v3")
    assert info.size == live.stat().st_size
    assert next(s for s in found if s.path == pi_file).agent == "pi"
    with_archives = discover_sessions([sessions], kinds=frozenset({"primary", "archive-reset",
                                                                   "checkpoint"}))
    assert {s.kind for s in with_archives} == {"primary", "archive-reset", "checkpoint"}


@pytest.mark.parametrize("tail", [b'{"type":"message","id":"zz","par', b"   ", b""])
def test_listing_agrees_with_the_loader_on_a_cut_off_last_line(tmp_path: Path,
                                                               tail: bytes) -> None:
    """QA: `sessions` listed 119 entries for a file whose last line a writer cut off, while
    `inspect` (rightly) loaded 118 and reported the cut line as a diagnostic."""
    path = transcript(tmp_path / f"{UUID}.jsonl", n=4, compactions=1, sid=UUID)
    path.write_bytes(path.read_bytes() + tail)
    loaded = load_transcript(path)
    (info,) = discover_sessions([path])
    assert info.entries == len(loaded.entries)
    assert info.compactions == len(loaded.compactions)


def test_listing_counts_a_complete_last_line_without_newline(tmp_path: Path) -> None:
    path = transcript(tmp_path / f"{UUID}.jsonl", n=4, compactions=1, sid=UUID)
    path.write_bytes(path.read_bytes().rstrip(b"\n"))
    (info,) = discover_sessions([path])
    assert info.entries == len(load_transcript(path).entries)


def test_other_agents_plug_in_their_folders_and_scanner(tmp_path: Path) -> None:
    folder = tmp_path / ".codex" / "sessions"
    folder.mkdir(parents=True)
    f = folder / "rollout-1.jsonl"
    f.write_text(json.dumps({"timestamp": "t", "type": "session_meta",
                             "payload": {"id": "cx"}}) + "\n")

    def scan(path: Path, fmt: Any, head: bytes) -> SessionInfo:
        return SessionInfo(path, "codex", "cx", fmt, 7, 0, 1, __import__("datetime").datetime
                           .fromtimestamp(0), None)

    load_plugin_sources()  # so restoring SOURCES below keeps the real adapters' sources
    before = list(SOURCES)
    try:
        register_source(SessionSource("codex", lambda home, env: [home / ".codex" / "sessions"],
                                      frozenset({"codex"}), scan))
        assert folder in default_session_dirs(tmp_path, {})
        [info] = discover_sessions([folder])
        assert (info.agent, info.session_id, info.entries) == ("codex", "cx", 7)
    finally:
        SOURCES[:] = before


