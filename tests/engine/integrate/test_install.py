"""``integrate``: planned edits, backups, atomic writes, and an uninstall that leaves the
user's own entries."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sessionlens.engine._io.folders import user_folders
from sessionlens.engine.cli import main
from sessionlens.engine.errors import ConfigError
from sessionlens.engine.integrate.install import apply_changes, plan_changes


@pytest.fixture(autouse=True)
def _no_agent_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("PI_CODING_AGENT_DIR", "OPENCLAW_STATE_DIR", "OPENCLAW_CONFIG_PATH",
                 "CODEX_HOME"):
        monkeypatch.delenv(name, raising=False)


def test_claude_code_hooks_added_backed_up_and_removed(tmp_path: Path) -> None:
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    mine = {"matcher": "", "hooks": [{"type": "command", "command": "echo mine"}]}
    settings.write_text(json.dumps({"model": "opus", "hooks": {"PreCompact": [mine]}}))
    folders = user_folders(tmp_path / "sl")
    changes = plan_changes("claude-code", folders, home=tmp_path)
    assert [c.action for c in changes] == ["edit"]
    assert json.loads(settings.read_text())["hooks"] == {"PreCompact": [mine]}  # planned only
    backups = apply_changes(changes)
    assert [json.loads(b.read_text())["model"] for b in backups] == ["opus"]
    hooks = json.loads(settings.read_text())["hooks"]
    assert hooks["PreCompact"][0] == mine and len(hooks["PreCompact"]) == 2
    assert "hook claude-code post-compact" in hooks["PostCompact"][0]["hooks"][0]["command"]
    assert plan_changes("claude-code", folders, home=tmp_path) == []     # idempotent
    apply_changes(plan_changes("claude-code", folders, home=tmp_path, uninstall=True))
    assert json.loads(settings.read_text()) == {"model": "opus", "hooks": {"PreCompact": [mine]}}


def test_pi_files_created_then_removed(tmp_path: Path) -> None:
    folders = user_folders(tmp_path / "sl")
    apply_changes(plan_changes("pi", folders, home=tmp_path))
    agent = tmp_path / ".pi" / "agent"
    assert "session_before_compact" in (agent / "extensions" / "sessionlens.js").read_text()
    cfg = json.loads((agent / "sessionlens.json").read_text())
    assert cfg["command"][-3:] == ["compact-for-agent", "--basedir", str(tmp_path / "sl")]
    apply_changes(plan_changes("pi", folders, home=tmp_path, uninstall=True))
    assert not (agent / "sessionlens.json").exists()
    assert not (agent / "extensions" / "sessionlens.js").exists()


def test_openclaw_config_edited_and_a_json5_file_refused(tmp_path: Path) -> None:
    path = tmp_path / ".openclaw" / "openclaw.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"plugins": {"allow": ["memory"]},
                                "agents": {"defaults": {"compaction": {"mode": "safeguard"}}}}))
    folders = user_folders(tmp_path / "sl")
    apply_changes(plan_changes("openclaw", folders, home=tmp_path))
    cfg = json.loads(path.read_text())
    assert cfg["agents"]["defaults"]["compaction"] == {"mode": "safeguard",
                                                       "provider": "sessionlens"}
    assert cfg["plugins"]["allow"] == ["memory", "sessionlens"]
    assert cfg["plugins"]["load"]["paths"][0].endswith("packaging/integrations/openclaw")
    apply_changes(plan_changes("openclaw", folders, home=tmp_path, uninstall=True))
    assert json.loads(path.read_text()) == {"plugins": {"allow": ["memory"]}, "agents": {
        "defaults": {"compaction": {"mode": "safeguard"}}}}
    path.write_text("{ // mine\n agents: {} }\n")
    with pytest.raises(ConfigError, match="openclaw.json:1"):
        plan_changes("openclaw", folders, home=tmp_path)


def test_codex_prompt_file_key_and_hooks(tmp_path: Path) -> None:
    toml = tmp_path / ".codex" / "config.toml"
    toml.parent.mkdir()
    toml.write_text('model = "m"\n\n[model_providers.local]\nname = "x"\n')
    folders = user_folders(tmp_path / "sl")
    apply_changes(plan_changes("codex", folders, home=tmp_path))
    text = toml.read_text()
    assert text.splitlines()[0].startswith("experimental_compact_prompt_file = ")
    assert (folders.config / "codex-compact-prompt.md").is_file()
    assert "PostCompact" in json.loads((tmp_path / ".codex" / "hooks.json").read_text())["hooks"]
    apply_changes(plan_changes("codex", folders, home=tmp_path, uninstall=True))
    assert toml.read_text() == 'model = "m"\n\n[model_providers.local]\nname = "x"\n'
    toml.write_text('experimental_compact_prompt_file = "/mine.md"\n')
    with pytest.raises(ConfigError, match="leaves it alone"):
        plan_changes("codex", folders, home=tmp_path)


def test_dry_run_prints_the_edit_and_changes_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert main(["integrate", "claude-code", "--dry-run", "--basedir", str(tmp_path / "sl")]) == 0
    out = capsys.readouterr().out
    assert f"would create {tmp_path}/.claude/settings.json" in out and '+  "hooks": {' in out
    assert not (tmp_path / ".claude").exists()
