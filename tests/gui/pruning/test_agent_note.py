"""The pruning tab on another agent's file says that agent does not prune this way."""

from __future__ import annotations

from typing import Any

from fixtures.agent_lines import asst, cc_load, result, tool_use, user
from sessionlens.engine import CompactionSettings, pruning_delay
from sessionlens.gui.pruning.panel import PruningPanel


def test_the_panel_says_claude_code_does_not_prune(qtbot: Any) -> None:
    t = cc_load(user("u1", None, "read it"), asst("a1", "u1", [tool_use("t1")]),
                user("r1", "a1", [result("t1", "x" * 4000)]),
                asst("a2", "r1", [{"type": "text", "text": "done"}]))
    panel = PruningPanel()
    qtbot.addWidget(panel)
    panel.show_delay(pruning_delay(t, CompactionSettings(context_window=50_000)))
    first = panel.summary.text().splitlines()[0]
    assert first.startswith("Claude Code does not prune tool results this way")
