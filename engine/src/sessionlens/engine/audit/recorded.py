"""Auditing a compaction whose summarized entries live in the predecessor file.

A successor transcript (transcript-format.md §2.5(b)) leaves out the messages its newest
compaction summarized: they stay in the file named by the header's ``parentSession``. Audited
on the successor alone, that compaction's span holds no message at all, and every check
passes on nothing ("0 of 0 identifiers"). So when a span holds no message and the file has a
predecessor, the span is looked up there: the compaction itself if the predecessor holds it
(one inherited by the successor), else the predecessor's active path after the previous
compaction both files share, up to ``firstKeptEntryId`` (or to its end, for a hard boundary).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from sessionlens.engine.contract.templates import IdentifierPolicy
from sessionlens.engine.errors import SessionLensError
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.model import Entry, Transcript
from sessionlens.engine.plan.planner import is_message_entry
from sessionlens.engine.sessions.store import resolve_session_file

from .report import (
    AUDIT_BUDGET_CHARS,
    AuditReport,
    audit_compaction,
    audit_summary,
    recorded_instructions,
)
from .span import carried_tail, path_to, taken_out

__all__ = ["ChainAudit", "audit_compaction_in_chain", "audit_every_compaction", "predecessor_span"]

Loader = Callable[[Path], Transcript]


@dataclass(frozen=True, slots=True)
class ChainAudit:
    """An audit, and the file its summarized entries were read from when not the audited one."""

    report: AuditReport
    #: The predecessor that holds the summarized entries, or None (they are in the file).
    span_source: Path | None = None


def _has_message(transcript: Transcript, ids: Sequence[str]) -> bool:
    return any((e := transcript.get(i)) is not None and is_message_entry(e) for i in ids)


def _written_cut(path: Sequence[str], predecessor: Transcript, successor: Transcript,
                 first_kept: str | None, start: int) -> int:
    """Where the history the compaction summarized ends on the predecessor's path: at the
    first message after the written ``firstKeptEntryId`` that the successor holds and that
    is not a tool result (a successor moves ``firstKeptEntryId`` back to the last summarized
    assistant turn and keeps it and its results; the cut the plan made is the next message
    the successor kept). The whole path for a hard boundary."""
    if first_kept is None or first_kept not in path[start:]:
        return len(path)
    at = path.index(first_kept, start)
    entry = predecessor.entry(path[at])
    if entry.message is None or entry.role != "assistant":
        return at
    for i in range(at + 1, len(path)):
        e = predecessor.entry(path[i])
        if e.id in successor.index and e.type == "message" and e.role != "toolResult":
            return i
    return len(path)


def predecessor_span(predecessor: Transcript, successor: Transcript,
                     compaction_id: str) -> tuple[str, ...]:
    """Ids on the predecessor's active path that ``compaction_id`` (in ``successor``) replaced:
    the tail the previous boundary kept (``span.carried_tail``) and what followed it up to
    the plan's cut, less what the successor still holds (``span.taken_out``, the rule the
    write-time audit uses too).

    Pure. Empty when the files share no starting point (the previous compaction of the
    successor is not on the predecessor's path)."""
    entry = successor.entry(compaction_id)
    before = path_to(successor, compaction_id)[:-1]
    previous: Entry | None = next(
        (e for e in reversed(before) if e.type in ("compaction", "reset")), None)
    path = predecessor.active_path
    start = 0
    carried: tuple[str, ...] = ()
    if previous is not None:
        if previous.id not in path:
            return ()
        start = path.index(previous.id) + 1
        entries = [predecessor.entry(i) for i in path[:start]]
        carried = tuple(e.id for e in carried_tail(entries, start - 1))
    end = _written_cut(path, predecessor, successor, entry.first_kept_entry_id, start)
    return taken_out(carried + tuple(path[start:end]), successor.index)


def _predecessor_path(transcript: Transcript) -> Path | None:
    header = transcript.header
    raw = (header.parent_session or header.branched_from) if header is not None else None
    if not raw:
        return None
    found = resolve_session_file(raw, None, transcript.path.parent)
    return found if found is not None and found.is_file() else None


def audit_compaction_in_chain(transcript: Transcript, compaction_id: str | None = None, *,
                              identifier_policy: IdentifierPolicy = "strict",
                              budget_chars: int | None = AUDIT_BUDGET_CHARS,
                              load: Loader = load_transcript,
                              summary: str | None = None) -> ChainAudit:
    """``audit_compaction``, reading the span from the predecessor when the file lacks it.
    With ``summary``, that text is audited as the compaction's replacement instead of the
    recorded one.

    Raises AuditError as ``audit_compaction`` does; a predecessor that is missing or cannot
    be loaded leaves the audit as the file alone gives it."""
    report = audit_compaction(transcript, compaction_id, identifier_policy=identifier_policy,
                              budget_chars=budget_chars, summary=summary)
    cid = report.compaction_id or ""
    if _has_message(transcript, report.summarized_entry_ids):
        return ChainAudit(report)
    source = _predecessor_path(transcript)
    if source is None or source.resolve() == transcript.path.resolve():
        return ChainAudit(report)
    try:
        predecessor = load(source)
    except SessionLensError:
        return ChainAudit(report)
    held = predecessor.get(cid)
    if held is not None and held.type == "compaction":
        inherited = audit_compaction(predecessor, cid, identifier_policy=identifier_policy,
                                     budget_chars=budget_chars, summary=summary)
        return ChainAudit(inherited, source)
    ids = predecessor_span(predecessor, transcript, cid)
    if not _has_message(predecessor, ids):
        return ChainAudit(report)
    entry = transcript.entry(cid)
    text = entry.summary or "" if summary is None else summary
    redone = audit_summary(predecessor, text, summarized_entry_ids=ids,
                           template=report.template, identifier_policy=identifier_policy,
                           budget_chars=budget_chars, compaction_id=cid,
                           from_hook=entry.from_hook,
                           instructions=recorded_instructions(transcript, entry))
    return ChainAudit(redone, source)


def audit_every_compaction(transcript: Transcript, *, identifier_policy: IdentifierPolicy = "strict",
                           load: Loader = load_transcript) -> dict[str, ChainAudit]:
    """The audit of every compaction the file holds (file order), each as the chain gives it.

    Loads the predecessor (at most once) when a compaction's span lives there."""
    cache: dict[Path, Transcript] = {}

    def cached(path: Path) -> Transcript:
        if path not in cache:
            cache[path] = load(path)
        return cache[path]

    return {c.id: audit_compaction_in_chain(transcript, c.id, identifier_policy=identifier_policy,
                                            load=cached)
            for c in transcript.compactions}
