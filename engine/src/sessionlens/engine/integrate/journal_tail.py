"""The journal's new lines, for a reader that follows it (the running app), and which
recorded compaction a journal line is about.

A follower remembers the byte offset up to which it has read; ``read_journal_since`` reads
from there up to the end of the last whole line (a line being appended right now is left
for the next read), and says the new offset. A journal shorter than the offset was replaced
or truncated: it is read again from its start.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from sessionlens.engine.model import Transcript

from .journal import JournalEntry, journal_path, parse_journal_lines

__all__ = ["JournalTail", "journal_compaction_id", "journal_end", "read_journal_since"]

#: How far back from its end ``journal_end`` looks for the last whole line.
_END_WINDOW = 1 << 16


@dataclass(frozen=True, slots=True)
class JournalTail:
    """The entries after ``offset``, a diagnostic per line that did not parse, the new offset."""

    entries: tuple[JournalEntry, ...]
    problems: tuple[str, ...]
    offset: int


def read_journal_since(state_dir: Path, offset: int = 0) -> JournalTail:
    """The whole journal lines written after byte ``offset`` (none when there is no journal)."""
    path = journal_path(state_dir)
    try:
        with path.open("rb") as f:
            size = f.seek(0, 2)
            start = offset if 0 <= offset <= size else 0
            f.seek(start)
            raw = f.read(size - start)
    except FileNotFoundError:
        return JournalTail((), (), 0)
    whole = raw[:raw.rfind(b"\n") + 1]
    entries, problems = parse_journal_lines(whole, path, numbered=start == 0)
    return JournalTail(entries, problems, start + len(whole))


def journal_end(state_dir: Path) -> int:
    """The offset just after the journal's last whole line (0 when there is no journal):
    where a follower that wants only what is appended from now on starts. Reads at most
    the last 64 KiB, however long the journal."""
    try:
        with journal_path(state_dir).open("rb") as f:
            size = f.seek(0, 2)
            start = max(0, size - _END_WINDOW)
            f.seek(start)
            tail = f.read()
    except FileNotFoundError:
        return 0
    cut = tail.rfind(b"\n")
    return start + cut + 1 if cut >= 0 else start


def _when(stamp: str | None) -> datetime | None:
    if not stamp:
        return None
    try:
        when = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo is not None else None


def journal_compaction_id(entry: JournalEntry, transcript: Transcript) -> str | None:
    """The recorded compaction of ``transcript`` that ``entry`` is about: the one the entry
    names (``extra.compaction_id``, Codex's hook), else the first written at or after the
    journal line (pi writes its compaction after SessionLens answered; Claude Code 2.1.332
    runs PostCompact before it writes its boundary), else the last one before it. None when
    the file holds no compaction."""
    ids = [eid for eid in transcript.active_path
           if (e := transcript.get(eid)) is not None and e.type == "compaction"]
    named = entry.extra.get("compaction_id")
    if isinstance(named, str) and named in ids:
        return named
    if not ids:
        return None
    at = _when(entry.at)
    if at is None:
        return ids[-1]
    stamps = [(eid, _when(transcript.entry(eid).timestamp)) for eid in ids]
    after = [eid for eid, t in stamps if t is not None and t >= at]
    before = [eid for eid, t in stamps if t is not None and t < at]
    return after[0] if after else before[-1] if before else ids[-1]
