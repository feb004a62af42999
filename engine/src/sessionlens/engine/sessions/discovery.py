"""Finding session transcripts on disk (transcript-format.md §2) without fully loading them.

A listing must stay quick with 100 MB files in it, so a session is summarized by a line
scan: the header line for id and project, a newline count for entries, and only the lines
that mention a compaction are parsed. Other agents' folders and quick scans are added
through ``register_source`` (``agents`` for Claude Code and Codex, ``agent_scans`` for the
rest), so this module does not need to know their layouts.
"""

from __future__ import annotations

import importlib
import mmap
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from sessionlens.engine.errors import LoadError
from sessionlens.engine.load.detect import sniff_format
from sessionlens.engine.model import Format

from .classify import classify_session_file
from .last_entry import last_entry_time
from .store import (
    CheckpointPosition,
    CompactionCheckpoint,
    SessionStore,
    StoreRecord,
    read_session_store,
    resolve_session_file,
)

__all__ = [
    "SessionInfo", "SessionSource", "SOURCES", "register_source", "default_session_dirs",
    "discover_sessions", "summarize_session_file", "classify_session_file",
    "read_session_store", "resolve_session_file", "SessionStore", "StoreRecord",
    "CompactionCheckpoint", "CheckpointPosition", "openclaw_state_dirs",
    "load_plugin_sources", "PLUGIN_MODULES", "SearchedFolder", "searched_session_dirs", "objects_mentioning", "session_files",
    "session_infos",
]

_HEAD_BYTES = 1 << 20
_MAX_DEPTH = 5


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """What a session list shows about one file, found by a cheap scan."""

    path: Path
    agent: str | None
    session_id: str | None
    format: Format
    entries: int
    #: Compaction entries in the file; None when the scan cannot tell (unknown format).
    compactions: int | None
    size: int
    modified: datetime
    project: str | None
    #: ``classify_session_file`` kind ("primary", "archive-reset", ...).
    kind: str = "primary"
    #: For a subagent's own file (Claude Code ``<session>/subagents/``): its parent session.
    parent_session_id: str | None = None
    #: The title the agent gave the session (Crush, OpenCode, Amp, Continue, Gemini), if any.
    title: str | None = None
    #: When the session's last entry was written, from the entries themselves (a copied
    #: file's ``modified`` is the copy's time); None when the file's lines carry no time.
    last_entry_at: datetime | None = None

    @property
    def last_activity(self) -> datetime:
        """The session's last entry time, else the file's (or database row's) time."""
        return self.last_entry_at or self.modified


#: A quick scan: (path, format, first bytes) -> SessionInfo, or None to skip the file; a file
#: holding several sessions (a database, an Aider history) gives one SessionInfo each.
Scanner = Callable[[Path, Format, bytes], "SessionInfo | Sequence[SessionInfo] | None"]


@dataclass(frozen=True, slots=True)
class SessionSource:
    """One agent's sessions: where they live by default and how to summarize its files."""

    name: str
    #: (home, env) -> candidate folders (need not exist).
    dirs: Callable[[Path, Mapping[str, str]], list[Path]]
    formats: frozenset[str]
    scan: Scanner


def openclaw_state_dirs(home: Path, env: Mapping[str, str]) -> list[Path]:
    """OpenClaw state folders: $OPENCLAW_STATE_DIR, else ~/.openclaw, and legacy ~/.clawdbot."""
    if env.get("OPENCLAW_STATE_DIR"):
        return [Path(env["OPENCLAW_STATE_DIR"]).expanduser()]
    return [home / ".openclaw", home / ".clawdbot"]


def _pi_dirs(home: Path, env: Mapping[str, str]) -> list[Path]:
    agent_dir = env.get("PI_CODING_AGENT_DIR")
    base = Path(agent_dir).expanduser() if agent_dir else home / ".pi" / "agent"
    dirs = [base / "sessions"]
    for state in openclaw_state_dirs(home, env):
        agents = state / "agents"
        if agents.is_dir():
            dirs.extend(sorted(p / "sessions" for p in agents.iterdir() if p.is_dir()))
        dirs.append(state / "sessions")  # legacy flat layout
    return dirs


def _agent_of(path: Path) -> str | None:
    """OpenClaw agent id from ``agents/<id>/sessions/``, or "pi" for pi's session folders."""
    parts = path.parts
    if len(parts) >= 4 and parts[-2] == "sessions" and parts[-4] == "agents":
        return parts[-3]
    if ".pi" in parts or (len(parts) >= 3 and parts[-3] == "sessions"
                          and parts[-2].startswith("--")):
        return "pi"
    return None


def _count_lines(mm: mmap.mmap | bytes) -> int:
    """Non-blank lines (a blank run of ``\\n\\n`` is not an entry).

    A last line with no newline that is not JSON (a writer cut off mid-line) is not counted:
    the loader reports it as a diagnostic, not an entry, and a listing must agree with it.
    """
    size = len(mm)
    if size == 0:
        return 0
    n = 0
    step = 16 << 20
    for pos in range(0, size, step):
        chunk = mm[pos:pos + step]
        n += chunk.count(b"\n") - chunk.count(b"\n\n") - chunk.count(b"\n\r\n")
    if mm[size - 1:size] == b"\n":
        return n
    tail = bytes(mm[mm.rfind(b"\n") + 1:size]).removeprefix(b"\xef\xbb\xbf")
    try:  # bad UTF-8 alone does not stop the loader from reading a line
        orjson.loads(tail.decode("utf-8", errors="replace"))
    except orjson.JSONDecodeError:
        return n
    return n + 1


def objects_mentioning(mm: mmap.mmap | bytes, *needles: bytes) -> Iterator[dict[str, Any]]:
    """The JSON objects on lines holding any of ``needles``, each line once; nothing else
    is parsed, which keeps a scan of a 100 MB file quick."""
    seen_starts: set[int] = set()
    for needle in needles:
        pos = mm.find(needle)
        while pos >= 0:
            start = mm.rfind(b"\n", 0, pos) + 1
            end = mm.find(b"\n", pos)
            end = len(mm) if end < 0 else end
            if start not in seen_starts:
                seen_starts.add(start)
                try:
                    obj = orjson.loads(mm[start:end])
                except orjson.JSONDecodeError:
                    obj = None
                if type(obj) is dict:
                    yield obj
            pos = mm.find(needle, end)


def _count_type(mm: mmap.mmap | bytes, etype: str) -> int:
    """Lines whose top-level ``type`` is ``etype``."""
    needles = (f'"type":"{etype}"'.encode(), f'"type": "{etype}"'.encode())
    return sum(1 for o in objects_mentioning(mm, *needles) if o.get("type") == etype)


def _first_object(head: bytes) -> dict[str, object] | None:
    for raw in head.split(b"\n", 8)[:8]:
        if raw.strip():
            try:
                obj = orjson.loads(raw.lstrip(b"\xef\xbb\xbf"))
            except orjson.JSONDecodeError:
                continue
            return obj if type(obj) is dict else None
    return None


def _scan_pi(path: Path, fmt: Format, head: bytes) -> SessionInfo | None:
    st = path.stat()
    with open(path, "rb") as fh:
        if st.st_size == 0:
            return None
        with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
            lines = _count_lines(mm)
            compactions = _count_type(mm, "compaction")
    first = _first_object(head) or {}
    has_header = first.get("type") == "session"
    sid = first.get("id") if has_header else None
    cwd = first.get("cwd") if has_header else None
    return SessionInfo(
        path=path, agent=_agent_of(path), session_id=sid if isinstance(sid, str) else None,
        format=fmt, entries=max(0, lines - (1 if has_header else 0)), compactions=compactions,
        size=st.st_size, modified=datetime.fromtimestamp(st.st_mtime, UTC),
        project=cwd if isinstance(cwd, str) else None)


#: Registered sources; adapters append theirs with ``register_source``.
SOURCES: list[SessionSource] = [
    SessionSource("pi/openclaw", _pi_dirs, frozenset({"pi-v1", "pi-v2", "openclaw-v3"}),
                  _scan_pi),
]


#: Modules that register more sources when imported (other agents' adapters).
PLUGIN_MODULES = ("sessionlens.engine.sessions.agents", "sessionlens.engine.sessions.agent_scans")
_plugins_loaded = False


def register_source(source: SessionSource) -> None:
    """Add (or replace, by name) an agent's folders and quick scanner."""
    SOURCES[:] = [s for s in SOURCES if s.name != source.name] + [source]


def load_plugin_sources() -> None:
    """Import the adapter modules of ``PLUGIN_MODULES`` once (absent ones are skipped).

    Imported lazily because they import this module to register themselves.
    """
    global _plugins_loaded
    if _plugins_loaded:
        return
    _plugins_loaded = True
    for name in PLUGIN_MODULES:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise


def default_session_dirs(home: Path | None = None,
                         env: Mapping[str, str] | None = None) -> list[Path]:
    """Existing session folders (or files: a database, an Aider history) of every registered
    agent, in a stable order."""
    load_plugin_sources()
    home = Path.home() if home is None else home
    env = os.environ if env is None else env
    out: list[Path] = []
    for source in SOURCES:
        for d in source.dirs(home, env):
            if d.exists() and d not in out:
                out.append(d)
    return out


@dataclass(frozen=True, slots=True)
class SearchedFolder:
    """One place an agent keeps sessions, and whether it exists on this machine."""

    agent: str
    path: Path
    exists: bool


def searched_session_dirs(home: Path | None = None,
                          env: Mapping[str, str] | None = None) -> list[SearchedFolder]:
    """Every folder (or file) the default search looks at, existing or not, per agent, so a
    face can say where it looked instead of naming only what it found."""
    load_plugin_sources()
    home = Path.home() if home is None else home
    env = os.environ if env is None else env
    out: list[SearchedFolder] = []
    seen: set[Path] = set()
    for source in SOURCES:
        for d in source.dirs(home, env):
            if d not in seen:
                seen.add(d)
                out.append(SearchedFolder(source.name, d, d.exists()))
    return out


def session_infos(path: Path, kind: str = "primary") -> list[SessionInfo]:
    """The sessions one file holds (none if it is not a transcript of a known format)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(_HEAD_BYTES)
        fmt = sniff_format(head, str(path))
    except (OSError, LoadError):
        return []
    load_plugin_sources()
    for source in reversed(SOURCES):
        if fmt in source.formats:
            try:
                found = source.scan(path, fmt, head)
            except (OSError, LoadError):
                return []
            infos = [found] if isinstance(found, SessionInfo) else list(found or [])
            if len(infos) == 1 and infos[0].last_entry_at is None and path.suffix == ".jsonl":
                infos = [replace(infos[0], last_entry_at=last_entry_time(path))]
            # an archived generation inside a database (OpenClaw's store) keeps its own kind
            return [i if i.kind == kind or i.kind.startswith("archive-")
                    else replace(i, kind=kind) for i in infos]
    st = path.stat()
    return [SessionInfo(path, _agent_of(path), None, fmt, _count_lines(path.read_bytes()),
                        None, st.st_size, datetime.fromtimestamp(st.st_mtime, UTC), None, kind)]


def summarize_session_file(path: Path, kind: str = "primary") -> SessionInfo | None:
    """A SessionInfo for one file (its first session when it holds several), or None if it
    is not a transcript of a known format."""
    infos = session_infos(path, kind)
    return infos[0] if infos else None


def _walk(root: Path) -> list[Path]:
    found: list[Path] = []
    base_depth = len(root.parts)
    for dirpath, dirnames, filenames in os.walk(root):
        if len(Path(dirpath).parts) - base_depth >= _MAX_DEPTH:
            dirnames.clear()
        dirnames.sort()
        found.extend(Path(dirpath) / f for f in sorted(filenames))
    return found


def session_files(dirs: Sequence[Path | str], *,
                  kinds: frozenset[str] = frozenset({"primary"})) -> list[tuple[Path, str]]:
    """(path, kind) of the files under ``dirs`` whose name makes them one of ``kinds``.

    Nothing is opened: this is the walk ``discover_sessions`` summarizes, for callers (the
    search index) that keep their own record of each file and only need the list.
    """
    seen: set[Path] = set()
    out: list[tuple[Path, str]] = []
    for d in dirs:
        d = Path(d)
        files = [d] if d.is_file() else _walk(d) if d.is_dir() else []
        for f in files:
            kind = classify_session_file(f.name)
            if kind not in kinds:
                continue
            key = f.resolve()
            if key in seen:
                continue
            seen.add(key)
            out.append((f, kind))
    return out


def discover_sessions(dirs: Sequence[Path | str], *,
                      kinds: frozenset[str] = frozenset({"primary"})) -> list[SessionInfo]:
    """Sessions under ``dirs`` (files or folders, searched a few levels deep), newest first.

    ``kinds`` selects which file kinds of §2.3 to list; archives such as
    ``"archive-reset"`` or ``"checkpoint"`` are left out unless asked for.
    """
    out: list[SessionInfo] = []
    for f, kind in session_files(dirs, kinds=kinds):
        out.extend(i for i in session_infos(f, kind) if i.kind in kinds)
    out.sort(key=lambda s: s.modified, reverse=True)
    return out
