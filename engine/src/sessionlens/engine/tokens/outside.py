"""What the provider counted that the transcript does not hold.

A provider's reported usage covers the system prompt, the tool definitions and whatever the
agent adds to each request, measured with the provider's own tokenizer; the exact count
covers only the messages replayed from the transcript. At the turn whose usage is the
reported context, their difference is the part of the context the file cannot show, which
is why "exact" can be far below "reported" (sample 03: 16,520 reported, 4,709 exact).
Where the file records the request itself (Claude Code 2.1.3xx), ``recorded_context``
counts it, and what lies outside the transcript is measured instead.
"""

from __future__ import annotations

from dataclasses import dataclass

from sessionlens.engine.agents.claude_code.records import recorded_requests, request_parts
from sessionlens.engine.model import Transcript

from .text_counter import count_texts
from .token_report import TokenReport

__all__ = ["RecordedContext", "outside_transcript", "recorded_context"]


def outside_transcript(transcript: Transcript, report: TokenReport) -> int | None:
    """The reported context minus the exact count of the replayed context up to (and
    including) the reported turn: positive when the provider counted more than the file's
    messages, negative when ``report.encoding`` counts them higher than the provider's own
    tokenizer did. None without a report, or when the reported turn is not in the context."""
    if report.reported_context is None or report.reported_entry_id is None:
        return None
    total = 0
    for item in transcript.context:
        counts = report.entries.get(item.entry_id)
        if counts is not None:
            total += counts.exact
        if item.entry_id == report.reported_entry_id:
            return report.reported_context - total
    return None


@dataclass(frozen=True, slots=True)
class RecordedContext:
    """The request the agent recorded for the reported turn (Claude Code 2.1.3xx writes
    every request it sends), counted exactly: what lies outside the transcript is then
    measured, not estimated."""

    request_id: str
    line: int
    encoding: str
    #: Exact tokens of the whole recorded request: system prompt, tool definitions, messages.
    exact: int
    system: int
    tools: int
    messages: int
    #: ``exact`` minus the exact count of the replayed context before the reported turn.
    outside_transcript: int
    #: How many messages the request held, and the names of the tools it offered.
    message_count: int = 0
    tool_names: tuple[str, ...] = ()


def recorded_context(transcript: Transcript, report: TokenReport) -> RecordedContext | None:
    """The recorded request the reported turn answered, counted with ``report.encoding``;
    None when the file records no request for it."""
    if report.reported_entry_id is None:
        return None
    at = transcript.index.get(report.reported_entry_id)
    ref = transcript.entries[at].extra.get("request_ref") if at is not None else None
    request = next((r for r in recorded_requests(transcript.entries) if r.id == ref), None)
    if request is None:
        return None
    parts = request_parts(request)
    counts = count_texts(report.encoding, [t for part in parts for t in part],
                         sum(len(p) for p in parts), path=transcript.path)
    sizes, start = [], 0
    for part in parts:
        sizes.append(sum(counts[start:start + len(part)]))
        start += len(part)
    before = 0
    for item in transcript.context:
        if item.entry_id == report.reported_entry_id:
            break
        counted = report.entries.get(item.entry_id)
        before += counted.exact if counted is not None else 0
    total = sum(sizes)
    return RecordedContext(request.id, request.line, report.encoding, total, sizes[0],
                           sizes[1], sizes[2], total - before, len(request.messages),
                           tuple(str(t.get("name") or "") for t in request.tools))
