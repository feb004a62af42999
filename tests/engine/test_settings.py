"""Compaction settings: defaults, the reserve floor, model windows, reading openclaw.json."""

from __future__ import annotations

from dataclasses import FrozenInstanceError
from pathlib import Path

import pytest

from sessionlens.engine.errors import ConfigError
from sessionlens.engine.settings import (
    DEFAULT_SETTINGS,
    CompactionSettings,
    context_window_for_model,
    find_openclaw_config,
    load_openclaw_settings,
)


def test_defaults_are_openclaw_defaults() -> None:
    s = DEFAULT_SETTINGS
    assert (s.enabled, s.reserve_tokens, s.reserve_tokens_floor, s.keep_recent_tokens) == (
        True, 16384, 20000, 20000)
    assert (s.max_history_share, s.recent_turns_preserve, s.identifier_policy, s.mode) == (
        0.5, 3, "strict", "default")
    assert s.effective_reserve == 20000
    assert s.threshold(200_000) == 180_000
    with pytest.raises(FrozenInstanceError):
        s.reserve_tokens = 1  # type: ignore[misc]


def test_floor_zero_disables_it() -> None:
    s = CompactionSettings(reserve_tokens=2048, reserve_tokens_floor=0)
    assert s.effective_reserve == 2048
    assert s.threshold(16_384) == 16_384 - 2048


def test_floor_is_capped_on_small_windows() -> None:
    # OpenClaw keeps min(8000, window/2) for the prompt: 16384 - 8000 = 8384.
    assert CompactionSettings(reserve_tokens=2048).reserve_for(16_384) == 8384
    assert CompactionSettings(reserve_tokens=4096).reserve_for(16_384) == 8384
    assert CompactionSettings().reserve_for(32_768) == 20000
    assert CompactionSettings(reserve_tokens=32_000).reserve_for(200_000) == 32_000


def test_should_compact() -> None:
    s = DEFAULT_SETTINGS
    assert s.should_compact(180_001, 200_000)
    assert not s.should_compact(180_000, 200_000)
    assert not CompactionSettings(enabled=False).should_compact(10**6, 200_000)
    assert not s.should_compact(10, 0)


@pytest.mark.parametrize(("provider", "model", "window"), [
    ("anthropic", "claude-sonnet-4-5-20250929", 200_000),
    ("openrouter", "anthropic/claude-3.5-sonnet", 200_000),
    ("openai", "gpt-4o-mini", 128_000),
    ("openai", "gpt-4.1", 1_047_576),
    ("openai", "o3-mini", 200_000),
    ("openai", "o1-mini", 128_000),
    ("google", "gemini-2.5-pro", 1_048_576),
    ("openai", "gpt-5", 400_000),
    ("nobody", "mystery-model", 128_000),
    (None, None, 128_000),
])
def test_context_window_for_model(provider: str | None, model: str | None, window: int) -> None:
    assert context_window_for_model(provider, model) == window


def test_window_override() -> None:
    assert context_window_for_model("openai", "gpt-4o", override=32_000) == 32_000
    with pytest.raises(ConfigError):
        context_window_for_model("openai", "gpt-4o", override=0)


CONFIG = """{
  // OpenClaw writes JSON5: comments, unquoted keys, trailing commas
  agents: {
    defaults: {
      contextTokens: 150000,
      compaction: {
        mode: 'safeguard',
        reserveTokens: 12000,
        reserveTokensFloor: 24000,
        keepRecentTokens: 30000,
        maxHistoryShare: 0.4,
        recentTurnsPreserve: 20,   /* capped at 12 */
        identifierPolicy: "off",
        qualityGuard: { enabled: true, maxRetries: 2, },
        memoryFlush: { enabled: true },
      },
    },
  },
}
"""


def test_reads_agents_defaults_compaction(tmp_path: Path) -> None:
    (tmp_path / "openclaw.json").write_text(CONFIG)
    s = load_openclaw_settings(tmp_path, env={})
    assert s.mode == "safeguard" and s.identifier_policy == "off"
    assert (s.reserve_tokens, s.reserve_tokens_floor, s.keep_recent_tokens) == (12000, 24000, 30000)
    assert s.effective_reserve == 24000
    assert s.max_history_share == 0.4 and s.recent_turns_preserve == 12
    assert s.quality_guard_enabled and s.quality_guard_max_retries == 2
    assert s.context_window == 150000
    assert s.source == str(tmp_path / "openclaw.json")


def test_state_dir_search_order(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".clawdbot").mkdir(parents=True)
    (home / ".clawdbot" / "clawdbot.json").write_text('{"agents":{"defaults":{"compaction":'
                                                      '{"keepRecentTokens": 5000}}}}')
    env = {"HOME": str(home)}
    assert load_openclaw_settings(None, env).keep_recent_tokens == 5000
    (home / ".openclaw").mkdir()
    (home / ".openclaw" / "openclaw.json").write_text("{}")
    assert load_openclaw_settings(None, env).keep_recent_tokens == 20000
    state = tmp_path / "state"
    state.mkdir()
    (state / "openclaw.json").write_text("{agents:{defaults:{compaction:{enabled:false}}}}")
    assert load_openclaw_settings(None, {**env, "OPENCLAW_STATE_DIR": str(state)}).enabled is False
    assert find_openclaw_config(None, {**env, "OPENCLAW_CONFIG_PATH": str(state / "openclaw.json")}
                                ) == state / "openclaw.json"


def test_no_config_gives_defaults(tmp_path: Path) -> None:
    assert load_openclaw_settings(tmp_path, env={}) is DEFAULT_SETTINGS
    assert load_openclaw_settings(None, {"HOME": str(tmp_path)}) is DEFAULT_SETTINGS


def test_broken_file_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "openclaw.json"
    path.write_text('{\n  agents: {\n    defaults: { compaction: { reserveTokens: , } },\n  },\n}\n')
    with pytest.raises(ConfigError, match=rf"{path}:3:"):
        load_openclaw_settings(tmp_path, env={})


def test_bad_value_names_file_line_and_key(tmp_path: Path) -> None:
    path = tmp_path / "openclaw.json"
    path.write_text('{\n  "agents": {"defaults": {"compaction": {\n    "mode": "turbo"\n  }}}\n}\n')
    with pytest.raises(ConfigError, match=rf"{path}:3: agents.defaults.compaction.mode"):
        load_openclaw_settings(tmp_path, env={})
    path.write_text('{"agents": {"defaults": {"compaction": {"keepRecentTokens": 0}}}}')
    with pytest.raises(ConfigError, match="keepRecentTokens"):
        load_openclaw_settings(tmp_path, env={})


def test_a_compaction_provider_forces_safeguard(tmp_path: Path) -> None:
    (tmp_path / "openclaw.json").write_text('{agents:{defaults:{compaction:{provider:"p"}}}}')
    assert load_openclaw_settings(tmp_path, env={}).mode == "safeguard"
