"""The session browser lists the sessions of every agent found in their default folders."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from fixtures.agent_files import agent_home
from sessionlens.engine import default_session_dirs, discover_sessions
from sessionlens.gui.sessions.model import SessionTreeModel, group_key, session_label

AGENTS = {"gemini-cli", "copilot-cli", "crush", "opencode-go", "cursor", "cline", "aider",
          "kimi-cli", "amp", "continue"}


def test_every_agent_gets_its_groups_and_titled_rows(samples_dir: Path, tmp_path: Path,
                                                     qtmodeltester: Any) -> None:
    if not (samples_dir / "agents").is_dir():
        pytest.skip("agent samples absent")
    home = agent_home(samples_dir / "agents", tmp_path / "home")
    infos = discover_sessions(default_session_dirs(home, {}))
    model = SessionTreeModel()
    model.set_rows(infos)
    qtmodeltester.check(model)
    groups = [model.index(r, 0).data() for r in range(model.rowCount())]
    assert {g.split(" ")[0] for g in groups} == AGENTS
    assert model.session_count() == len(infos)
    titled = next(i for i in infos if i.title == "Add Redis")
    assert session_label(titled) == "Add Redis"
    assert group_key(titled).startswith("crush · ")
