"""The settings dialog reads back what the user chose, and its profiles are saved and read."""

from __future__ import annotations

from typing import Any


def test_settings_dialog_reads_back_what_the_user_chose(qtbot: Any, make_main_window: Any) -> None:
    from sessionlens.gui.settings.dialog import SettingsDialog
    from sessionlens.gui.settings.profiles import load_profiles

    ctx = make_main_window()
    dlg = SettingsDialog(ctx.controller.overrides, ctx.controller.settings, "o200k_base",
                         "system", load_profiles(ctx.paths.profiles_file), ctx.window)
    qtbot.addWidget(dlg)
    dlg.keep_box.setValue(12_345)
    dlg.encoding_box.setCurrentText("cl100k_base")
    dlg.theme_box.setCurrentIndex(dlg.theme_box.findData("dark"))
    dlg.p_name.setText("local-llm")
    dlg.p_kind.setCurrentText("openai")
    dlg.p_url.setText("http://127.0.0.1:8080/v1")
    dlg.p_env.setText("LOCAL_LLM_KEY")
    dlg._add_profile()
    chosen = dlg.result_overrides()
    assert chosen.keep_recent_tokens == 12_345
    assert chosen.reserve_tokens is None and chosen.context_window is None  # left as shown
    assert dlg.result_encoding() == "cl100k_base" and dlg.result_theme() == "dark"
    names = [p.name for p in dlg.result_profiles()]
    assert names[0] == "offline" and "local-llm" in names
    from sessionlens.gui.settings.profiles import save_profiles

    save_profiles(ctx.paths.profiles_file, dlg.result_profiles())
    text = ctx.paths.profiles_file.read_text(encoding="utf-8")
    assert "LOCAL_LLM_KEY" in text and "key_env" in text
    assert [p.name for p in load_profiles(ctx.paths.profiles_file)] == names
