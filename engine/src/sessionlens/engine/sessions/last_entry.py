"""When a session last had an entry: the newest timestamp in its file's last lines.

A file's modification time says when the file was last written, which for a copied,
synced or restored transcript is the copy's time, not the session's ("Modified 2026-12-04"
on sessions from January). The entries carry their own times: the last lines of a JSON-lines
transcript (pi, OpenClaw, Claude Code, Codex, Gemini) say when the session last moved.
"""

from __future__ import annotations

import contextlib
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

__all__ = ["TAIL_BYTES", "last_entry_time"]

#: How much of the file's end is read (the last entries, not the whole file).
TAIL_BYTES = 256 * 1024
#: Keys that hold an entry's time, at the top level or inside ``message`` / ``payload``.
_TIME_KEYS = ("timestamp", "time", "created_at", "createdAt")


def _as_time(value: Any) -> datetime | None:
    if isinstance(value, str) and len(value) >= 10 and value[:4].isdigit():
        try:
            when = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
        return when if when.tzinfo is not None else when.replace(tzinfo=UTC)
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 1e9:
        seconds = value / 1000 if value > 1e11 else float(value)
        with contextlib.suppress(OverflowError, OSError, ValueError):
            return datetime.fromtimestamp(seconds, UTC)
    return None


def _time_of(obj: dict[str, Any]) -> datetime | None:
    for holder in (obj, obj.get("message"), obj.get("payload")):
        if isinstance(holder, dict):
            for key in _TIME_KEYS:
                when = _as_time(holder.get(key))
                if when is not None:
                    return when
    return None


def last_entry_time(path: Path | str) -> datetime | None:
    """The newest entry time among the last lines of a JSON-lines file, or None (no lines
    with a time, not JSON lines, unreadable)."""
    try:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            fh.seek(max(0, size - TAIL_BYTES))
            tail = fh.read(TAIL_BYTES)
    except OSError:
        return None
    lines = tail.split(b"\n")
    if size > TAIL_BYTES:
        lines = lines[1:]  # the first is cut
    newest: datetime | None = None
    for raw in reversed(lines):
        if not raw.strip():
            continue
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        when = _time_of(obj) if isinstance(obj, dict) else None
        if when is not None and (newest is None or when > newest):
            newest = when
            break  # the last timed line is the session's last moment
    return newest
