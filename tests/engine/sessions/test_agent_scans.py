"""Finding every other agent's sessions in its default folders, cheaply.

The shared samples are copied into a fake home under each agent's default folder (and the
project-local ones under a project Crush lists); the listing must find every agent, agree
with the full load on compactions and on what it counts, and never run an adapter.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fixtures.agent_files import agent_home, write
from fixtures.openclaw_store import unpack_store
from sessionlens.engine.load import reader
from sessionlens.engine.load.formats import catalog
from sessionlens.engine.sessions import agent_folders, agent_scans
from sessionlens.engine.sessions.discovery import default_session_dirs, discover_sessions

AGENTS = {"gemini-cli", "copilot-cli", "crush", "opencode-go", "cursor", "cline", "aider",
          "kimi-cli", "amp", "continue"}


@pytest.fixture()
def fake_home(samples_dir: Path, tmp_path: Path) -> Path:
    if not (samples_dir / "agents").is_dir():
        pytest.skip("agent samples absent")
    return agent_home(samples_dir / "agents", tmp_path / "home")


def test_every_agent_is_found_in_its_default_folders_without_running_an_adapter(
        fake_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_a: object, **_k: object) -> None:
        raise AssertionError("a listing must not parse transcripts")

    monkeypatch.setattr(reader, "parse_bytes", refuse)
    monkeypatch.setattr(reader, "load_transcript", refuse)
    dirs = default_session_dirs(fake_home, {})
    found = discover_sessions(dirs)
    assert {s.agent for s in found} == AGENTS
    by_agent = {a: [s for s in found if s.agent == a] for a in AGENTS}
    assert len(by_agent["crush"]) == 5 and len(by_agent["opencode-go"]) == 3
    assert len(by_agent["aider"]) == 10
    assert all(s.path.parent.name == "crush.db" for s in by_agent["crush"])
    sub = next(s for s in by_agent["crush"] if s.session_id.startswith("call_"))
    assert sub.parent_session_id == "093f9963-97b6-4279-9bea-ded429193b34"
    assert {s.title for s in by_agent["amp"]} == {"Greeting and initial interaction",
                                                  "User logout process"}


def test_the_listing_agrees_with_the_full_load(fake_home: Path) -> None:
    found = discover_sessions(default_session_dirs(fake_home, {}))
    for info in found:
        t = reader.load_transcript(info.path)
        assert t.format == info.format, info.path
        assert len(t.compactions) == info.compactions, info.path
        body = [e for e in t.entries if e.type != "session_info"]
        if info.agent in ("aider", "cursor") and info.format != "cursor-txt":
            assert info.entries == len(body), info.path  # one entry per block / line
        if info.agent in ("gemini-cli", "amp", "crush", "opencode-go"):
            records = {e.id.split(":")[0] for e in body}  # a record split into pieces
            assert info.entries == len(records), info.path


def test_env_overrides_move_the_default_folders(tmp_path: Path) -> None:
    env = {"GEMINI_CLI_HOME": str(tmp_path / "g"), "COPILOT_HOME": str(tmp_path / "c"),
           "KIMI_SHARE_DIR": str(tmp_path / "k"), "CONTINUE_GLOBAL_DIR": str(tmp_path / "n"),
           "XDG_DATA_HOME": str(tmp_path / "x"), "CURSOR_CONFIG_DIR": str(tmp_path / "u"),
           "AIDER_CHAT_HISTORY_FILE": str(tmp_path / "a.md"), "PWD": str(tmp_path / "p")}
    home = tmp_path / "home"
    assert agent_folders.gemini_dirs(home, env) == [tmp_path / "g" / ".gemini" / "tmp"]
    assert agent_folders.copilot_dirs(home, env)[0] == tmp_path / "c" / "session-state"
    assert agent_folders.kimi_dirs(home, env) == [tmp_path / "k" / "sessions"]
    assert agent_folders.continue_dirs(home, env) == [tmp_path / "n" / "sessions"]
    assert agent_folders.amp_dirs(home, env) == [tmp_path / "x" / "amp" / "threads"]
    assert agent_folders.opencode_files(home, env) == [tmp_path / "x" / "opencode" /
                                                      "opencode.db"]
    assert agent_folders.cursor_dirs(home, env) == [tmp_path / "u" / "projects"]
    assert agent_folders.aider_files(home, env)[:2] == [tmp_path / "a.md", tmp_path / "p" /
                                                        ".aider.chat.history.md"]
    assert tmp_path / "p" / ".crush" / "crush.db" in agent_folders.crush_files(home, env)
    assert agent_folders.gemini_dirs(home, {}) == [home / ".gemini" / "tmp"]


def test_a_big_json_document_is_counted_without_decoding_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(agent_scans, "DOCUMENT_LIMIT", 10)
    write(tmp_path / "tasks" / "t" / "ui_messages.json", json.dumps([
        {"ts": 1, "type": "say", "say": "task", "text": "go"},
        {"ts": 2, "type": "say", "say": "condense_context"}], separators=(",", ":")))
    (info,) = discover_sessions([tmp_path])
    assert (info.entries, info.compactions, info.title) == (2, 1, None)


def test_every_format_read_has_a_source_listing_it() -> None:
    listed = {f for s in agent_scans.AGENT_SOURCES for f in s.formats}
    old = {"openclaw-v3", "pi-v1", "pi-v2", "claude-code", "codex"}
    assert listed == set(catalog.FORMATS) - old


def test_openclaw_store_sessions_are_listed_one_by_one(tmp_path: Path) -> None:
    """OpenClaw 2026.8+ keeps no JSONL: each window of its SQLite store is a session."""
    home = tmp_path / "home"
    store = unpack_store(home)
    dirs = default_session_dirs(home, {})
    assert store in dirs
    found = [s for s in discover_sessions(dirs) if s.format == "openclaw-sqlite"]
    assert sorted(s.session_id or "" for s in found) == ["alpha", "beta"]
    for s in found:
        t = reader.load_transcript(s.path)  # the listed path opens that session
        assert s.path == store / (s.session_id or "") and s.agent == "main"
        assert s.entries == len(t.entries)
        assert s.compactions == sum(1 for e in t.entries if e.type == "compaction")
        assert s.project == (t.header.cwd if t.header else None)
