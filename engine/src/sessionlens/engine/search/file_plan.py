"""What indexing one transcript file will write, worked out without touching the index.

``plan_file`` reads the file once, decides whether it only grew (the bytes the index saw
are still its first bytes) or was rewritten, loads it with the one loader, and returns the
rows to write: new chunks, the chunker state to resume from, and the spans of its
compactions. It is pure data in and out, so it can run in a worker process, and the writer
can check that the index still holds what the plan was made against before it commits.

Only complete lines count: an entry on a last line with no newline yet (a writer caught
mid-line) is left for the next update, so the index never holds half an entry.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from sessionlens.engine.errors import LoadError, NotATranscriptError
from sessionlens.engine.load.reader import load_transcript_bytes
from sessionlens.engine.model import Entry, Transcript
from sessionlens.engine.transcript_secrets import blanked, entry_secret_values

from .chunking import ChunkerState, TokenMeasure, chunk_entries, indexed_text
from .index_rows import BaseState, FilePlan, PlanMode, chunk_rows, compaction_rows
from .search_settings import SearchSettings
from .store_plan import is_store_session, plan_store_session

__all__ = ["HEAD_BYTES", "plan_file"]

#: The "head" whose hash is kept per file (a cheap first look at whether it was replaced).
HEAD_BYTES = 64 << 10

def plan_file(path: Path, base: BaseState | None, settings: SearchSettings,
              measure: TokenMeasure, *, agent: str | None = None,
              session_id: str | None = None,
              cancel: Callable[[], bool] | None = None) -> FilePlan:
    """The rows that bring the index's record of ``path`` up to date with the file."""
    if is_store_session(path):  # <db>/<session> of OpenClaw's SQLite store
        return plan_store_session(path, base, settings, measure, agent=agent,
                                  session_id=session_id, cancel=cancel)
    try:
        with open(path, "rb") as fh:
            st = os.fstat(fh.fileno())
            data = fh.read()
    except OSError as exc:
        return FilePlan(str(path), "failed", base, error=f"{path}: cannot read: "
                                                         f"{exc.strerror or exc}")
    view = memoryview(data)
    complete = data.rfind(b"\n") + 1
    seen = FilePlan(str(path), "touch", base, size=st.st_size, mtime_ns=st.st_mtime_ns,
                    agent=agent, session_id=session_id,
                    head_sha=hashlib.sha256(view[:HEAD_BYTES]).hexdigest())
    prefix = hashlib.sha256(view[:base.indexed_bytes] if base else b"")
    grew = (base is not None and base.indexed_bytes <= complete
            and prefix.hexdigest() == base.prefix_sha)
    if grew and base is not None and base.indexed_bytes == complete:
        return seen  # no new complete line
    resume_at = json.loads(base.resume) if grew and base is not None and base.resume else None
    tail = _read_tail(data, path, complete, base, resume_at) if grew else None
    if tail is not None:
        entries: Sequence[Entry] = tail
        t: Transcript | None = None
        diagnostics = base.diagnostics if base is not None else 0
    else:
        try:
            t = load_transcript_bytes(data, path, file_mtime_ns=st.st_mtime_ns, cancel=cancel)
        except NotATranscriptError:  # another tool's .jsonl in an agent folder: say nothing
            return replace(seen, mode="failed")
        except LoadError as exc:
            return replace(seen, mode="failed", error=str(exc))
        entries = [e for e in t.entries if e.length <= 0 or e.offset + e.length < complete]
        diagnostics = len(t.diagnostics)
    if grew and base is not None and len(entries) < base.entry_count:
        grew = False  # fewer entries from more bytes: not an append after all
    if not grew:
        prefix = hashlib.sha256()
    prefix.update(view[base.indexed_bytes if grew and base else 0:complete])
    start = base.entry_count if grew and base else 0
    state = ChunkerState()
    if grew and resume_at is not None:
        state = ChunkerState.from_json(resume_at)
    low = min([p.seq for p in state.carry] + [state.seq])
    # The index holds no secret verbatim (issue 39 item 15): each entry's text is blanked
    # of what it shows itself and of the secrets the entries indexed now show in context.
    secrets = entry_secret_values(entries[i] for i in range(low, len(entries)))
    items = [(i, blanked(text, secrets)) for i in range(low, len(entries))
             if (text := indexed_text(entries[i]))]
    todo = [(seq, text) for seq, text in items if seq >= state.seq]
    counts = dict(zip((seq for seq, _ in todo), measure.counts([text for _, text in todo]),
                      strict=True))
    chunks, begun = chunk_entries(items, counts, measure, settings.chunk_tokens,
                                  settings.chunk_overlap, state)
    mode: PlanMode = "append" if grew else ("rewrite" if base is not None else "new")
    resume = base.resume if grew and base else None
    if chunks:
        first = min([p.seq for p in begun.carry] + [begun.seq])
        e = entries[first]
        at = e.offset if tail is None else tail.file_offset(e)
        resume = json.dumps({**begun.to_json(), "line": [first, at, e.id]})
    return replace(
        seen, mode=mode, format=t.format if t is not None else (base.format if base else ""),
        session_id=session_id or (t.session_id if t is not None else None),
        indexed_bytes=complete, prefix_sha=prefix.hexdigest(), entry_count=len(entries),
        diagnostics=diagnostics, chunks=chunk_rows(chunks, entries), resume=resume,
        compactions=compaction_rows(t, entries, start) if t is not None else (),
        entries_added=len(entries) - start)


#: Formats whose every entry line carries its own id, so a tail read names entries as a
#: full load does (pi v1, Claude Code and Codex number some entries by line).
_TAIL_FORMATS = frozenset({"openclaw-v3", "pi-v2"})


class _Tail(Sequence[Entry]):
    """Entries ``first`` onwards of a file, read without the lines before them."""

    def __init__(self, first: int, entries: list[Entry], shift: int) -> None:
        self.first, self.entries, self.shift = first, entries, shift

    def __len__(self) -> int:
        return self.first + len(self.entries)

    def __getitem__(self, i: int) -> Entry:  # type: ignore[override]
        if i < self.first:
            raise IndexError(i)
        return self.entries[i - self.first]

    def file_offset(self, e: Entry) -> int:
        return e.offset + self.shift


def _read_tail(data: bytes, path: Path, complete: int, base: BaseState | None,
               resume: dict[str, object] | None) -> _Tail | None:
    """The entries an append needs, parsed from the open chunk's first line on; None when
    only a full load will do (other formats, a new compaction whose span needs the whole
    path, or a file that does not line up with what the index remembers)."""
    line = resume.get("line") if resume else None
    if base is None or base.format not in _TAIL_FORMATS or not isinstance(line, list):
        return None
    first, at, first_id = line
    if data.find(b'"compaction"', base.indexed_bytes, complete) >= 0:
        return None
    head_end = data.find(b"\n") + 1
    if not 0 < head_end <= at < complete:
        return None
    part = data[:head_end] + data[at:complete]
    try:
        t = load_transcript_bytes(part, path)
    except LoadError:
        return None
    if not t.entries or t.entries[0].id != first_id:
        return None
    return _Tail(int(first), list(t.entries), at - head_end)
