"""What the provider counted that the transcript does not hold.

A provider's reported usage covers the system prompt, the tool definitions and whatever the
agent adds to each request, measured with the provider's own tokenizer; the exact count
covers only the messages replayed from the transcript. At the turn whose usage is the
reported context, their difference is the part of the context the file cannot show, which
is why "exact" can be far below "reported" (sample 03: 16,520 reported, 4,709 exact).
"""

from __future__ import annotations

from sessionlens.engine.model import Transcript

from .counts import TokenReport

__all__ = ["outside_transcript"]


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
