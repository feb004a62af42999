"""The recall tools over one session: its overview, a fact's trace, a compaction's losses,
and the original text of entries. Each takes a loaded transcript (and a loader that refuses
files outside the scope, for the chain and predecessor files it may read) and returns one
record of ``results``; nothing here writes, and the caller redacts the answer (with the
secret values of the entries it was cut from, which ``fact_trace`` and ``compaction_drops``
return beside it).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path

from sessionlens.engine.audit.recorded import audit_compaction_in_chain
from sessionlens.engine.lineage.chain import load_chain_transcripts
from sessionlens.engine.lineage.memory_health import MemoryHealth, examine_memory
from sessionlens.engine.lineage.trace import describe_trace, trace_fact
from sessionlens.engine.model import Entry, TextBlock, ThinkingBlock, ToolCallBlock, Transcript
from sessionlens.engine.opened import (
    Overrides,
    agent_model,
    config_for,
    resolve_settings,
    store_window_for,
)
from sessionlens.engine.sessions.discovery import session_infos

from .result_redaction import known_secrets, redact_text, safe_snippet
from .results import (
    CompactionDrops,
    CompactionFate,
    CompactionLine,
    DroppedFact,
    EntryText,
    FactTraceResult,
    MentionLine,
    OriginalText,
    SessionOverview,
)

__all__ = ["compaction_drops", "entry_original_text", "fact_trace", "original_text",
           "session_overview"]

Loader = Callable[[Path], Transcript]
#: Bounds on what one answer lists.
MAX_MENTIONS = 10
MAX_DROPPED = 40
MAX_ENTRY_IDS = 5
PREVIEW_CHARS = 400


def session_overview(transcript: Transcript, load: Loader) -> SessionOverview:
    """Agent, model, size, and every compaction judged by memory health, worst first."""
    infos = session_infos(transcript.path)
    info = infos[0] if infos else None
    found = agent_model(transcript)
    resolved = resolve_settings(transcript, Overrides(), config_for(transcript.path),
                                store_window_for(transcript))
    health: MemoryHealth = examine_memory(transcript, resolved.settings, load=load)
    stamps = [e.timestamp for e in transcript.entries if e.timestamp]
    worst = health.worst
    return SessionOverview(
        path=str(transcript.path), agent=info.agent if info else None,
        session_id=(info.session_id if info else None)
        or (transcript.header.id if transcript.header else None),
        format=transcript.format, model=found[1] if found else None,
        provider=found[0] if found else None, entries=len(transcript.entries),
        messages=sum(1 for e in transcript.entries if e.message is not None),
        first_timestamp=min(stamps, default=None), last_timestamp=max(stamps, default=None),
        compaction_count=len(transcript.compactions),
        memory_health=worst.severity if worst is not None else "none",
        compactions=tuple(CompactionLine(
            c.compaction_id, c.number, c.timestamp, c.severity, c.trigger, c.tokens_replaced,
            c.summary_tokens, c.dropped, c.audit_passed, tuple(c.flags))
            for c in health.compactions))


def fact_trace(transcript: Transcript, text: str, load: Loader, *,
               chain: bool = True) -> tuple[FactTraceResult, frozenset[str]]:
    """Follow ``text`` through the session (and its chain of predecessor and successor
    files in the scope): who mentioned it, and which compaction dropped it; and the secret
    values of the entries shown."""
    transcripts: tuple[Transcript, ...] = (transcript,)
    if chain:
        loaded, _ = load_chain_transcripts(transcript.path, load=load)
        transcripts = loaded or transcripts
    trace = trace_fact(transcripts, text)
    lost = trace.lost_at
    mentions = trace.mentions[:MAX_MENTIONS]
    by_path = {t.path: t for t in transcripts}
    known = known_secrets(entry_original_text(e) for m in mentions
                          if (e := by_path[m.path].get(m.entry_id)) is not None)
    return FactTraceResult(
        path=str(transcript.path), query=trace.query, answer=describe_trace(trace),
        lost_at=f"compaction {lost.number} ({lost.compaction_id})" if lost else None,
        lost_at_compaction_id=lost.compaction_id if lost else None,
        files=tuple(str(p) for p in trace.files),
        mentions=tuple(MentionLine(str(m.path), m.entry_id, m.timestamp, m.role,
                                   safe_snippet(m.snippet, known), m.on_active_path)
                       for m in mentions),
        mentions_total=len(trace.mentions),
        compactions=tuple(CompactionFate(c.number, c.compaction_id, str(c.path), c.timestamp,
                                         c.status, c.in_summary, c.in_kept_tail,
                                         c.on_active_path) for c in trace.compactions)
    ), known


def compaction_drops(transcript: Transcript, compaction_id: str | None, load: Loader, *,
                     limit: int = MAX_DROPPED) -> tuple[CompactionDrops, frozenset[str]]:
    """What a recorded compaction (default: the last) summarized and which specifics of
    that span its summary does not carry; and the secret values of the entries they are
    from (a dropped value is shown without the words that made it a secret)."""
    audited = audit_compaction_in_chain(transcript, compaction_id or None, load=load)
    report = audited.report
    cid = report.compaction_id or ""
    ids = [e.id for e in transcript.compactions]
    entry = transcript.get(cid)
    summary = (entry.summary or "") if entry is not None else ""
    preview = redact_text(summary)
    if len(preview) > PREVIEW_CHARS:
        preview = preview[:PREVIEW_CHARS].rsplit(" ", 1)[0] + "…"
    shown = report.dropped[:max(1, limit)]
    span = load(audited.span_source) if audited.span_source is not None else transcript
    mentioned = dict.fromkeys(i for d in shown for i in d.entry_ids)
    known = known_secrets([summary, *(entry_original_text(e) for i in mentioned
                                      if (e := span.get(i)) is not None)])
    return CompactionDrops(
        path=str(transcript.path), compaction_id=cid,
        number=ids.index(cid) + 1 if cid in ids else 0,
        timestamp=entry.timestamp if entry is not None else None,
        audit_passed=report.passed, total_loss=report.total_loss,
        summarized_entries=len(report.summarized_entry_ids),
        coverage=tuple(f"{c.cls} {c.found}/{c.total}" for c in report.coverage if c.total),
        dropped=tuple(DroppedFact(d.value, d.cls, d.context, d.entry_ids[:MAX_ENTRY_IDS])
                      for d in shown),
        dropped_total=len(report.dropped), summary_preview=preview,
        span_source=str(audited.span_source) if audited.span_source is not None else None,
    ), known


def entry_original_text(entry: Entry) -> str:
    """Everything an entry said, as text: message text, thinking, tool calls with their
    arguments, tool output, a compaction's summary, an error."""
    parts: list[str] = []
    msg = entry.message
    blocks = msg.content if msg is not None else entry.content
    for b in blocks:
        if isinstance(b, TextBlock):
            parts.append(b.text)
        elif isinstance(b, ThinkingBlock) and not b.redacted:
            parts.append(f"[thinking] {b.thinking}")
        elif isinstance(b, ToolCallBlock):
            args = json.dumps(b.arguments, ensure_ascii=False, default=str)
            parts.append(f"[tool call {b.name}] {args}")
    if msg is not None:
        if msg.role == "bashExecution":
            parts.extend(p for p in (msg.command, msg.output) if p)
        if msg.error_message:
            parts.append(f"[error] {msg.error_message}")
    if entry.summary:
        parts.append(entry.summary)
    return "\n".join(p for p in parts if p)


def _role(entry: Entry) -> str:
    return entry.message.role if entry.message is not None else entry.type


def original_text(transcript: Transcript, entry_ids: Sequence[str], *, offset: int = 0,
                  max_chars: int = 4000) -> OriginalText:
    """The entries' own text, redacted whole, then one page of it from ``offset``."""
    heads: list[EntryText] = []
    missing: list[str] = []
    pieces: list[str] = []
    for eid in dict.fromkeys(entry_ids):
        entry = transcript.get(eid)
        if entry is None:
            missing.append(eid)
            continue
        text = redact_text(entry_original_text(entry))
        heads.append(EntryText(entry.id, _role(entry), entry.timestamp, entry.line, len(text)))
        pieces.append(f"--- entry {entry.id} ({_role(entry)}, {entry.timestamp or 'no time'}, "
                      f"line {entry.line}) ---\n{text}\n")
    whole = "".join(pieces)
    start = min(max(0, offset), len(whole))
    end = min(len(whole), start + max(1, max_chars))
    return OriginalText(str(transcript.path), tuple(heads), tuple(missing), whole[start:end],
                        start, len(whole), end if end < len(whole) else None)
