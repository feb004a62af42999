"""One session's memory health as one small row: what travels from a worker and is cached.

A fleet audit asks, per session, the questions ``sessionlens audit FILE`` answers per file:
which compactions lost what, what fired them, whether the memory flush ran. The numbers are
the engine's own (``lineage.memory_health.examine_memory``: forensics, every recorded
audit, the flush analysis) and are only copied here, never measured a second way. A row
holds no transcript text beyond ids, so thousands of them travel and cache cheaply.

``session_row`` is pure (a loaded transcript, its resolved settings and its health in; a
row out); ``audit_session`` does the I/O around it and never raises: a session that cannot
be audited comes back as a ``SessionFailure`` with its error, so a run goes on.
"""

from __future__ import annotations

import traceback
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sessionlens.engine.lineage.memory_health import CompactionHealth, MemoryHealth
    from sessionlens.engine.model import Transcript
    from sessionlens.engine.opened import ResolvedSettings

__all__ = ["CompactionRow", "SessionFailure", "SessionRow", "SessionStamp", "audit_batch",
           "audit_session",
           "compaction_row", "local_host", "row_from_dict", "row_to_dict", "session_row"]

#: Bumped when a row's shape or meaning changes: cached rows of another version are redone.
ROW_VERSION = 1
#: The formats whose writer ``plan.rules.file_agent`` tells apart (pi, OpenClaw, ...).
_RULE_FORMATS = frozenset({"pi-v1", "pi-v2", "openclaw-v3", "openclaw-sqlite", "claude-code",
                           "codex"})


def local_host() -> str:
    """The name rows and cache keys give this machine."""
    import socket  # only a fleet run pays for it (``cli.build_parser`` imports this module)

    return socket.gethostname()


@dataclass(frozen=True, slots=True)
class SessionStamp:
    """A session found on some machine, and what identifies its bytes (the cache key)."""

    host: str
    #: The file, or ``<database>/<session id>`` for a session inside a database.
    path: str
    size: int
    mtime_ns: int
    #: The mtime of the ``sessions.json`` beside the file (its flush record), 0 if none.
    store_mtime_ns: int
    format: str
    #: What discovery says about the agent (an OpenClaw agent id, "crush", ...), or None.
    found_agent: str | None
    session_id: str | None
    #: Compactions the quick scan counted (None: it cannot tell).
    compactions: int | None


@dataclass(frozen=True, slots=True)
class CompactionRow:
    """One recorded compaction, as memory health judged it."""

    compaction_id: str
    #: 1-based position in the file ("compaction 3").
    number: int
    timestamp: str | None
    trigger: str
    severity: str
    flags: tuple[str, ...]
    #: Forensics' estimate of the tokens the summary stands in for.
    tokens_replaced: int
    summary_tokens: int
    #: Specifics of the summarized span the summary does not carry (the audit's ``dropped``).
    dropped: int
    #: Specifics of the span the summary kept, and how many there were (every class).
    found: int
    total: int
    #: (class, found, total) per class with anything to cover.
    coverage: tuple[tuple[str, int, int], ...]
    audit_passed: bool
    #: What the memory flush did in the cycle this compaction closed (None: no cycle).
    flush_status: str | None
    flush_reason: str | None
    on_active_path: bool

    @property
    def kept_share(self) -> float:
        """Share of the span's specifics the summary kept (1.0 when there were none)."""
        return 1.0 if self.total == 0 else self.found / self.total

    @property
    def flush_missed(self) -> bool:
        return self.flush_status == "missed"

    @property
    def pointless(self) -> bool:
        """It did not make the context smaller: the summary is no smaller than what it
        replaced (forensics' ``summary-not-smaller``, which includes replacing nothing)."""
        return "summary-not-smaller" in self.flags


@dataclass(frozen=True, slots=True)
class SessionRow:
    """One session: who wrote it, with which model and settings, and its compactions."""

    host: str
    path: str
    session_id: str | None
    #: The agent program ("pi", "openclaw", "claude-code", "codex", "crush", ...).
    agent: str
    #: The OpenClaw agent id (``agents/<id>/``), when the path names one.
    agent_id: str | None
    format: str
    provider: str | None
    model: str | None
    #: (name, value) of the settings the audit used (window, reserve, keep recent, cut rule,
    #: mode), in that order.
    settings: tuple[tuple[str, str], ...]
    #: The file's modified time, ISO 8601 UTC.
    modified: str
    size: int
    compactions: tuple[CompactionRow, ...]


@dataclass(frozen=True, slots=True)
class SessionFailure:
    """A session that could not be audited, and why (the run went on without it)."""

    host: str
    path: str
    error: str
    #: The exception's class name ("LoadError", "KeyError", ...).
    kind: str


def compaction_row(c: CompactionHealth) -> CompactionRow:
    """The row of one memory-health compaction (pure)."""
    cov = tuple((k.cls, k.found, k.total) for k in c.coverage)
    return CompactionRow(
        compaction_id=c.compaction_id, number=c.number, timestamp=c.timestamp,
        trigger=c.trigger, severity=c.severity, flags=tuple(c.flags),
        tokens_replaced=c.tokens_replaced, summary_tokens=c.summary_tokens, dropped=c.dropped,
        found=sum(k[1] for k in cov), total=sum(k[2] for k in cov), coverage=cov,
        audit_passed=c.audit_passed, flush_status=c.flush_status, flush_reason=c.flush_reason,
        on_active_path=c.on_active_path)


def _iso(ns: int) -> str:
    return datetime.fromtimestamp(ns / 1e9, UTC).isoformat().replace("+00:00", "Z")


def _agent(stamp: SessionStamp, transcript: Transcript | None) -> tuple[str, str | None]:
    """(agent program, OpenClaw agent id) from the file's own evidence and its folder."""
    fmt, found = stamp.format, stamp.found_agent
    if transcript is not None and fmt in _RULE_FORMATS:
        from sessionlens.engine.plan.rules import file_agent

        agent: str = file_agent(transcript).agent
    elif fmt in ("pi-v1", "pi-v2"):
        agent = "pi"
    elif fmt in ("claude-code", "codex"):
        agent = fmt
    elif fmt == "openclaw-sqlite" or (fmt == "openclaw-v3" and found not in (None, "pi")):
        agent = "openclaw"  # its store, or its agents/<id>/sessions/ folder
    elif fmt == "openclaw-v3":
        agent = "pi"  # not loaded: no OpenClaw mark seen (file_agent's own default)
    else:
        agent = found or fmt
    agent_id = stamp.found_agent if agent == "openclaw" and stamp.found_agent not in (
        None, "openclaw") else None
    return agent, agent_id


def session_row(stamp: SessionStamp, transcript: Transcript | None,
                resolved: ResolvedSettings | None, health: MemoryHealth | None) -> SessionRow:
    """The row of one session (pure). ``transcript`` None: a session the quick scan found
    no compaction in, which is not loaded (no model, no settings, no compactions)."""
    from sessionlens.engine.opened import agent_model

    found = agent_model(transcript) if transcript is not None else None
    settings: tuple[tuple[str, str], ...] = ()
    if resolved is not None:
        settings = (*((name, str(s.value)) for name, s in resolved.rows()),
                    ("mode", resolved.settings.mode))
    rows = sorted((compaction_row(c) for c in health.compactions), key=lambda r: r.number) \
        if health is not None else []
    agent, agent_id = _agent(stamp, transcript)
    return SessionRow(
        host=stamp.host, path=stamp.path,
        session_id=(transcript.header.id if transcript is not None and transcript.header
                    else stamp.session_id),
        agent=agent, agent_id=agent_id, format=stamp.format,
        provider=found[0] if found else None, model=found[1] if found else None,
        settings=settings, modified=_iso(stamp.mtime_ns), size=stamp.size,
        compactions=tuple(rows))


def audit_session(stamp: SessionStamp) -> SessionRow | SessionFailure:
    """Load, resolve the settings ``audit FILE`` would use, examine memory, make the row.

    Never raises (a worker's task must not fail the run): any exception comes back as a
    ``SessionFailure`` naming it."""
    try:
        if stamp.compactions == 0:
            return session_row(stamp, None, None, None)
        from sessionlens.engine.lineage.memory_health import examine_memory
        from sessionlens.engine.load.reader import load_transcript
        from sessionlens.engine.opened import (
            Overrides,
            config_for,
            resolve_settings,
            store_window_for,
        )

        t = load_transcript(Path(stamp.path))
        resolved = resolve_settings(t, Overrides(), config_for(t.path), store_window_for(t, None))
        health = examine_memory(t, resolved.settings,
                                window_source=resolved.context_window.source)
        return session_row(stamp, t, resolved, health)
    except Exception as exc:  # noqa: BLE001 - reported as the session's failure, run goes on
        where = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
        at = f" (at {Path(where.filename).name}:{where.lineno})" if where is not None \
            and not isinstance(exc, _expected()) else ""
        return SessionFailure(stamp.host, stamp.path, f"{exc}{at}" or type(exc).__name__,
                              type(exc).__name__)


def audit_batch(stamps: Sequence[SessionStamp]) -> list[SessionRow | SessionFailure]:
    """``audit_session`` of each, in order (one cluster task for several small sessions)."""
    return [audit_session(s) for s in stamps]


def _expected() -> tuple[type[BaseException], ...]:
    from sessionlens.engine.errors import SessionLensError

    return (SessionLensError, OSError)


# --------------------------------------------------------------------------- JSON shape

def row_to_dict(row: SessionRow) -> dict[str, Any]:
    """The row as plain JSON data (the cache's value, ``--json``'s ``sessions[]``)."""
    return {
        "host": row.host, "path": row.path, "session_id": row.session_id, "agent": row.agent,
        "agent_id": row.agent_id, "format": row.format, "provider": row.provider,
        "model": row.model, "settings": dict(row.settings), "modified": row.modified,
        "size": row.size,
        "compactions": [{
            "id": c.compaction_id, "number": c.number, "timestamp": c.timestamp,
            "trigger": c.trigger, "severity": c.severity, "flags": list(c.flags),
            "tokens_replaced": c.tokens_replaced, "summary_tokens": c.summary_tokens,
            "dropped": c.dropped, "found": c.found, "total": c.total,
            "kept_share": round(c.kept_share, 4),
            "coverage": {cls: {"found": f, "total": n} for cls, f, n in c.coverage},
            "audit_passed": c.audit_passed, "flush_status": c.flush_status,
            "flush_reason": c.flush_reason, "flush_missed": c.flush_missed,
            "pointless": c.pointless, "on_active_path": c.on_active_path,
        } for c in row.compactions],
    }


def row_from_dict(d: dict[str, Any]) -> SessionRow:
    """``row_to_dict``'s inverse (KeyError / TypeError on a malformed object)."""
    return SessionRow(
        host=d["host"], path=d["path"], session_id=d["session_id"], agent=d["agent"],
        agent_id=d["agent_id"], format=d["format"], provider=d["provider"], model=d["model"],
        settings=tuple((str(k), str(v)) for k, v in d["settings"].items()),
        modified=d["modified"], size=int(d["size"]),
        compactions=tuple(CompactionRow(
            compaction_id=c["id"], number=c["number"], timestamp=c["timestamp"],
            trigger=c["trigger"], severity=c["severity"], flags=tuple(c["flags"]),
            tokens_replaced=c["tokens_replaced"], summary_tokens=c["summary_tokens"],
            dropped=c["dropped"], found=c["found"], total=c["total"],
            coverage=tuple((k, v["found"], v["total"]) for k, v in c["coverage"].items()),
            audit_passed=c["audit_passed"], flush_status=c["flush_status"],
            flush_reason=c["flush_reason"], on_active_path=c["on_active_path"])
            for c in d["compactions"]))
