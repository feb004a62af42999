"""Compaction settings: pi's and OpenClaw's defaults, the user's OpenClaw config, model windows.

SessionLens should decide as the user's own agent would, so the defaults are OpenClaw's
(transcript-format.md §3.1, §3.6) and, when an ``openclaw.json`` exists, its
``agents.defaults.compaction`` block overrides them. Reading the file is the only I/O here and
takes explicit paths; everything else is pure.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any, Literal

from ._io.json5 import Json5Error, line_of_key, loads
from .contract.templates import IdentifierPolicy
from .errors import ConfigError
from .plan.trigger_settings import trigger_settings_changes

__all__ = [
    "DEFAULT_CONTEXT_WINDOW", "DEFAULT_SETTINGS", "MIN_PROMPT_BUDGET_RATIO",
    "MIN_PROMPT_BUDGET_TOKENS", "MODEL_CONTEXT_WINDOWS", "CompactionSettings",
    "context_window_for_model", "find_openclaw_config", "known_context_window",
    "load_openclaw_settings",
]

#: Window assumed for a model nobody knows (pi's branch-summary default, OpenClaw's fallback).
DEFAULT_CONTEXT_WINDOW = 128_000
#: OpenClaw caps the reserve floor so at least min(8000, window/2) tokens stay for the prompt.
MIN_PROMPT_BUDGET_TOKENS = 8_000
MIN_PROMPT_BUDGET_RATIO = 0.5

CompactionMode = Literal["default", "safeguard"]


@dataclass(frozen=True, slots=True)
class CompactionSettings:
    """When to compact and how much to keep; pi names in snake case, OpenClaw extras after."""

    enabled: bool = True
    reserve_tokens: int = 16384
    #: OpenClaw raises ``reserve_tokens`` to this; 0 disables the floor.
    reserve_tokens_floor: int = 20000
    keep_recent_tokens: int = 20000
    #: None: take it from the model (``context_window_for_model``).
    context_window: int | None = None
    # OpenClaw safeguard mode (§3.6)
    max_history_share: float = 0.5
    recent_turns_preserve: int = 3
    quality_guard_enabled: bool = False
    quality_guard_max_retries: int = 1
    identifier_policy: IdentifierPolicy = "strict"
    identifier_instructions: str | None = None
    mode: CompactionMode = "default"
    custom_instructions: str | None = None
    #: The config file these settings came from, or None for built-in defaults.
    source: str | None = None
    #: How the planner picks the cut (see plan.rules.CUT_RULES); None: the rule of the agent
    #: that wrote the file (plan.rules.default_cut_rule).
    cut_rule: str | None = None
    # Memory flush, file-size guard, mid-turn precheck (read by plan/trigger_settings.py)
    memory_flush_enabled: bool = True
    #: None: the session model (exact, no fallback chain).
    memory_flush_model: str | None = None
    #: The flush runs this many tokens below the compaction threshold.
    memory_flush_soft_threshold_tokens: int = 4000
    #: None: OpenClaw's own prompt ("Pre-compaction memory flush. ...").
    memory_flush_prompt: str | None = None
    memory_flush_system_prompt: str | None = None
    memory_flush_force_transcript_bytes: int = 2 * 1024 * 1024
    #: None (or 0 in the config): the file-size guard is off.
    max_active_transcript_bytes: int | None = None
    truncate_after_compaction: bool = False
    mid_turn_precheck_enabled: bool = False
    #: ``agents.defaults.sandbox``: "off" / "non-main" / "all", and "none" / "ro" / "rw".
    sandbox_mode: str | None = None
    sandbox_workspace_access: str | None = None
    #: OpenClaw 2026.8+ caps the reserve at this share of the window (its
    #: ``MAX_COMPACTION_RESERVE_RATIO`` 0.25: three quarters stay for the prompt), instead of
    #: the older cap of the floor; 0: the older rule (releases before the SQLite store).
    reserve_window_share: float = 0.0
    #: Windows the agent's own model list states, ("provider/id", contextWindow) (pi's
    #: ``models.json``), and the file they came from.
    model_windows: tuple[tuple[str, int], ...] = ()
    model_windows_source: str | None = None

    @property
    def effective_reserve(self) -> int:
        """``reserve_tokens`` raised to the floor (unless the floor is 0), window not known."""
        if self.reserve_tokens_floor == 0:
            return self.reserve_tokens
        return max(self.reserve_tokens, self.reserve_tokens_floor)

    def reserve_for(self, window: int) -> int:
        """The reserve OpenClaw applies for a known window: the floor is capped so that at
        least ``min(8000, window/2)`` tokens remain for the prompt on small models; from
        2026.8 on (``reserve_window_share``) the raised reserve is capped at a quarter of the
        window (``resolveEffectiveCompactionReserveTokens``)."""
        if self.reserve_window_share > 0:
            requested = max(self.reserve_tokens, self.reserve_tokens_floor)
            return min(max(0, requested),
                       math.floor(max(1, window) * self.reserve_window_share))
        if self.reserve_tokens_floor == 0:
            return self.reserve_tokens
        min_prompt = min(MIN_PROMPT_BUDGET_TOKENS,
                         max(1, math.floor(window * MIN_PROMPT_BUDGET_RATIO)))
        floor = min(self.reserve_tokens_floor, max(0, window - min_prompt))
        return max(self.reserve_tokens, floor)

    def threshold(self, window: int) -> int:
        """Context tokens above which a compaction fires: ``window - reserve``."""
        return window - self.reserve_for(window)

    def should_compact(self, context_tokens: int, window: int) -> bool:
        """pi ``shouldCompact`` with OpenClaw's guard that the window is finite and positive."""
        return self.enabled and window > 0 and context_tokens > self.threshold(window)


DEFAULT_SETTINGS = CompactionSettings()


# --------------------------------------------------------------------------- model windows

#: (pattern on the lower-cased model id, window). First match wins, so specific ids come first.
MODEL_CONTEXT_WINDOWS: tuple[tuple[str, int], ...] = (
    # Claude Code 2.1.332 reports contextWindow 1,000,000 for claude-opus-5-5 (the
    # ``-p --output-format json`` result's modelUsage; the session file does not say)
    (r"claude-opus-5", 1_000_000),
    (r"claude", 200_000),
    (r"gpt-4\.1", 1_047_576),
    (r"gpt-4o|chatgpt-4o|gpt-4-turbo|gpt-4-1106|gpt-4-0125", 128_000),
    (r"gpt-4-32k", 32_768),
    (r"gpt-4(?!\.|o)", 8_192),
    (r"gpt-3\.5", 16_385),
    (r"gpt-5", 400_000),
    (r"gpt-oss", 131_072),
    (r"(?:^|/)o1-(?:mini|preview)", 128_000),
    (r"(?:^|/)o[1-9](?:\b|-|$)", 200_000),
    (r"gemini-1\.5-pro", 2_097_152),
    (r"gemini", 1_048_576),
    (r"grok-4", 256_000),
    (r"grok", 131_072),
    (r"deepseek", 128_000),
    (r"mistral-large|codestral|mistral-medium", 128_000),
    (r"llama-?3\.[1-3]|llama-?4", 131_072),
    (r"qwen", 131_072),
    (r"kimi|moonshot", 131_072),
    (r"glm-4\.5|glm-4\.6", 131_072),
)
_MODEL_PATTERNS = tuple((re.compile(p), w) for p, w in MODEL_CONTEXT_WINDOWS)


def context_window_for_model(provider: str | None, model: str | None,
                             override: int | None = None) -> int:
    """The model's context window in tokens: ``override`` if given, else the table, else 128000.

    Provider prefixes ("anthropic/claude-...", OpenRouter style) are ignored.
    """
    if override is not None:
        if override <= 0:
            raise ConfigError(f"context window must be positive, got {override}")
        return override
    known = known_context_window(provider, model)
    return DEFAULT_CONTEXT_WINDOW if known is None else known


def known_context_window(provider: str | None, model: str | None) -> int | None:
    """The window the model table gives for ``model``, or None for a model it does not know."""
    name = (model or "").lower()
    for pattern, window in _MODEL_PATTERNS:
        if pattern.search(name):
            return window
    return None


# --------------------------------------------------------------------------- openclaw.json

_CONFIG_NAMES = ("openclaw.json", "clawdbot.json", "moltbot.json")


def _state_dirs(env: Mapping[str, str]) -> list[Path]:
    home = Path(env.get("HOME") or Path.home())
    dirs = []
    for var in ("OPENCLAW_STATE_DIR", "CLAWDBOT_STATE_DIR"):
        value = (env.get(var) or "").strip()
        if value:
            path = Path(value).expanduser()
            dirs.append(path if path.is_absolute() else home / path)
    dirs += [home / ".openclaw", home / ".clawdbot", home / ".moltbot"]
    return dirs


def find_openclaw_config(state_dir: Path | None = None,
                         env: Mapping[str, str] | None = None) -> Path | None:
    """The OpenClaw config file to read, or None. ``state_dir`` wins; else
    ``$OPENCLAW_CONFIG_PATH``, ``$OPENCLAW_STATE_DIR``, ``~/.openclaw``, legacy ``~/.clawdbot``."""
    env = os.environ if env is None else env
    if state_dir is not None:
        candidates = [Path(state_dir)]
    else:
        explicit = (env.get("OPENCLAW_CONFIG_PATH") or "").strip()
        if explicit:
            path = Path(explicit).expanduser()
            return path if path.is_file() else None
        candidates = _state_dirs(env)
    for folder in candidates:
        for name in _CONFIG_NAMES:
            if (folder / name).is_file():
                return folder / name
    return None


# config key -> (field, kind)
_KEYS: dict[str, tuple[str, str]] = {
    "enabled": ("enabled", "bool"),
    "reserveTokens": ("reserve_tokens", "count"),
    "reserveTokensFloor": ("reserve_tokens_floor", "count0"),
    "keepRecentTokens": ("keep_recent_tokens", "count"),
    "maxHistoryShare": ("max_history_share", "share"),
    "recentTurnsPreserve": ("recent_turns_preserve", "turns"),
    "identifierPolicy": ("identifier_policy", "policy"),
    "identifierInstructions": ("identifier_instructions", "str"),
    "mode": ("mode", "mode"),
    "customInstructions": ("custom_instructions", "str"),
}


def _bad(path: Path, text: str, key: str, reason: str) -> ConfigError:
    line = line_of_key(text, key)
    where = f"{path}:{line}" if line is not None else str(path)
    return ConfigError(f"{where}: agents.defaults.compaction.{key} {reason}")


def _convert(kind: str, value: Any) -> Any:
    """The checked value, or raises ValueError with what was wrong."""
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if kind == "bool":
        if not isinstance(value, bool):
            raise ValueError("must be true or false")
        return value
    if kind in ("count", "count0", "turns"):
        if not number or not math.isfinite(value) or value < 0:
            raise ValueError("must be a non-negative number")
        if kind == "count" and value == 0:
            raise ValueError("must be greater than 0")
        if kind == "turns":
            return min(12, int(value))
        return int(value)
    if kind == "share":
        if not number or not 0 < value <= 1:
            raise ValueError("must be a number in (0, 1]")
        return float(value)
    if kind == "policy":
        if value not in ("strict", "off", "custom"):
            raise ValueError('must be "strict", "off" or "custom"')
        return value
    if kind == "mode":
        if value not in ("default", "safeguard"):
            raise ValueError('must be "default" or "safeguard"')
        return value
    if not isinstance(value, str):
        raise ValueError("must be a string")
    return value


def settings_from_config(config: Mapping[str, Any], path: Path, text: str = "",
                         base: CompactionSettings = DEFAULT_SETTINGS) -> CompactionSettings:
    """Apply a parsed config's ``agents.defaults`` to ``base`` (pure; path/text for errors)."""
    defaults = config.get("agents", {}).get("defaults", {}) if isinstance(
        config.get("agents"), Mapping) else {}
    if not isinstance(defaults, Mapping):
        return replace(base, source=str(path))
    changes: dict[str, Any] = {"source": str(path)}
    block = defaults.get("compaction")
    if block is not None and not isinstance(block, Mapping):
        raise _bad(path, text, "compaction", "must be an object")
    for key, value in (block or {}).items():
        if key in _KEYS:
            name, kind = _KEYS[key]
            try:
                changes[name] = _convert(kind, value)
            except ValueError as exc:
                raise _bad(path, text, key, f"{exc} (got {value!r})") from None
    guard = (block or {}).get("qualityGuard")
    if isinstance(guard, Mapping):
        if isinstance(guard.get("enabled"), bool):
            changes["quality_guard_enabled"] = guard["enabled"]
        retries = guard.get("maxRetries")
        if isinstance(retries, int) and not isinstance(retries, bool) and retries >= 0:
            changes["quality_guard_max_retries"] = min(3, retries)
    if (block or {}).get("provider"):
        changes["mode"] = "safeguard"  # a compaction provider forces safeguard mode (§3.6)
    changes.update(trigger_settings_changes(block or {}, defaults, path, text))
    window = defaults.get("contextTokens")
    if isinstance(window, int | float) and not isinstance(window, bool) and window > 0:
        changes["context_window"] = int(window)
    known = {f.name for f in fields(CompactionSettings)}
    return replace(base, **{k: v for k, v in changes.items() if k in known})


def load_openclaw_settings(state_dir: Path | None = None,
                           env: Mapping[str, str] | None = None) -> CompactionSettings:
    """Settings as the user's OpenClaw would use them; ``DEFAULT_SETTINGS`` if no config exists.

    Reads ``agents.defaults.compaction`` (and ``agents.defaults.contextTokens`` as the window
    cap) from ``openclaw.json``; ``$include`` and ``${VAR}`` substitution are not expanded.
    A broken file raises ``ConfigError`` naming the file and line.
    """
    path = find_openclaw_config(state_dir, env)
    if path is None:
        return DEFAULT_SETTINGS
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read OpenClaw config: {exc}") from exc
    try:
        config = loads(text)
    except Json5Error as exc:
        raise ConfigError(f"{path}:{exc.line}: {exc.reason} (column {exc.column})") from exc
    except RecursionError as exc:
        raise ConfigError(f"{path}: OpenClaw config is nested too deeply") from exc
    if not isinstance(config, Mapping):
        raise ConfigError(f"{path}:1: OpenClaw config must be an object")
    return settings_from_config(config, path, text)
