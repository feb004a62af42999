"""pi's own settings for a file pi wrote: reserve and keepRecentTokens from settings.json (the
project's over the global one), the window from models.json, no reserve floor."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fixtures.factories import TranscriptBuilder
from sessionlens.engine.agents.pi.pi_settings import pi_agent_dir
from sessionlens.engine.errors import ConfigError
from sessionlens.engine.opened import config_for, open_transcript


def _pi_home(tmp: Path, settings: dict[str, object] | None, project: dict[str, object] | None,
             window: int = 8_000) -> Path:
    agent = tmp / ".pi" / "agent"
    folder = agent / "sessions" / "--home-dev-project--"
    folder.mkdir(parents=True)
    (agent / "models.json").write_text(json.dumps({"providers": {"local": {"models": [
        {"id": "scripted", "contextWindow": window}]}}}))
    if settings is not None:
        (agent / "settings.json").write_text(json.dumps(settings))
    cwd = tmp / "project"
    if project is not None:
        (cwd / ".pi").mkdir(parents=True)
        (cwd / ".pi" / "settings.json").write_text(json.dumps(project))
    b = TranscriptBuilder(path=folder / "s.jsonl", cwd=str(cwd))
    b.user("hi")
    b.assistant("hello", model="scripted", provider="local", usage=1_000)
    return b.write(folder / "s.jsonl")


def test_settings_and_window_are_pis(tmp_path: Path) -> None:
    path = _pi_home(tmp_path, {"compaction": {"reserveTokens": 2_000, "keepRecentTokens": 300}},
                    None)
    assert pi_agent_dir(path) == tmp_path / ".pi" / "agent"
    r = open_transcript(path).resolved
    assert (r.window, r.reserve_tokens.value, r.keep_recent_tokens.value, r.threshold) == (
        8_000, 2_000, 300, 6_000)
    assert "models.json" in r.context_window.source and "settings.json" in r.reserve_tokens.source
    assert not [w for w in r.warnings if "threshold" in w]


def test_the_project_settings_win_and_defaults_have_no_floor(tmp_path: Path) -> None:
    path = _pi_home(tmp_path, {"compaction": {"reserveTokens": 2_000}},
                    {"compaction": {"keepRecentTokens": 123}}, window=40_000)
    cfg = config_for(path)
    assert (cfg.reserve_tokens, cfg.keep_recent_tokens, cfg.reserve_tokens_floor) == (2_000, 123, 0)
    assert cfg.source is not None and ".pi/settings.json" in cfg.source
    bare = _pi_home(tmp_path / "b", None, None, window=40_000)
    r = open_transcript(bare).resolved
    # pi's defaults: reserve 16,384 without OpenClaw's 20,000 floor
    assert (r.reserve_tokens.value, r.threshold) == (16_384, 40_000 - 16_384)


def test_a_reserve_not_below_the_window_is_a_warning(tmp_path: Path) -> None:
    path = _pi_home(tmp_path, {"compaction": {"reserveTokens": 9_000}}, None)
    r = open_transcript(path).resolved
    assert r.threshold < 0 and any("every turn would compact" in w for w in r.warnings)


def test_a_broken_settings_file_names_file_and_line(tmp_path: Path) -> None:
    path = _pi_home(tmp_path, None, None)
    (tmp_path / ".pi" / "agent" / "settings.json").write_text('{\n  "compaction": {,\n}')
    with pytest.raises(ConfigError, match=r"settings\.json:2:"):
        config_for(path)
