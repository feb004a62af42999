"""Whether a compaction can help at all: a session that cannot fit its window, and a plan
whose "after" is no smaller than its "before".

"Nothing to compact" is a normal answer, but not when the context is larger than the
window: then the agent cannot continue and no compaction under these settings will change
that (one 5 MB message is 1.25M tokens against a 128k window). And a plan that predicts
more tokens after than before saves nothing. Both are said, never left for the user to
work out. Pure.
"""

from __future__ import annotations

from sessionlens.engine.model import Transcript
from sessionlens.engine.tokens.context import context_estimate
from sessionlens.engine.tokens.estimate import estimate_tokens_from_chars, measure_entry

from .cutpoints import region_bounds

__all__ = ["cannot_fit", "not_smaller_note"]


def cannot_fit(transcript: Transcript, window: int) -> str | None:
    """Why the session's context cannot fit ``window`` tokens, or None when it fits."""
    total = context_estimate(transcript)
    if total <= window:
        return None
    path = transcript.path_entries()
    start, _ = region_bounds(path)
    sizes = [(estimate_tokens_from_chars(measure_entry(e)[1]), e.id) for e in path[start:]]
    biggest, entry_id = max(sizes, default=(0, ""))
    why = (f"entry {entry_id} alone is ~{biggest:,} tokens, more than the window"
           if biggest > window else "what must stay verbatim is larger than the window")
    return (f"the session cannot fit: its context is ~{total:,} tokens against a window of "
            f"{window:,}, and no compaction under these settings makes it fit ({why})")


def not_smaller_note(tokens_before: int, tokens_after: int, entries: int) -> str | None:
    """The sentence for a plan that saves nothing (after >= before), else None."""
    if tokens_after < tokens_before:
        return None
    return (f"this compaction saves nothing: summarizing {entries:,} entries leaves ~"
            f"{tokens_after:,} tokens, not fewer than the {tokens_before:,} before")
