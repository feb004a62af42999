"""Claude Code's own compaction, as the 2.1.332 binary does it (rule "claude-code-2.1").

Found by running the binary against the scripted model (tests/agents/drivers/claude_code.py)
and reading the compaction request it sends and the records it writes; checked on every
compaction of the driver's sessions (tests/agents/test_claude_code_rule.py). In our words:

* **Region.** The whole conversation since the last boundary: the previous compaction's
  summary, the messages it kept verbatim (they are summarized again; only the newest round
  stays) and everything after. The compaction request is that conversation, sent as on any
  turn, with a last user message asking for ``<analysis>`` and ``<summary>`` ("CRITICAL:
  Respond with TEXT ONLY. Do NOT call any tools.", the focus text of ``/compact`` added);
  an automatic compaction before a new prompt leaves that prompt out of the request (it is
  kept). API error rows are not sent, there or on any turn.
* **Kept verbatim.** The newest API round: the rows of the last assistant response (rows
  sharing its ``message.id``) and everything after it (tool results, a prompt not yet
  answered). ``compact_boundary.compactMetadata.preservedMessages`` lists them; on resume
  they follow the summary message. With fewer than two rounds Claude Code does not compact.
  (Its code can keep one more round when the one before is small and ends on a prompt; no
  run of the driver showed that case, so it is not reproduced.)
* **Trigger.** Automatic when the context passes the window less a summary buffer of
  min(max output tokens, 20,000) (claude-opus-5-5: 1,000,000 - 20,000), lowered to that
  figure's ``CLAUDE_AUTOCOMPACT_PCT_OVERRIDE`` percent when set; the window itself follows
  ``autoCompactWindow`` / ``CLAUDE_CODE_AUTO_COMPACT_WINDOW`` / ``/autocompact`` (at least
  100k), clamped to the model's. ``compactMetadata.trigger`` records manual or auto.

Pure: indices are into the ``path`` given.
"""

from __future__ import annotations

from collections.abc import Sequence

from sessionlens.engine.model import Entry
from sessionlens.engine.plan.cutpoints import CutPoint, Preparation, usage_context

__all__ = ["SUMMARY_BUFFER_TOKENS", "claude_code_prepare", "claude_code_region",
           "claude_code_threshold"]

#: Claude Code keeps min(max output tokens, this) free for the summary.
SUMMARY_BUFFER_TOKENS = 20_000
#: The summary request's closing instruction (the start of Claude Code's summary prompt).
SUMMARY_PROMPT_START = "CRITICAL: Respond with TEXT ONLY. Do NOT call any tools."


def claude_code_threshold(window: int, max_output_tokens: int = 128_000,
                          pct_override: float | None = None) -> int:
    """Where Claude Code compacts by itself: the window less the summary buffer, or that
    figure's ``pct_override`` percent (``CLAUDE_AUTOCOMPACT_PCT_OVERRIDE``)."""
    base = window - min(max_output_tokens, SUMMARY_BUFFER_TOKENS)
    if pct_override is not None and 0 < pct_override <= 100:
        return int(base * pct_override / 100)
    return base


def claude_code_region(path: Sequence[Entry]) -> tuple[int, int | None]:
    """(where the summarized conversation starts, the last compaction's index or None): the
    first message the last compaction kept verbatim, else just after it."""
    for i in range(len(path) - 1, -1, -1):
        if path[i].type == "compaction":
            kept = path[i].first_kept_entry_id
            start = next((j for j in range(i) if path[j].id == kept), i + 1)
            return start, i
    return 0, None


def _is_assistant(entry: Entry) -> bool:
    return entry.type == "message" and entry.message is not None and (
        entry.message.role == "assistant")


def _round_start(path: Sequence[Entry], start: int, end: int) -> tuple[int | None, int]:
    """(index of the newest round's first row, how many rounds the region holds)."""
    rounds, last_id, newest = 0, object(), None
    seen_user = False
    for i in range(start, end):
        e = path[i]
        if _is_assistant(e):
            mid = e.extra.get("message_id") or e.id
            if mid != last_id:
                rounds += 1
                newest = i
            last_id = mid
        elif e.type in ("message", "compaction") and not seen_user and rounds == 0:
            seen_user = True
    return newest, rounds + (1 if seen_user else 0)


def claude_code_prepare(path: Sequence[Entry], estimates: Sequence[int]) -> Preparation:
    """What Claude Code 2.1.332 would summarize and keep if it compacted ``path`` now."""
    start, boundary = claude_code_region(path)
    end = len(path)
    tokens = _context_tokens(path, start, boundary, estimates)
    if boundary is not None and boundary == end - 1:
        return Preparation(start, boundary, (), None, tokens, None, 0,
                           "Nothing to compact: the conversation was just compacted",
                           refused=True)
    newest, rounds = _round_start(path, start, end)
    if newest is None or rounds < 2:
        return Preparation(start, boundary, (), None, tokens, tokens, 0,
                           "Not enough messages to compact (Claude Code needs two API rounds)")
    cut = CutPoint(newest, None, False,
                   "Claude Code keeps the newest API round verbatim (its last assistant "
                   "response and what follows it) and summarizes the rest")
    return Preparation(start, boundary, (), cut, tokens, tokens, 0, None)


def _context_tokens(path: Sequence[Entry], start: int, boundary: int | None,
                    estimates: Sequence[int]) -> int:
    """The last reported usage after the region start plus estimates of what follows it
    (the kept messages' usage counts as 0, as Claude Code zeroes it on resume)."""
    trailing = 0
    low = boundary + 1 if boundary is not None else start
    for i in range(len(path) - 1, low - 1, -1):
        usage = usage_context(path[i])
        if usage is not None:
            return usage + trailing
        if path[i].type in ("message", "compaction"):
            trailing += estimates[i]
    return trailing + sum(estimates[i] for i in range(start, low) if path[i].type == "message")
