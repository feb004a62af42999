"""Settings ▸ Agents' own compactions: the preview shows the edit, the button makes it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest


def test_preview_then_install_then_uninstall(qtbot: Any, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from sessionlens.gui.settings.integrations import IntegrationsDialog

    monkeypatch.setenv("HOME", str(tmp_path))
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"model": "opus"}')
    dlg = IntegrationsDialog(tmp_path / "sl")
    qtbot.addWidget(dlg)
    dlg.agent_box.setCurrentText("claude-code")
    assert f"edit {settings}" in dlg.preview.toPlainText()
    assert "hook claude-code pre-compact" in dlg.preview.toPlainText()
    assert json.loads(settings.read_text()) == {"model": "opus"}     # nothing written yet
    dlg.apply_button.click()
    assert "PreCompact" in json.loads(settings.read_text())["hooks"]
    assert "Backups:" in dlg.status.text() and "sessionlens-backup" in dlg.status.text()
    assert dlg.preview.toPlainText() == "Nothing to change." and not dlg.apply_button.isEnabled()
    dlg.uninstall_box.setCurrentIndex(1)
    dlg.apply_button.click()
    assert json.loads(settings.read_text()) == {"model": "opus"}


def test_settings_dialog_opens_it(qtbot: Any, make_main_window: Any) -> None:
    from sessionlens.gui.settings.dialog import SettingsDialog
    from sessionlens.gui.settings.profiles import load_profiles

    ctx = make_main_window()
    opened: list[bool] = []
    dlg = SettingsDialog(ctx.controller.overrides, ctx.controller.settings, "o200k_base",
                         "system", load_profiles(ctx.paths.profiles_file), ctx.window,
                         on_integrations=lambda: opened.append(True))
    qtbot.addWidget(dlg)
    dlg.integrations_button.click()
    assert opened == [True]
