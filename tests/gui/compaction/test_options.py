"""The compaction options show the sizes in force: the engine's resolved values, one truth."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fixtures.qt_app import mount
from fixtures.scenarios import write_session
from sessionlens.gui.settings.dialog import SettingsDialog


def test_the_reserve_field_shows_the_reserve_the_run_uses(qtbot: Any, make_app: Any,
                                                          tmp_path: Path) -> None:
    ctx = make_app()
    parts = mount(qtbot, ctx, write_session(tmp_path / "s"))
    resolved = ctx.controller.resolved
    assert resolved is not None
    in_force = int(resolved.reserve_tokens.value)
    # the default reserveTokens 16,384 is raised to OpenClaw's floor 20,000
    assert resolved.settings.reserve_tokens == 16_384 and in_force == 20_000
    assert parts.panel.reserve.value() == in_force
    assert "raised to the floor 20,000" in parts.panel.reserve.toolTip()
    plan = parts.controller.plan
    assert plan is not None and plan.context_window - plan.threshold == in_force
    # leaving the field as shown sets nothing; a new value is the user's own
    parts.controller.set_sizes(parts.panel.keep_recent.value(), in_force)
    assert ctx.controller.overrides.reserve_tokens is None
    dlg = SettingsDialog(ctx.controller.overrides, ctx.controller.settings, "o200k_base",
                         "system", [], resolved=resolved)
    qtbot.addWidget(dlg)
    assert dlg.reserve_box.value() == in_force
    assert "raised to the floor 20,000" in dlg.reserve_source.text()
    assert dlg.result_overrides().reserve_tokens is None  # left as shown
