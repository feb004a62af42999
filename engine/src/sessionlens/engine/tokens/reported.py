"""Reported usage: the context size the provider itself reported (transcript-format.md §3.1/§3.2).

The truth where present, so every other figure is measured against it; kept apart from the
counting so the plan and lineage steps can ask for it without a tokenizer.
"""

from __future__ import annotations

from sessionlens.engine.load.replay import BOUNDARY_TYPES
from sessionlens.engine.model import Entry, Transcript

__all__ = ["reported_usage_entry", "valid_usage_tokens"]


def valid_usage_tokens(entry: Entry) -> int | None:
    """Context tokens of an assistant entry's usage, or None if it does not count (§3.1).

    Error and aborted turns are skipped, as pi does; a usage of 0 (gateway-injected or
    adapter messages without usage) is not a report either.
    """
    msg = entry.message
    if msg is None or msg.role != "assistant" or msg.usage is None:
        return None
    if msg.stop_reason in ("error", "aborted"):
        return None
    tokens = msg.usage.context_tokens
    return tokens if tokens > 0 else None


def reported_usage_entry(transcript: Transcript) -> Entry | None:
    """The assistant entry whose usage is the reported context size, or None (pure).

    Walks back from the leaf to the latest boundary only: the context's number must not
    cost a pass over a long path.
    """
    for entry_id in reversed(transcript.active_path):
        entry = transcript.get(entry_id)
        if entry is None:
            continue
        if entry.type in BOUNDARY_TYPES:
            return None
        if valid_usage_tokens(entry) is not None:
            return entry
    return None
