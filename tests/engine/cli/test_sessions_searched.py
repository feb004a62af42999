"""``sessions`` with no folder names every place it searched, present or not."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from fixtures.samples import sample_path
from sessionlens.engine.cli import main
from sessionlens.engine.sessions.discovery import searched_session_dirs


def test_every_searched_place_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str],
                                       samples_dir: Path) -> None:
    home = tmp_path / "home"
    projects = home / ".claude" / "projects" / "-work-app"
    projects.mkdir(parents=True)
    shutil.copyfile(sample_path(samples_dir, "07_"), projects / "675b2557.jsonl")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(tmp_path)
    for var in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "OPENCLAW_STATE_DIR", "PI_CODING_AGENT_DIR"):
        monkeypatch.delenv(var, raising=False)
    searched = searched_session_dirs()
    agents = {f.agent for f in searched}
    assert {"pi/openclaw", "claude-code", "codex"} <= agents
    assert [f.path for f in searched if f.exists] == [home / ".claude" / "projects"]
    assert main(["sessions"]) == 0
    text = capsys.readouterr().out
    assert f"claude-code {home / '.claude' / 'projects'}  (1 session)" in text
    for agent in agents - {"claude-code"}:
        assert f"  {agent:11} not on this machine: " in text
    assert main(["sessions", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["searched"]) == len(searched) and len(out["sessions"]) == 1
    assert sum(1 for f in out["searched"] if f["exists"]) == 1
