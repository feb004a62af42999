"""The registration snippets parse as the agents read them and start this server."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from sessionlens.engine.errors import ConfigError
from sessionlens.engine.recall.registration import registration_for


def test_claude_code_and_codex_snippets(tmp_path: Path) -> None:
    argv = ["/opt/py/bin/python", "-m", "sessionlens.engine.cli", "mcp", "--root",
            str(tmp_path.resolve())]
    claude = registration_for("claude-code", [tmp_path], python="/opt/py/bin/python")
    server = json.loads(claude.snippet)["mcpServers"]["sessionlens"]
    assert [server["command"], *server["args"]] == argv and server["type"] == "stdio"
    assert claude.shell_command.startswith("claude mcp add --scope user sessionlens -- ")
    assert claude.shell_command.endswith(" ".join(argv[1:]))
    codex = registration_for("codex", [tmp_path], python="/opt/py/bin/python")
    table = tomllib.loads(codex.snippet)["mcp_servers"]["sessionlens"]
    assert [table["command"], *table["args"]] == argv
    assert codex.lines()[0] == "# codex: add to ~/.codex/config.toml"
    with_env = registration_for("codex", env={"PYTHONPATH": "/src/engine"})
    assert tomllib.loads(with_env.snippet)["mcp_servers"]["sessionlens"]["env"] == {
        "PYTHONPATH": "/src/engine"}
    assert "codex mcp add --env PYTHONPATH=/src/engine sessionlens -- " in with_env.shell_command
    claude_env = registration_for("claude-code", env={"PYTHONPATH": "/src/engine"})
    assert json.loads(claude_env.snippet)["mcpServers"]["sessionlens"]["env"] == {
        "PYTHONPATH": "/src/engine"}
    with pytest.raises(ConfigError):
        registration_for("vim")
