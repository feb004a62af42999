"""Where Claude Code and Codex keep their sessions, and a quick scan of their files.

Registered into ``discovery`` through ``register_source`` so the session browser and
``sessionlens sessions`` list them with the same columns as OpenClaw sessions:

- Claude Code: ``$CLAUDE_CONFIG_DIR/projects`` or ``~/.claude/projects``, one folder per
  project (the cwd with ``/ \\ :`` turned into ``-``), ``<session-uuid>.jsonl`` in it, and
  subagent files in ``<session-uuid>/subagents/agent-<id>.jsonl``. A subagent file's
  ``parent_session_id`` is the session folder it sits in.
- Codex: ``$CODEX_HOME`` or ``~/.codex``: ``sessions/YYYY/MM/DD/rollout-*.jsonl`` and
  ``archived_sessions/``.

Like the pi scan, counts come from a line scan (only lines mentioning a compaction are
parsed), so ``entries`` counts lines: a Claude Code compaction summary line is not counted
(it is read into its compaction) but a user line with several tool results, which the full
load splits, counts once.
"""

from __future__ import annotations

import mmap
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from sessionlens.engine.agents.claude_code.parse import subagent_parent_id
from sessionlens.engine.agents.codex.parse import rollout_session_id
from sessionlens.engine.model import Format

from .discovery import (
    SessionInfo,
    SessionSource,
    _count_lines,
    objects_mentioning,
    register_source,
)

__all__ = [
    "CLAUDE_CODE_SOURCE", "CODEX_SOURCE", "claude_code_dirs", "codex_dirs",
    "scan_claude_code", "scan_codex", "register_agent_sources",
]


def claude_code_dirs(home: Path, env: Mapping[str, str]) -> list[Path]:
    """Claude Code's projects folder (``$CLAUDE_CONFIG_DIR`` moves it)."""
    base = env.get("CLAUDE_CONFIG_DIR")
    root = Path(base).expanduser() if base else home / ".claude"
    return [root / "projects"]


def codex_dirs(home: Path, env: Mapping[str, str]) -> list[Path]:
    """Codex's live and archived rollouts (``$CODEX_HOME`` moves them)."""
    base = env.get("CODEX_HOME")
    root = Path(base).expanduser() if base else home / ".codex"
    return [root / "sessions", root / "archived_sessions"]


def _head_objects(head: bytes, limit: int = 64) -> list[dict[str, Any]]:
    """The JSON objects among the first complete lines of ``head``."""
    out: list[dict[str, Any]] = []
    lines = head.split(b"\n")
    if not head.endswith(b"\n"):
        lines = lines[:-1]  # the last one may be cut off
    for raw in lines[:limit]:
        if not raw.strip():
            continue
        try:
            obj = orjson.loads(raw.lstrip(b"\xef\xbb\xbf"))
        except orjson.JSONDecodeError:
            continue
        if type(obj) is dict:
            out.append(obj)
    return out


def _first_str(objs: list[dict[str, Any]], key: str) -> str | None:
    for o in objs:
        v = o.get(key)
        if isinstance(v, str) and v:
            return v
    return None


def _is_boundary(obj: dict[str, Any]) -> bool:
    return obj.get("type") == "system" and obj.get("subtype") == "compact_boundary"


def scan_claude_code(path: Path, fmt: Format, head: bytes) -> SessionInfo | None:
    """SessionInfo of a Claude Code session or subagent file."""
    st = path.stat()
    if st.st_size == 0:
        return None
    with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
        lines = _count_lines(mm)
        boundaries = sum(1 for o in objects_mentioning(mm, b"compact_boundary") if _is_boundary(o))
        summaries = lone = 0
        for o in objects_mentioning(mm, b"isCompactSummary"):
            if o.get("isCompactSummary") is True:
                summaries += 1
                if o.get("parentUuid") is None:  # an older compaction: no boundary row
                    lone += 1
    objs = _head_objects(head)
    parent = subagent_parent_id(path)
    sid = path.stem if parent is not None else (_first_str(objs, "sessionId") or path.stem)
    return SessionInfo(
        path=path, agent="claude-code", session_id=sid, format=fmt,
        entries=max(0, lines - (summaries - lone)), compactions=boundaries + lone,
        size=st.st_size, modified=datetime.fromtimestamp(st.st_mtime, UTC),
        project=_first_str(objs, "cwd"), parent_session_id=parent)


def scan_codex(path: Path, fmt: Format, head: bytes) -> SessionInfo | None:
    """SessionInfo of a Codex rollout (the first ``session_meta`` gives id and project)."""
    st = path.stat()
    if st.st_size == 0:
        return None
    with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
        lines = _count_lines(mm)
        compactions = sum(1 for o in objects_mentioning(mm, b'"compacted"')
                          if o.get("type") == "compacted")
    meta: dict[str, Any] = {}
    for o in _head_objects(head):
        if o.get("type") == "session_meta" and isinstance(o.get("payload"), dict):
            meta = o["payload"]
            break
    sid = meta.get("id") if isinstance(meta.get("id"), str) else rollout_session_id(path)
    cwd = meta.get("cwd") if isinstance(meta.get("cwd"), str) else None
    return SessionInfo(
        path=path, agent="codex", session_id=sid, format=fmt,
        entries=max(0, lines - (1 if meta else 0)), compactions=compactions,
        size=st.st_size, modified=datetime.fromtimestamp(st.st_mtime, UTC), project=cwd)


CLAUDE_CODE_SOURCE = SessionSource("claude-code", claude_code_dirs,
                                   frozenset({"claude-code"}), scan_claude_code)
CODEX_SOURCE = SessionSource("codex", codex_dirs, frozenset({"codex"}), scan_codex)


def register_agent_sources() -> None:
    """Register both sources (idempotent: ``register_source`` replaces by name)."""
    register_source(CLAUDE_CODE_SOURCE)
    register_source(CODEX_SOURCE)


register_agent_sources()
