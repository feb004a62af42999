"""Reading OpenClaw's ``sessions.json`` store (transcript-format.md §2.4), read-only.

Stores written on another machine hold absolute ``sessionFile`` paths that do not exist
here (sample 05 points at ``/home/admin/.clawdbot/...``); like OpenClaw's structural
fallback, such a path is resolved by its basename inside the store's own folder. Writing
the store is ``store.py``'s job; this module never writes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath, PureWindowsPath
from types import MappingProxyType
from typing import Any

import orjson

from sessionlens.engine.errors import LoadError
from sessionlens.engine.model import Diagnostic

__all__ = [
    "CheckpointPosition", "CompactionCheckpoint", "StoreRecord", "SessionStore",
    "foreign_basename", "read_session_store", "resolve_session_file",
]


@dataclass(frozen=True, slots=True)
class CheckpointPosition:
    """One side (pre or post) of a compaction checkpoint: which file and where in it."""

    session_id: str | None
    session_file: Path | None
    session_file_raw: str | None
    leaf_id: str | None
    entry_id: str | None


@dataclass(frozen=True, slots=True)
class CompactionCheckpoint:
    """A ``compactionCheckpoints[]`` record: a restore point around one compaction."""

    checkpoint_id: str
    session_key: str
    session_id: str | None
    created_at: int | None
    reason: str | None
    tokens_before: int | None
    tokens_after: int | None
    summary: str | None
    first_kept_entry_id: str | None
    pre: CheckpointPosition | None
    post: CheckpointPosition | None
    raw: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class StoreRecord:
    """One ``sessionKey -> SessionEntry`` of the store, with its transcript resolved."""

    session_key: str
    session_id: str | None
    #: Where the transcript is on this machine (resolved; may not exist).
    session_file: Path | None
    #: The ``sessionFile`` string exactly as stored (None when absent).
    session_file_raw: str | None
    session_file_exists: bool
    updated_at: int | None
    compaction_count: int
    checkpoints: tuple[CompactionCheckpoint, ...]
    raw: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class SessionStore:
    """A whole ``sessions.json``: its records in file order plus what was odd in it."""

    path: Path
    records: tuple[StoreRecord, ...]
    diagnostics: tuple[Diagnostic, ...]

    def by_session_id(self, session_id: str) -> StoreRecord | None:
        return next((r for r in self.records if r.session_id == session_id), None)

    def by_key(self, session_key: str) -> StoreRecord | None:
        return next((r for r in self.records if r.session_key == session_key), None)


def foreign_basename(raw: str) -> str:
    """Basename of a path written on any OS (``/`` or ``\\`` separators)."""
    return PureWindowsPath(raw).name if "\\" in raw else PurePosixPath(raw).name


def resolve_session_file(raw: str | None, session_id: str | None,
                         folder: Path) -> Path | None:
    """Where a store's transcript is here: the path itself, else its basename in ``folder``."""
    if raw:
        given = Path(raw)
        if not given.is_absolute() and "\\" not in raw:
            return folder / given
        if given.is_absolute() and given.is_file():
            return given
        return folder / foreign_basename(raw)
    if session_id:
        return folder / f"{session_id}.jsonl"
    return None


def _opt_int(value: Any) -> int | None:
    return value if type(value) is int else int(value) if type(value) is float else None


def _opt_str(value: Any) -> str | None:
    return value if type(value) is str else None


def _position(raw: Any, folder: Path) -> CheckpointPosition | None:
    if type(raw) is not dict:
        return None
    file_raw = _opt_str(raw.get("sessionFile"))
    sid = _opt_str(raw.get("sessionId"))
    return CheckpointPosition(sid, resolve_session_file(file_raw, None, folder) if file_raw
                              else None, file_raw, _opt_str(raw.get("leafId")),
                              _opt_str(raw.get("entryId")))


def _checkpoint(raw: dict[str, Any], key: str, folder: Path) -> CompactionCheckpoint:
    return CompactionCheckpoint(
        checkpoint_id=_opt_str(raw.get("checkpointId")) or "",
        session_key=_opt_str(raw.get("sessionKey")) or key,
        session_id=_opt_str(raw.get("sessionId")),
        created_at=_opt_int(raw.get("createdAt")),
        reason=_opt_str(raw.get("reason")),
        tokens_before=_opt_int(raw.get("tokensBefore")),
        tokens_after=_opt_int(raw.get("tokensAfter")),
        summary=_opt_str(raw.get("summary")),
        first_kept_entry_id=_opt_str(raw.get("firstKeptEntryId")),
        pre=_position(raw.get("preCompaction"), folder),
        post=_position(raw.get("postCompaction"), folder),
        raw=MappingProxyType(raw),
    )


def read_session_store(path: Path | str) -> SessionStore:
    """Parse a ``sessions.json``; odd records become diagnostics, not errors."""
    path = Path(path)
    if path.is_dir():
        raise LoadError(path, "is a directory, not a sessions.json store")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise LoadError(path, f"cannot read: {exc.strerror or exc}") from exc
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise LoadError(path, f"not valid JSON: {exc}") from exc
    if type(doc) is not dict:
        raise LoadError(path, f"a session store is a JSON object, got {type(doc).__name__}")
    folder = path.parent
    spath = str(path)
    records: list[StoreRecord] = []
    diags: list[Diagnostic] = []
    for key, raw in doc.items():
        if type(raw) is not dict:
            diags.append(Diagnostic(spath, None, f"store entry {key!r} is not an object; "
                                    "skipped"))
            continue
        sid = _opt_str(raw.get("sessionId"))
        file_raw = _opt_str(raw.get("sessionFile"))
        resolved = resolve_session_file(file_raw, sid, folder)
        cps_raw = raw.get("compactionCheckpoints")
        checkpoints: list[CompactionCheckpoint] = []
        if type(cps_raw) is list:
            for cp in cps_raw:
                if type(cp) is dict:
                    checkpoints.append(_checkpoint(cp, key, folder))
                else:
                    diags.append(Diagnostic(spath, None, f"store entry {key!r}: a compaction "
                                            "checkpoint is not an object; skipped", "warning"))
        elif cps_raw is not None:
            diags.append(Diagnostic(spath, None, f"store entry {key!r}: "
                                    "'compactionCheckpoints' is not a list; ignored", "warning"))
        records.append(StoreRecord(
            session_key=key, session_id=sid, session_file=resolved, session_file_raw=file_raw,
            session_file_exists=resolved is not None and resolved.is_file(),
            updated_at=_opt_int(raw.get("updatedAt")),
            compaction_count=_opt_int(raw.get("compactionCount")) or 0,
            checkpoints=tuple(checkpoints), raw=MappingProxyType(raw)))
    return SessionStore(path, tuple(records), tuple(diags))
