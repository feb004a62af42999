"""The journal: every automatic compaction an integration saw, one JSON line each.

It lives in SessionLens's state folder (``state/integrations/journal.jsonl``). Both sides
append to it: the engine when it ran (or refused) a compaction for an agent, and the agent
side (the pi extension, the OpenClaw plugin) when SessionLens could not be reached, was too
slow or crashed, so the agent's own summary was used. An append is one ``write`` of one
line on a descriptor opened ``O_APPEND`` (no reader ever sees half a line from a writer on
the same machine), then fsync. A line that does not parse (a torn write after a power cut,
a hand edit) is reported with its line number and skipped, never fatal.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

__all__ = ["JOURNAL_VERSION", "JournalEntry", "JournalRead", "append_entry", "entries_for",
           "journal_path", "parse_journal_lines", "read_journal"]

JOURNAL_VERSION = 1
#: Who wrote the summary the agent kept.
Writer = Literal["sessionlens", "agent", "none"]


@dataclass(frozen=True, slots=True)
class JournalEntry:
    """One automatic (or manual) compaction an integration saw."""

    agent: str
    session: str
    trigger: str
    #: "sessionlens" (our summary went in), "agent" (the agent's own), "none" (blocked or
    #: cancelled: no compaction happened).
    writer: Writer
    at: str = ""
    session_file: str = ""
    #: The provider/model that wrote SessionLens's summary ("offline", "openai/gpt-4o-mini").
    summarizer: str = ""
    #: None: no audit ran; else passed or not, with the failed checks' names.
    audit_passed: bool | None = None
    failed_checks: tuple[str, ...] = ()
    pins_kept: tuple[str, ...] = ()
    pins_missing: tuple[str, ...] = ()
    #: What the summary lacks from the span ("path: src/a.py", ...), scrubbed of secrets.
    dropped: tuple[str, ...] = ()
    #: Why the agent's own summary was used, or why the compaction was blocked.
    fallback_reason: str = ""
    tokens_before: int | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"v": JOURNAL_VERSION, "at": self.at or _now(), "agent": self.agent,
                "session": self.session, "session_file": self.session_file,
                "trigger": self.trigger, "writer": self.writer, "summarizer": self.summarizer,
                "audit_passed": self.audit_passed, "failed_checks": list(self.failed_checks),
                "pins_kept": list(self.pins_kept), "pins_missing": list(self.pins_missing),
                "dropped": list(self.dropped), "fallback_reason": self.fallback_reason,
                "tokens_before": self.tokens_before, "extra": dict(self.extra)}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> JournalEntry:
        def strs(key: str) -> tuple[str, ...]:
            v = d.get(key)
            return tuple(str(x) for x in v) if isinstance(v, list) else ()

        passed = d.get("audit_passed")
        writer = d.get("writer")
        tokens = d.get("tokens_before")
        extra = d.get("extra")
        return cls(
            agent=str(d.get("agent", "")), session=str(d.get("session", "")),
            trigger=str(d.get("trigger", "")),
            writer=writer if writer in ("sessionlens", "agent", "none") else "agent",
            at=str(d.get("at", "")), session_file=str(d.get("session_file", "")),
            summarizer=str(d.get("summarizer", "")),
            audit_passed=passed if isinstance(passed, bool) else None,
            failed_checks=strs("failed_checks"), pins_kept=strs("pins_kept"),
            pins_missing=strs("pins_missing"), dropped=strs("dropped"),
            fallback_reason=str(d.get("fallback_reason", "") or ""),
            tokens_before=tokens if isinstance(tokens, int) else None,
            extra=extra if isinstance(extra, dict) else {})


@dataclass(frozen=True, slots=True)
class JournalRead:
    """The journal's entries in file order, and a diagnostic per line that did not parse."""

    entries: tuple[JournalEntry, ...]
    problems: tuple[str, ...] = ()


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def journal_path(state_dir: Path) -> Path:
    """The journal file under ``state_dir`` (it may not exist yet)."""
    return Path(state_dir) / "integrations" / "journal.jsonl"


def append_entry(state_dir: Path, entry: JournalEntry) -> Path:
    """Append ``entry`` as one line (one write on an O_APPEND descriptor, then fsync)."""
    path = journal_path(state_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    line = json.dumps(entry.as_dict(), ensure_ascii=False, separators=(",", ":")) + "\n"
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, line.encode("utf-8"))
        os.fsync(fd)
    finally:
        os.close(fd)
    return path


def parse_journal_lines(raw: bytes, path: Path, numbered: bool = True
                        ) -> tuple[tuple[JournalEntry, ...], tuple[str, ...]]:
    """The entries of whole journal lines ``raw``, and a diagnostic per line that is not one
    (naming its line number when ``raw`` starts at the journal's start)."""
    entries: list[JournalEntry] = []
    problems: list[str] = []
    for n, line in enumerate(raw.splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path}:{n}" if numbered else str(path)
        try:
            obj = json.loads(line)
        except ValueError as exc:
            problems.append(f"{where}: not a journal line ({exc}); skipped")
            continue
        if not isinstance(obj, dict):
            problems.append(f"{where}: not a JSON object; skipped")
            continue
        entries.append(JournalEntry.from_dict(obj))
    return tuple(entries), tuple(problems)


def read_journal(state_dir: Path) -> JournalRead:
    """Every entry of the journal (none when there is no journal yet)."""
    path = journal_path(state_dir)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return JournalRead(())
    entries, problems = parse_journal_lines(raw, path)
    return JournalRead(entries, problems)


def entries_for(read: JournalRead, session_files: Sequence[str]) -> tuple[JournalEntry, ...]:
    """The entries about any of ``session_files`` (resolved paths compared)."""
    wanted = {str(Path(p).expanduser().resolve()) for p in session_files}
    return tuple(e for e in read.entries
                 if e.session_file and str(Path(e.session_file).expanduser().resolve()) in wanted)
