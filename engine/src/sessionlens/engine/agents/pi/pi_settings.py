"""pi's own compaction settings and model windows, for a session file pi wrote (I/O).

pi 1.6 (``dist/core/settings-manager.js`` ``getCompactionSettings``) takes ``compaction``
``{enabled, reserveTokens, keepRecentTokens}`` from ``<agentDir>/settings.json``, merged
under the project's ``<cwd>/.pi/settings.json`` (which pi reads once the project is
trusted; SessionLens reads it when it exists), with ``compaction.modelOverrides["provider/id"]``
over both for that model; defaults reserve 16,384 and keep 20,000, and no reserve floor
(OpenClaw's). The window is the model's ``contextWindow`` in ``<agentDir>/models.json``.
The agent folder is the one the file lies in (``<agentDir>/sessions/--<cwd>--/``). A file
that cannot be read as JSON raises ``ConfigError`` naming the file and line.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from sessionlens.engine.errors import ConfigError
from sessionlens.engine.settings import DEFAULT_SETTINGS, CompactionSettings

__all__ = ["load_pi_settings", "pi_agent_dir"]

_FILES = ("settings.json", "models.json")


def pi_agent_dir(transcript_path: Path | str) -> Path | None:
    """pi's agent folder for a file in its ``sessions/--<cwd>--/`` folder, when that agent
    folder holds a ``settings.json`` or ``models.json``; else None."""
    folder = Path(transcript_path).absolute().parent
    if not (folder.name.startswith("--") and folder.name.endswith("--")
            and folder.parent.name == "sessions"):
        return None
    agent = folder.parent.parent
    return agent if any((agent / name).is_file() for name in _FILES) else None


def _read(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        text = path.read_text(encoding="utf-8-sig")
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}:{exc.lineno}: {exc.msg} (column {exc.colno})") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read pi settings: {exc}") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{path}:1: pi settings must be a JSON object")
    return data


def _count(block: Mapping[str, Any], key: str, where: Path) -> int | None:
    value = block.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ConfigError(f"{where}: compaction.{key} should be a non-negative integer, "
                          f"got {value!r} (pi refuses it too)")
    return value


def _header_cwd(transcript_path: Path) -> str | None:
    try:
        with transcript_path.open("rb") as f:
            first = json.loads(f.readline() or b"{}")
    except (OSError, ValueError):
        return None
    cwd = first.get("cwd") if isinstance(first, dict) else None
    return cwd if isinstance(cwd, str) and cwd else None


def _windows(models: Mapping[str, Any]) -> tuple[tuple[str, int], ...]:
    out: list[tuple[str, int]] = []
    providers = models.get("providers")
    for name, provider in (providers.items() if isinstance(providers, dict) else ()):
        for model in (provider.get("models") or []) if isinstance(provider, dict) else ():
            if isinstance(model, dict) and isinstance(model.get("id"), str):
                window = model.get("contextWindow")
                if isinstance(window, int) and not isinstance(window, bool) and window > 0:
                    out.append((f"{name}/{model['id']}", window))
    return tuple(out)


def load_pi_settings(transcript_path: Path | str, agent_dir: Path,
                     model: str | None = None) -> CompactionSettings:
    """The settings pi used for the file at ``transcript_path`` (see the module docstring);
    ``model`` ("provider/id") picks its ``modelOverrides``."""
    path = Path(transcript_path)
    global_path = agent_dir / "settings.json"
    block: dict[str, Any] = dict(_read(global_path).get("compaction") or {})
    sources = [str(global_path)] if block else []
    cwd = _header_cwd(path)
    if cwd is not None:
        project_path = Path(cwd) / ".pi" / "settings.json"
        project = _read(project_path).get("compaction") or {}
        if isinstance(project, dict) and project:
            block.update(project)
            sources.append(str(project_path))
    override = (block.get("modelOverrides") or {}).get(model or "") \
        if isinstance(block.get("modelOverrides"), dict) else None
    if isinstance(override, dict):
        block = {**block, **override}
    where = Path(sources[-1]) if sources else global_path
    reserve = _count(block, "reserveTokens", where)
    keep = _count(block, "keepRecentTokens", where)
    enabled = block.get("enabled")
    models_path = agent_dir / "models.json"
    return replace(
        DEFAULT_SETTINGS,
        enabled=enabled if isinstance(enabled, bool) else True,
        reserve_tokens=reserve if reserve is not None else DEFAULT_SETTINGS.reserve_tokens,
        reserve_tokens_floor=0,  # pi has no reserve floor (OpenClaw's)
        keep_recent_tokens=keep if keep is not None else DEFAULT_SETTINGS.keep_recent_tokens,
        source=" and ".join(sources) if sources else None,
        model_windows=_windows(_read(models_path)),
        model_windows_source=str(models_path) if models_path.is_file() else None,
        memory_flush_enabled=False)  # pi has no memory flush
