"""The ``openclaw.json`` keys behind the other compaction triggers and the memory flush.

``settings.settings_from_config`` handles the cut and summary keys; this reads the rest of
``agents.defaults.compaction`` (``memoryFlush``, ``maxActiveTranscriptBytes``,
``truncateAfterCompaction``, ``midTurnPrecheck``) and the sandbox's ``workspaceAccess``, which
decides whether a flush may write at all (compaction-system.md "Memory flush"). Kept apart so
``settings.py`` stays small. Pure: it maps parsed JSON to field values, nothing else.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sessionlens.engine._io.json5 import line_of_key
from sessionlens.engine.errors import ConfigError

__all__ = ["BYTE_UNITS", "DEFAULT_FORCE_FLUSH_BYTES", "DEFAULT_SOFT_THRESHOLD_TOKENS",
           "parse_byte_size", "trigger_settings_changes"]

#: OpenClaw's ``memoryFlush.softThresholdTokens`` default.
DEFAULT_SOFT_THRESHOLD_TOKENS = 4000
#: OpenClaw's ``memoryFlush.forceFlushTranscriptBytes`` default (2 MB).
DEFAULT_FORCE_FLUSH_BYTES = 2 * 1024 * 1024
#: Binary units as OpenClaw's ``parseByteSize`` reads them ("20mb" = 20 x 1024 x 1024).
BYTE_UNITS: dict[str, int] = {"b": 1, "k": 1024, "kb": 1024, "m": 1024 ** 2, "mb": 1024 ** 2,
                              "g": 1024 ** 3, "gb": 1024 ** 3, "t": 1024 ** 4, "tb": 1024 ** 4}
_SIZE = re.compile(r"^(\d+(?:\.\d+)?)([a-z]+)?$")


def parse_byte_size(value: Any) -> int:
    """Bytes from a number or a size string such as ``"20mb"`` or ``"512kb"``.

    Raises ValueError with what was wrong (OpenClaw's rules: no space before the unit,
    binary units, a bare number is bytes)."""
    if isinstance(value, bool):
        raise ValueError("must be a byte count or a size such as \"20mb\"")
    if isinstance(value, int | float):
        if not math.isfinite(value) or value < 0:
            raise ValueError("must be a non-negative byte count")
        return int(value)
    if not isinstance(value, str):
        raise ValueError("must be a byte count or a size such as \"20mb\"")
    m = _SIZE.match(value.strip().lower())
    if m is None:
        raise ValueError(f"{value!r} is not a size (use values like 512kb, 20mb, 1gb or 500)")
    unit = m.group(2) or "b"
    if unit not in BYTE_UNITS:
        raise ValueError(f"unknown unit {unit!r} in {value!r} (b, kb, mb, gb, tb)")
    return round(float(m.group(1)) * BYTE_UNITS[unit])


def _fail(path: Path, text: str, key: str, where: str, reason: str) -> ConfigError:
    line = line_of_key(text, key)
    at = f"{path}:{line}" if line is not None else str(path)
    return ConfigError(f"{at}: agents.defaults.{where} {reason}")


def _typed(block: Mapping[str, Any], key: str, where: str, path: Path, text: str,
           kind: type, what: str) -> Any:
    """``block[key]`` if it is a ``kind``, None if absent; else a ConfigError naming the line."""
    value = block.get(key)
    if value is not None and not isinstance(value, kind):
        raise _fail(path, text, key, f"{where}.{key}", f"must be {what} (got {value!r})")
    return value


def _bool(block: Mapping[str, Any], key: str, where: str, path: Path, text: str) -> bool | None:
    value: bool | None = _typed(block, key, where, path, text, bool, "true or false")
    return value


def _text(block: Mapping[str, Any], key: str, where: str, path: Path, text: str) -> str | None:
    value: str | None = _typed(block, key, where, path, text, str, "a string")
    return (value or "").strip() or None


def _size(block: Mapping[str, Any], key: str, where: str, path: Path, text: str) -> int | None:
    value = block.get(key)
    if value is None:
        return None
    try:
        return parse_byte_size(value)
    except ValueError as exc:
        raise _fail(path, text, key, f"{where}.{key}", str(exc)) from None


def _flush_changes(flush: Mapping[str, Any], path: Path, text: str) -> dict[str, Any]:
    where = "compaction.memoryFlush"
    out: dict[str, Any] = {}
    enabled = _bool(flush, "enabled", where, path, text)
    if enabled is not None:
        out["memory_flush_enabled"] = enabled
    for key, name in (("model", "memory_flush_model"), ("prompt", "memory_flush_prompt"),
                      ("systemPrompt", "memory_flush_system_prompt")):
        value = _text(flush, key, where, path, text)
        if value is not None:
            out[name] = value
    soft = flush.get("softThresholdTokens")
    if soft is not None:
        if isinstance(soft, bool) or not isinstance(soft, int | float) or not (
                math.isfinite(soft) and soft >= 0):
            raise _fail(path, text, "softThresholdTokens", f"{where}.softThresholdTokens",
                        f"must be a non-negative number (got {soft!r})")
        out["memory_flush_soft_threshold_tokens"] = int(soft)
    force = _size(flush, "forceFlushTranscriptBytes", where, path, text)
    if force is not None:
        out["memory_flush_force_transcript_bytes"] = force
    return out


def trigger_settings_changes(block: Mapping[str, Any], defaults: Mapping[str, Any],
                             path: Path, text: str = "") -> dict[str, Any]:
    """``CompactionSettings`` field values from ``agents.defaults`` (``defaults``) and its
    ``compaction`` object (``block``). Raises ConfigError naming the file and line."""
    where = "compaction"
    out: dict[str, Any] = {}
    flush = block.get("memoryFlush")
    if flush is not None:
        if not isinstance(flush, Mapping):
            raise _fail(path, text, "memoryFlush", f"{where}.memoryFlush", "must be an object")
        out.update(_flush_changes(flush, path, text))
    max_bytes = _size(block, "maxActiveTranscriptBytes", where, path, text)
    if max_bytes is not None:
        out["max_active_transcript_bytes"] = max_bytes or None  # 0 disables the guard
    truncate = _bool(block, "truncateAfterCompaction", where, path, text)
    if truncate is not None:
        out["truncate_after_compaction"] = truncate
    precheck = block.get("midTurnPrecheck")
    if isinstance(precheck, Mapping):
        enabled = _bool(precheck, "enabled", f"{where}.midTurnPrecheck", path, text)
        if enabled is not None:
            out["mid_turn_precheck_enabled"] = enabled
    sandbox = defaults.get("sandbox")
    if isinstance(sandbox, Mapping):
        mode = sandbox.get("mode")
        if isinstance(mode, str):
            out["sandbox_mode"] = mode
        access = sandbox.get("workspaceAccess")
        if isinstance(access, str):
            out["sandbox_workspace_access"] = access
    return out
