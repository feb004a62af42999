"""The JSONL lines SessionLens writes: v3 headers, copied entries, new ids and names.

Copied entries stay byte-for-byte what the source held whenever that is already a valid
v3 line; a line is parsed and re-serialised only when something in it must change (a new
``parentId``, a v1/v2 migration, bytes that are not UTF-8). Re-serialised lines use the
compact form ``JSON.stringify`` produces, keys in their original order, so pi and
OpenClaw read them exactly like their own.
"""

from __future__ import annotations

import json
import os
from collections.abc import Collection
from datetime import UTC, datetime
from typing import Any

import orjson

from sessionlens.engine.model import Entry, Format

__all__ = [
    "iso_timestamp", "session_file_name", "new_entry_id", "new_session_id", "dump_line",
    "header_line", "entry_line", "entry_bytes", "parse_line",
]


def iso_timestamp(now: datetime | None = None) -> str:
    """``2026-01-31T06:10:40.884Z``: the ISO form pi writes (UTC, milliseconds, Z)."""
    moment = (now or datetime.now(UTC)).astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def session_file_name(timestamp: str, session_id: str) -> str:
    """pi's file name: the ISO timestamp with ``:`` and ``.`` turned into ``-``, then the id."""
    return f"{timestamp.replace(':', '-').replace('.', '-')}_{session_id}.jsonl"


def new_uuid() -> str:
    """A random UUID (uuid is imported here: a CLI call that writes nothing never needs it)."""
    import uuid

    return str(uuid.uuid4())


def new_session_id() -> str:
    return new_uuid()


def new_entry_id(taken: Collection[str]) -> str:
    """A fresh 8-hex id not in ``taken`` (pi's collision-checked short UUID)."""
    for _ in range(100):
        candidate = os.urandom(4).hex()  # what secrets.token_hex does
        if candidate not in taken:
            return candidate
    return new_uuid()  # pi's own fallback when short ids keep colliding


def dump_line(obj: Any) -> bytes:
    """One compact JSON line (no newline), UTF-8, like ``JSON.stringify``."""
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: escape them as JSON.stringify does
        return json.dumps(obj, ensure_ascii=True, separators=(",", ":")).encode("ascii")


def header_line(session_id: str, timestamp: str, cwd: str, parent_session: str | None) -> bytes:
    """A v3 header in pi's key order; ``parentSession`` only when there is a parent."""
    obj: dict[str, Any] = {"type": "session", "version": 3, "id": session_id,
                           "timestamp": timestamp, "cwd": cwd}
    if parent_session is not None:
        obj["parentSession"] = parent_session
    return dump_line(obj)


def entry_bytes(data: bytes, entry: Entry) -> bytes:
    """The entry's source line (without newline) sliced from ``data``, the file's bytes."""
    return data[entry.offset:entry.offset + entry.length]


def parse_line(raw: bytes) -> dict[str, Any]:
    """One entry line as a dict, read as the loader reads it (ValueError if not an object)."""
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError:  # bad UTF-8 (read as U+FFFD, as the loader does), huge ints
        obj = json.loads(raw.decode("utf-8", errors="replace"))
    if not isinstance(obj, dict):
        raise ValueError("not a JSON object")
    return obj


def _is_clean_utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def entry_line(raw: bytes, entry: Entry, fmt: Format, *,
               parent_id: str | None | object = ...) -> bytes:
    """The v3 line for ``entry``, whose source line is ``raw``.

    ``parent_id`` given (even None) replaces the entry's parent; left out, the parent stays.
    v3 lines with nothing to change are returned unchanged. v1 lines get the loader's id
    and parent (and ``firstKeptEntryId`` for ``firstKeptEntryIndex``); v2 ``hookMessage``
    becomes ``custom``. The fields every strict reader needs (string ``id`` and
    ``timestamp``, ``parentId`` string or null) are filled in when the source lacks them.
    """
    new_parent = entry.parent_id if parent_id is ... else parent_id
    migrate = fmt in ("pi-v1", "pi-v2")
    if (not migrate and new_parent == entry.parent_id and _is_clean_utf8(raw)
            and _has_strict_base(raw, entry)):
        return raw
    obj = parse_line(raw)
    out: dict[str, Any] = {"type": obj.get("type", entry.type), "id": entry.id,
                           "parentId": new_parent}
    ts = obj.get("timestamp")
    out["timestamp"] = ts if isinstance(ts, str) and ts else (entry.timestamp or
                                                             iso_timestamp())
    for key, value in obj.items():
        if key in out or key == "firstKeptEntryIndex":
            continue
        out[key] = value
    if entry.type == "compaction" and "firstKeptEntryIndex" in obj:
        out["firstKeptEntryId"] = entry.first_kept_entry_id or entry.id
    message = out.get("message")
    if isinstance(message, dict) and message.get("role") == "hookMessage":
        out["message"] = {**message, "role": "custom"}
    return dump_line(_keep_source_order(obj, out))


def _keep_source_order(source: dict[str, Any], out: dict[str, Any]) -> dict[str, Any]:
    """Keys in the source's order where the source had them (a v3 line only changes values)."""
    if not all(k in source for k in ("id", "parentId", "timestamp")):
        return out  # migrated line: pi's base order first
    ordered = {k: out[k] for k in source if k in out}
    ordered.update((k, v) for k, v in out.items() if k not in ordered)
    return ordered


def _has_strict_base(raw: bytes, entry: Entry) -> bool:
    """Cheap check that a v3 line already carries what the strict reader demands."""
    try:
        obj = parse_line(raw)
    except ValueError:
        return False
    parent = obj.get("parentId", 0)
    return (obj.get("id") == entry.id and isinstance(obj.get("type"), str)
            and isinstance(obj.get("timestamp"), str) and bool(obj["timestamp"])
            and (parent is None or isinstance(parent, str)))
