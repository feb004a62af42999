"""Quick scans of the other agents' files, registered as session sources.

A listing must stay quick, so no scan builds entries: JSON-lines files are counted by line
(and a few byte patterns), databases by SQL ``count``, Aider histories by a line scan. What
``entries`` counts, per format (the full load can differ where it splits or merges records):

- Gemini CLI: distinct message ids (a rewritten message counts once, as Gemini counts it);
  compactions are its "Context compressed" notices plus ``$set`` replacements of the list.
- Copilot CLI: events (``session.start`` aside); compactions are successful completions.
- Crush / OpenCode: message rows; a Crush session's summary message is its compaction,
  OpenCode's ``summary`` assistant messages are.
- Cursor: lines (``.jsonl``) or ``user:`` / ``assistant:`` blocks (``.txt``).
- Cline / Roo Code: UI records; compactions are the condense / truncation records.
- Aider: one session per run, ``entries`` its prompt, reply and notice blocks.
- Kimi: context lines but its ``_usage`` ones; Amp: messages; Continue: history items.

A single JSON document (Gemini's older chats, Copilot's history, Cline, Amp, Continue) is
decoded only when it is under ``DOCUMENT_LIMIT``; a bigger one is counted by its record
marker bytes instead, which counts the records but may miss a title.
"""

from __future__ import annotations

import mmap
import re
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from sessionlens.engine.agents.gemini.parse import parent_session_of
from sessionlens.engine.agents.gemini.records import COMPRESSED
from sessionlens.engine.agents.openclaw import openclaw_store as openclaw_store
from sessionlens.engine.agents.opencode import parse as opencode
from sessionlens.engine.load.formats import aider, crush
from sessionlens.engine.load.formats.entry_chain import as_dict, as_list, as_str, path_of_uri
from sessionlens.engine.load.formats.kimi import is_subagent_context
from sessionlens.engine.load.formats.sqlite_open import open_readonly, table_columns
from sessionlens.engine.model import Format

from .agent_folders import (
    aider_files,
    amp_dirs,
    cline_dirs,
    continue_dirs,
    copilot_dirs,
    crush_files,
    cursor_dirs,
    gemini_dirs,
    kimi_dirs,
    openclaw_store_files,
    opencode_files,
)
from .discovery import SessionInfo, SessionSource, _count_lines, objects_mentioning, register_source

__all__ = ["AGENT_SOURCES", "DOCUMENT_LIMIT", "register_other_sources"]

#: JSON documents bigger than this are counted by marker bytes, not decoded.
DOCUMENT_LIMIT = 16 << 20
_CLINE_COMPACTIONS = (b'"say":"condense_context"', b'"say":"sliding_window_truncation"',
                      b'"ask":"condense"', b'"ask":"summarize_task"')


def _mtime(path: Path) -> tuple[int, datetime]:
    st = path.stat()
    return st.st_size, datetime.fromtimestamp(st.st_mtime, UTC)


def _when(ms: int | None, fallback: datetime) -> datetime:
    return datetime.fromtimestamp(ms / 1000, UTC) if ms else fallback


def _stamp(ms: int | None) -> datetime | None:
    """A database row's own time (the session's last update), or None."""
    return datetime.fromtimestamp(ms / 1000, UTC) if ms else None


def _document(path: Path) -> tuple[Any, bytes]:
    """(decoded document or None when too big / broken, the bytes)."""
    data = path.read_bytes()
    if len(data) > DOCUMENT_LIMIT:
        return None, data
    try:
        return orjson.loads(data), data
    except orjson.JSONDecodeError:
        return None, data


def _info(path: Path, agent: str, fmt: Format, entries: int, compactions: int | None,
          **fields: Any) -> SessionInfo:
    size, modified = _mtime(path)
    fields.setdefault("size", size)
    fields.setdefault("modified", modified)
    fields.setdefault("project", None)
    fields.setdefault("session_id", None)
    return SessionInfo(path=path, agent=agent, format=fmt, entries=entries,
                       compactions=compactions, **fields)


def _first_line(head: bytes) -> dict[str, Any]:
    try:
        return as_dict(orjson.loads(head.split(b"\n", 1)[0]))
    except orjson.JSONDecodeError:
        return {}


def scan_gemini(path: Path, fmt: Format, head: bytes) -> SessionInfo | None:
    parent = parent_session_of(path)
    project = (path.parents[2] if parent else path.parents[1]).name if len(path.parents) > 2 \
        else None
    if fmt == "gemini-jsonl":
        with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
            ids = {m.group(1) for m in re.finditer(rb'^\{"id":"([^"]+)"', mm, re.M)}
            notices = {o.get("id") for o in objects_mentioning(mm, b"Context compressed from")
                       if o.get("type") == "info" and COMPRESSED.search(str(o.get("content")))}
            replaced = sum(1 for o in objects_mentioning(mm, b'"$set":{"messages"')
                           if isinstance(as_dict(o.get("$set")).get("messages"), list))
        meta = _first_line(head)
        return _info(path, "gemini-cli", fmt, len(ids), len(notices) + replaced,
                     session_id=as_str(meta.get("sessionId")), project=project,
                     parent_session_id=parent)
    doc, data = _document(path)
    if not isinstance(doc, dict):
        count = len(re.findall(rb'"type": ?"(?:user|gemini|info|error|warning)"', data))
        return _info(path, "gemini-cli", fmt, count, data.count(b"Context compressed from"),
                     project=project, parent_session_id=parent)
    messages = [m for m in as_list(doc.get("messages")) if isinstance(m, dict)]
    compressed = sum(1 for m in messages if m.get("type") == "info"
                     and COMPRESSED.search(str(m.get("content"))))
    return _info(path, "gemini-cli", fmt, len({m.get("id") for m in messages}), compressed,
                 session_id=as_str(doc.get("sessionId")), project=project,
                 parent_session_id=parent, title=as_str(doc.get("summary")))


def scan_copilot(path: Path, fmt: Format, head: bytes) -> SessionInfo | None:
    if fmt == "copilot-legacy":
        doc, data = _document(path)
        count = len(as_list(as_dict(doc).get("chatMessages"))) if doc is not None else \
            data.count(b'"role":')
        return _info(path, "copilot-cli", fmt, count, 0,
                     session_id=as_str(as_dict(doc).get("sessionId")))
    with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
        lines = _count_lines(mm)
        compactions = sum(1 for o in objects_mentioning(mm, b'"session.compaction_complete"')
                          if o.get("type") == "session.compaction_complete"
                          and as_dict(o.get("data")).get("success") is not False)
    first = _first_line(head)
    start = as_dict(first.get("data")) if first.get("type") == "session.start" else {}
    sid = as_str(start.get("sessionId")) or (path.parent.name if path.name == "events.jsonl"
                                             else path.stem)
    return _info(path, "copilot-cli", fmt, max(0, lines - (1 if start else 0)), compactions,
                 session_id=sid, project=as_str(as_dict(start.get("context")).get("cwd")))


def scan_crush(path: Path, fmt: Format, head: bytes) -> list[SessionInfo]:
    agent = "crush" if fmt == "crush-sqlite" else "opencode-go"
    _size, modified = _mtime(path)
    with open_readonly(path) as opened:
        sessions = crush.list_sessions(opened.db)
    return [SessionInfo(path=path / s.id, agent=agent, session_id=s.id, format=fmt,
                        entries=s.messages, compactions=1 if s.summary_message_id else 0,
                        size=s.size, modified=_when(s.updated_ms or s.created_ms, modified),
                        last_entry_at=_stamp(s.updated_ms or s.created_ms),
                        project=crush.project_of(path), parent_session_id=s.parent_id,
                        title=s.title or None) for s in sessions]


def scan_openclaw_store(path: Path, fmt: Format, head: bytes) -> list[SessionInfo]:
    """Every window and archived generation of an OpenClaw store (agent id from the path)."""
    _size, modified = _mtime(path)
    agent = path.parent.parent.name if path.parent.name == "agent" else "openclaw"
    with open_readonly(path) as opened:
        sessions = openclaw_store.list_sessions(opened.db)
        compactions = dict(opened.db.execute(
            "SELECT session_id, count(*) FROM transcript_event_identities "
            "WHERE event_type = 'compaction' GROUP BY session_id").fetchall()) \
            if "transcript_event_identities" in table_columns(opened.db) else {}
    return [SessionInfo(path=path / s.id, agent=agent, session_id=s.id, format=fmt,
                        entries=max(0, s.events - 1), compactions=int(compactions.get(s.id, 0))
                        if s.archived is None else None, size=s.size,
                        modified=_when(s.window.updated_ms if s.window else None, modified),
                        kind="primary" if s.archived is None else f"archive-{s.archived}",
                        project=s.cwd,
                        parent_session_id=s.archive_of) for s in sessions]


def scan_opencode(path: Path, fmt: Format, head: bytes) -> list[SessionInfo]:
    _size, modified = _mtime(path)
    with open_readonly(path) as opened:
        sessions = opencode.list_sessions(opened.db)
        try:
            summaries = dict(opened.db.execute(
                "SELECT session_id, count(*) FROM message WHERE json_valid(data) AND "
                "json_extract(data, '$.summary') = 1 GROUP BY session_id").fetchall())
        except Exception:  # an old SQLite without JSON functions: count none
            summaries = {}
    return [SessionInfo(path=path / s["id"], agent="opencode", session_id=s["id"], format=fmt,
                        entries=s["messages"], compactions=int(summaries.get(s["id"], 0)),
                        size=s["size"], modified=_when(s["updated_ms"] or s["created_ms"],
                                                       modified),
                        last_entry_at=_stamp(s["updated_ms"] or s["created_ms"]),
                        project=s["directory"], parent_session_id=s["parent_id"] or None,
                        title=s["title"] or None) for s in sessions]


def scan_cursor(path: Path, fmt: Format, head: bytes) -> SessionInfo | None:
    parts = path.parts
    project = parts[parts.index("agent-transcripts") - 1] if "agent-transcripts" in parts and \
        parts.index("agent-transcripts") > 0 else None
    with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
        count = _count_lines(mm) if fmt == "cursor-jsonl" else \
            len(re.findall(rb"^(?:user|assistant):\r?$", mm, re.M))
    return _info(path, "cursor", fmt, count, 0, session_id=path.stem, project=project)


def scan_cline(path: Path, fmt: Format, head: bytes) -> SessionInfo | None:
    doc, data = _document(path)
    agent = "roo-code" if fmt == "roo-code" else "cline"
    compactions = sum(data.count(n) for n in _CLINE_COMPACTIONS)
    if not isinstance(doc, list):
        return _info(path, agent, fmt, data.count(b'"ts":'), compactions,
                     session_id=path.parent.name)
    first = next((str(r.get("text") or "") for r in doc if isinstance(r, dict)
                  and r.get("say") in ("task", "text") and r.get("text")), "")
    return _info(path, agent, fmt, len(doc), compactions, session_id=path.parent.name,
                 title=first.strip().split("\n", 1)[0][:80] or None)


def scan_aider(path: Path, fmt: Format, head: bytes) -> list[SessionInfo]:
    data = path.read_bytes()
    _size, modified = _mtime(path)
    found = aider.runs(data)
    out = []
    for k, run in enumerate(found):
        try:
            ended = datetime.fromisoformat(found[k + 1].started).astimezone(UTC) \
                if k + 1 < len(found) else modified
        except ValueError:
            ended = modified
        out.append(SessionInfo(path=path / str(run.number), agent="aider",
                               session_id=str(run.number), format=fmt, entries=run.blocks,
                               compactions=0, size=run.end - run.offset, modified=ended,
                               project=str(path.parent),
                               title=f"aider run {run.started}" if run.started else None))
    return out


def scan_kimi(path: Path, fmt: Format, head: bytes) -> SessionInfo | None:
    if head.lstrip().startswith(b'{"type": "metadata"') or path.name == "wire.jsonl":
        return None
    with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
        lines = _count_lines(mm)
        usage = len(re.findall(rb'^\{"role": ?"_usage"', mm, re.M))
        compactions = len(re.findall(rb"Previous context has been compacted", mm))
    sub = is_subagent_context(path)
    return _info(path, "kimi-cli", fmt, max(0, lines - usage), compactions,
                 session_id=f"{path.parent.name}/{path.stem}" if sub else path.parent.name,
                 parent_session_id=path.parent.name if sub else None)


def _doc_scan(agent: str, key: str, sid: str, title: str,
              project: Callable[[dict[str, Any]], str | None]) -> Callable[
                  [Path, Format, bytes], SessionInfo | None]:
    def scan(path: Path, fmt: Format, head: bytes) -> SessionInfo | None:
        doc, data = _document(path)
        if not isinstance(doc, dict):
            return _info(path, agent, fmt, data.count(b'"role":'), 0, session_id=path.stem)
        return _info(path, agent, fmt, len(as_list(doc.get(key))), 0,
                     session_id=as_str(doc.get(sid)) or path.stem, title=as_str(doc.get(title)),
                     project=project(doc))
    return scan


def _amp_project(doc: dict[str, Any]) -> str | None:
    trees = as_list(as_dict(as_dict(doc.get("env")).get("initial")).get("trees"))
    return path_of_uri(as_dict(trees[0]).get("uri")) if trees else None


scan_amp = _doc_scan("amp", "messages", "id", "title", _amp_project)
scan_continue = _doc_scan("continue", "history", "sessionId", "title",
                          lambda doc: path_of_uri(doc.get("workspaceDirectory")))

#: The other agents' sources, in the order listings show them.
AGENT_SOURCES = (
    SessionSource("gemini-cli", gemini_dirs, frozenset({"gemini-jsonl", "gemini-json"}),
                  scan_gemini),
    SessionSource("copilot-cli", copilot_dirs, frozenset({"copilot-events", "copilot-legacy"}),
                  scan_copilot),
    SessionSource("crush", crush_files, frozenset({"crush-sqlite", "opencode-go-sqlite"}),
                  scan_crush),
    SessionSource("opencode", opencode_files, frozenset({"opencode-sqlite"}), scan_opencode),
    SessionSource("openclaw-store", openclaw_store_files, frozenset({"openclaw-sqlite"}),
                  scan_openclaw_store),
    SessionSource("cursor", cursor_dirs, frozenset({"cursor-jsonl", "cursor-txt"}), scan_cursor),
    SessionSource("cline", cline_dirs, frozenset({"cline", "roo-code"}), scan_cline),
    SessionSource("aider", aider_files, frozenset({"aider-md"}), scan_aider),
    SessionSource("kimi-cli", kimi_dirs, frozenset({"kimi"}), scan_kimi),
    SessionSource("amp", amp_dirs, frozenset({"amp"}), scan_amp),
    SessionSource("continue", continue_dirs, frozenset({"continue"}), scan_continue),
)


def register_other_sources() -> None:
    """Register every source above (idempotent: sources replace by name)."""
    for source in AGENT_SOURCES:
        register_source(source)


register_other_sources()
