"""pi's context estimate of a transcript on its own, without counting the whole file.

``estimateContextTokens``: the last valid reported usage after the newest compaction or reset
plus the chars/4 estimates of the context messages after it; with no usage, the sum of the
estimates of everything replayed (a compaction counting as its summary). It is what
``inspect`` reports as ``tokens.estimate``, and what a write's dry run measures on the file
it is about to write, so "tokens after" is the number the written file really has.
"""

from __future__ import annotations

from sessionlens.engine.model import Transcript

from .estimate import EstimateRules, estimate_entry_tokens
from .reported import reported_usage_entry, valid_usage_tokens

__all__ = ["context_estimate"]


def context_estimate(transcript: Transcript, rules: EstimateRules = "pi") -> int:
    """Tokens the agent would believe its replayed context holds (pure; no exact counting)."""
    items = transcript.context
    usage_entry = reported_usage_entry(transcript)
    start, base = 0, 0
    if usage_entry is not None:
        for i in range(len(items) - 1, -1, -1):
            if items[i].entry_id == usage_entry.id:
                start, base = i + 1, valid_usage_tokens(usage_entry) or 0
                break
    return base + sum(estimate_entry_tokens(transcript.entry(it.entry_id), rules)
                      for it in items[start:] if it.entry_id in transcript.index)
