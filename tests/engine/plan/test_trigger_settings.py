"""openclaw.json keys of the other triggers: memoryFlush, maxActiveTranscriptBytes, precheck."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sessionlens.engine.errors import ConfigError
from sessionlens.engine.plan.trigger_settings import parse_byte_size
from sessionlens.engine.settings import DEFAULT_SETTINGS, load_openclaw_settings


@pytest.mark.parametrize(("value", "expected"), [
    ("20mb", 20 * 1024 * 1024), ("512kb", 512 * 1024), ("2MB", 2 * 1024 * 1024),
    ("1.5k", 1536), ("500", 500), (" 1g ", 1024 ** 3), (4096, 4096), (0, 0),
])
def test_byte_sizes_read_as_openclaw_reads_them(value: object, expected: int) -> None:
    assert parse_byte_size(value) == expected


@pytest.mark.parametrize("value", ["20 mb", "20xb", "-1", "", "mb", True, None, -5, [1]])
def test_bad_byte_sizes_are_refused(value: object) -> None:
    with pytest.raises(ValueError):
        parse_byte_size(value)


def _config(tmp_path: Path, defaults: dict[str, object]) -> Path:
    (tmp_path / "openclaw.json").write_text(json.dumps({"agents": {"defaults": defaults}},
                                                       indent=2), encoding="utf-8")
    return tmp_path


def test_defaults_leave_the_flush_on_and_the_guards_off() -> None:
    s = DEFAULT_SETTINGS
    assert (s.memory_flush_enabled, s.memory_flush_soft_threshold_tokens) == (True, 4000)
    assert s.memory_flush_force_transcript_bytes == 2 * 1024 * 1024
    assert (s.max_active_transcript_bytes, s.truncate_after_compaction,
            s.mid_turn_precheck_enabled) == (None, False, False)


def test_every_key_is_read_from_the_config(tmp_path: Path) -> None:
    folder = _config(tmp_path, {
        "compaction": {
            "memoryFlush": {"enabled": False, "model": "ollama/qwen3:8b",
                            "softThresholdTokens": 6000, "prompt": " Save now. ",
                            "systemPrompt": "Flush turn.", "forceFlushTranscriptBytes": "1mb"},
            "maxActiveTranscriptBytes": "20mb", "truncateAfterCompaction": True,
            "midTurnPrecheck": {"enabled": True}},
        "sandbox": {"mode": "all", "workspaceAccess": "ro"}})
    s = load_openclaw_settings(folder, env={})
    assert (s.memory_flush_enabled, s.memory_flush_model, s.memory_flush_soft_threshold_tokens,
            s.memory_flush_prompt, s.memory_flush_system_prompt) == (
        False, "ollama/qwen3:8b", 6000, "Save now.", "Flush turn.")
    assert s.memory_flush_force_transcript_bytes == 1024 * 1024
    assert s.max_active_transcript_bytes == 20 * 1024 * 1024
    assert s.truncate_after_compaction and s.mid_turn_precheck_enabled
    assert (s.sandbox_mode, s.sandbox_workspace_access) == ("all", "ro")


def test_zero_bytes_turns_the_guard_off(tmp_path: Path) -> None:
    folder = _config(tmp_path, {"compaction": {"maxActiveTranscriptBytes": 0}})
    assert load_openclaw_settings(folder, env={}).max_active_transcript_bytes is None


@pytest.mark.parametrize(("compaction", "key"), [
    ({"maxActiveTranscriptBytes": "twenty"}, "maxActiveTranscriptBytes"),
    ({"memoryFlush": {"softThresholdTokens": -1}}, "softThresholdTokens"),
    ({"memoryFlush": {"enabled": "yes"}}, "enabled"),
    ({"memoryFlush": "on"}, "memoryFlush"),
    ({"truncateAfterCompaction": 1}, "truncateAfterCompaction"),
])
def test_a_bad_value_names_the_file_line_and_key(tmp_path: Path, compaction: dict[str, object],
                                                 key: str) -> None:
    folder = _config(tmp_path, {"compaction": compaction})
    with pytest.raises(ConfigError) as info:
        load_openclaw_settings(folder, env={})
    text = (folder / "openclaw.json").read_text(encoding="utf-8")
    line = next(n for n, row in enumerate(text.splitlines(), 1) if f'"{key}"' in row)
    assert f"openclaw.json:{line}:" in str(info.value) and key in str(info.value)
