"""pi's cut and numbers, as @mariozechner/pi-coding-agent 0.58.3 decides them (rule "pi-0.58").

Read from the package's ``dist/core/compaction/compaction.js`` (``findValidCutPoints``,
``findCutPoint``, ``findTurnStartIndex``, ``prepareCompaction``, ``estimateContextTokens``,
``calculateContextTokens``), ``dist/core/session-manager.js`` (``buildSessionContext``,
``getLatestCompactionEntry``) and ``dist/core/agent-session.js`` (``_checkCompaction``). In
our words:

* **Region.** Everything after the last ``compaction`` on the path. pi knows no ``reset``:
  a reset row is metadata to it. A path whose last entry is a compaction is "Already
  compacted".
* **Cut candidates.** ``message`` rows whose role is user, assistant, bashExecution, custom,
  branchSummary or compactionSummary, plus ``branch_summary`` and ``custom_message`` rows.
  Never a toolResult, and nothing else: pi does not look at tool frames, so a user message
  displaced between a call and its result, or a call that never got a result, can end up
  on either side of the cut.
* **Walk.** From the newest entry back, add the estimate of each ``message`` row (only those:
  custom_message and branch_summary rows are not counted). At the first row where the sum
  reaches keepRecentTokens, cut at the first candidate at or after it; when there is none
  (the walk stopped on a trailing tool result) or the sum never gets there, the cut is the
  region's first candidate, which keeps everything.
* **Metadata.** The cut then moves back over rows that are neither a ``message`` nor a
  ``compaction`` (settings, labels, custom rows, and also custom_message and branch_summary
  rows, which pi's loop does not stop at).
* **Split turn.** Decided by the row the cut lands on: a user message is a clean cut;
  anything else (an assistant, a bash run, a custom message, a metadata row the cut moved
  back onto) opens a search back for the turn's start (user, bashExecution,
  custom_message or branch_summary, the cut row itself included). Found means split, even
  when the start is the cut row itself (then the turn prefix is empty).
* **tokensBefore.** ``estimateContextTokens`` over the previous compaction (as its summary)
  and every row after it: the last assistant that is not aborted or errored and has a
  usage object, even one of all zeros, gives ``totalTokens || input+output+cacheRead+
  cacheWrite`` (OpenClaw's ``contextUsage`` is not read), plus the estimates after it; with
  no such assistant, the sum of estimates. Rows kept before the previous compaction are
  not counted (pi starts at the compaction).
* **Threshold check** (before the next prompt): the last assistant of the replayed context;
  none, or one older than the latest compaction, means no check. An errored one is replaced
  by the context estimate (no usable usage, or usage older than the compaction: no check);
  otherwise its usage. Overflow recovery is a separate trigger and not modelled here.

Pure: indices are into the ``path`` given, estimates are pi estimates aligned with it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sessionlens.engine.model import Entry, Usage
from sessionlens.engine.plan.cutpoints import (
    CutPoint,
    Preparation,
    describe_entry,
    is_cut_entry,
    is_turn_start,
)

__all__ = [
    "pi_context_entries", "pi_estimate_context", "pi_find_cut_point", "pi_is_cut_point",
    "pi_is_turn_start", "pi_prepare", "pi_preparation", "pi_region", "pi_threshold_tokens",
    "pi_usage_tokens", "older_than",
]

#: Rows pi turns into a message (``getMessageFromEntry``).
_MESSAGE_ROWS = frozenset({"message", "custom_message", "branch_summary", "compaction"})
#: pi ``findValidCutPoints`` and ``findTurnStartIndex`` are the shared definitions.
pi_is_cut_point = is_cut_entry
pi_is_turn_start = is_turn_start


def pi_region(path: Sequence[Entry]) -> tuple[int, int | None]:
    """(first index after the last compaction, that compaction's index or None)."""
    for i in range(len(path) - 1, -1, -1):
        if path[i].type == "compaction":
            return i + 1, i
    return 0, None


def pi_find_cut_point(path: Sequence[Entry], start: int, end: int, keep_recent_tokens: float,
                      estimates: Sequence[int]) -> CutPoint:
    """pi ``findCutPoint`` over ``path[start:end]`` (see the module docstring)."""
    candidates = [i for i in range(start, end) if pi_is_cut_point(path[i])]
    if not candidates:
        return CutPoint(start, None, False, "the region has no valid cut point; nothing is cut")
    cut, reason = candidates[0], (f"the region holds less than keepRecentTokens "
                                  f"{keep_recent_tokens:,.0f}; everything is kept")
    total = 0
    for i in range(end - 1, start - 1, -1):
        if path[i].type != "message":
            continue
        total += estimates[i]
        if total >= keep_recent_tokens:
            later = next((c for c in candidates if c >= i), None)
            if later is None:
                reason = (f"keepRecentTokens {keep_recent_tokens:,.0f} was reached at "
                          f"{describe_entry(path[i])}, after the last valid cut point; pi "
                          "then keeps the whole region")
            else:
                cut = later
                reason = (f"kept tail reaches keepRecentTokens {keep_recent_tokens:,.0f} here"
                          if later == i else
                          f"keepRecentTokens {keep_recent_tokens:,.0f} was reached at "
                          f"{describe_entry(path[i])}; moved forward to the next valid cut point")
            break
    moved = cut
    while cut > start and path[cut - 1].type not in ("message", "compaction"):
        cut -= 1
    if moved != cut:
        n = moved - cut
        reason += (f"; moved back over {n} "
                   f"{'row that belongs' if n == 1 else 'rows that belong'} with it")
    at = path[cut]
    if at.type == "message" and at.role == "user":
        return CutPoint(cut, None, False, reason)
    turn = next((i for i in range(cut, start - 1, -1) if pi_is_turn_start(path[i])), None)
    if turn is None:
        return CutPoint(cut, None, False, reason)
    why = ("; pi counts this as a split turn" + (
        " with an empty prefix, because the cut row itself starts the turn" if turn == cut else
        f": the turn opened by {describe_entry(path[turn])} is summarized separately"))
    return CutPoint(cut, turn, True, reason + why)


def pi_usage_tokens(usage: Usage) -> int:
    """pi ``calculateContextTokens``: totalTokens, else the sum of the parts."""
    return usage.total_tokens or (usage.input + usage.output + usage.cache_read
                                  + usage.cache_write)


def _usage_of(entry: Entry) -> Usage | None:
    """pi ``getAssistantUsage``: any usage of an assistant that was not aborted or errored."""
    msg = entry.message
    if (entry.type == "message" and msg is not None and msg.role == "assistant"
            and msg.stop_reason not in ("aborted", "error")):
        return msg.usage
    return None


def pi_estimate_context(rows: Sequence[Entry], estimates: Sequence[int]) -> tuple[int, int | None]:
    """pi ``estimateContextTokens`` over message rows: (tokens, index of the usage used)."""
    trailing = 0
    for i in range(len(rows) - 1, -1, -1):
        usage = _usage_of(rows[i])
        if usage is not None:
            return pi_usage_tokens(usage) + trailing, i
        trailing += estimates[i]
    return trailing, None


def pi_context_entries(path: Sequence[Entry]) -> list[int]:
    """pi ``buildSessionContext``: indices of the rows the model sees, in order.

    The last compaction comes first (as its summary), then the rows from its
    ``firstKeptEntryId`` up to it, then everything after it; every ``message`` row counts
    (pi drops excluded bash runs only when it converts for the model).
    """
    _, comp = pi_region(path)

    def shown(i: int) -> bool:
        e = path[i]
        return e.type in ("message", "custom_message") or (
            e.type == "branch_summary" and bool(e.summary))

    if comp is None:
        return [i for i in range(len(path)) if shown(i)]
    out = [comp]
    first = next((i for i in range(comp) if path[i].id == path[comp].first_kept_entry_id), comp)
    out += [i for i in range(first, comp) if shown(i)]
    out += [i for i in range(comp + 1, len(path)) if shown(i)]
    return out


def _ms(timestamp: str | None) -> int | None:
    if not timestamp:
        return None
    try:
        return int(datetime.fromisoformat(timestamp.replace("Z", "+00:00")).timestamp() * 1000)
    except ValueError:
        return None


def older_than(entry: Entry, comp: Entry | None) -> bool:
    """``message.timestamp <= Date(compaction.timestamp)`` (false when either is unknown)."""
    if comp is None or entry.message is None or entry.message.timestamp_ms is None:
        return False
    limit = _ms(comp.timestamp)
    return limit is not None and entry.message.timestamp_ms <= limit


def pi_threshold_tokens(path: Sequence[Entry], estimates: Sequence[int]) -> int | None:
    """The context size pi's threshold check compares before the next prompt, or None when
    pi would not check (see the module docstring)."""
    rows = pi_context_entries(path)
    last = next((i for i in reversed(rows) if path[i].role == "assistant"), None)
    if last is None:
        return None
    _, comp_index = pi_region(path)
    comp = path[comp_index] if comp_index is not None else None
    assistant = path[last]
    if older_than(assistant, comp):
        return None
    msg = assistant.message
    assert msg is not None
    if msg.stop_reason == "error":
        tokens, used = pi_estimate_context([path[i] for i in rows], [estimates[i] for i in rows])
        if used is None or older_than(path[rows[used]], comp):
            return None
        return tokens
    return pi_usage_tokens(msg.usage) if msg.usage is not None else None


def pi_prepare(path: Sequence[Entry], keep_recent_tokens: int,
               estimates: Sequence[int]) -> Preparation:
    """pi ``prepareCompaction`` (its manual ``/compact`` runs the same): region, cut, numbers."""
    end = len(path)
    start, comp = pi_region(path)
    from_index = comp if comp is not None else 0
    rows = [i for i in range(from_index, end) if path[i].type in _MESSAGE_ROWS]
    return pi_preparation(path, start, comp, rows, keep_recent_tokens, estimates)


def pi_preparation(path: Sequence[Entry], start: int, comp: int | None, rows: Sequence[int],
                   keep_recent_tokens: int, estimates: Sequence[int]) -> Preparation:
    """The rest of ``prepareCompaction`` once a release has chosen its region (``start``,
    the previous compaction ``comp``) and the ``rows`` tokensBefore counts: the threshold
    check, the refusal after a compaction, the cut (pi 0.58.3 to 0.73.1 alike)."""
    end = len(path)
    tokens_before, _ = pi_estimate_context([path[i] for i in rows], [estimates[i] for i in rows])
    threshold = pi_threshold_tokens(path, estimates)
    if end and path[-1].type == "compaction":
        return Preparation(start, comp, (), None, tokens_before, threshold, keep_recent_tokens,
                           "Already compacted: the last entry on the active path is a compaction",
                           refused=True)
    cut = pi_find_cut_point(path, start, end, keep_recent_tokens, estimates)
    return Preparation(start, comp, (), cut, tokens_before, threshold, keep_recent_tokens, None)
