"""Where a compaction may cut, and where it does (transcript-format.md §3.3): shared parts.

A cut names the first entry that stays verbatim; everything before it in the region goes
into the summary. Each agent's own rule lives in its module (``agents.pi.rule_0_58`` for "pi-0.58",
``agents.openclaw.rule_2026_9`` for "openclaw-2026.9"); the registry and the per-file default are in
``rules``. This module holds what they share (``CutPoint``, ``Preparation``), the user's own
cut (``snap_user_cut``), the hard boundary, and two rules that are not a current agent's:

* ``"tool-frames"``: SessionLens's conservative rule. pi's walk back over estimated message
  sizes, but a walk that stops inside a tool call/result frame moves the cut back to the
  frame's start, so the kept tail holds at least keepRecentTokens and no kept result loses
  its call (OpenClaw's source at commit 05e964ad snaps cuts to tool frames like this; the
  published 2026.9.6 package does not). Region after the last compaction or reset.
* ``"pi-2025.12"``: pi as of December 2025 (the era of sample 01, whose two recorded cuts it
  reproduces): only user messages start the kept part, and the kept size is measured from
  the provider's reported usage, as the difference between the newest usage and the usage
  just before the user message.

Every function takes the whole path plus ``start``/``end`` bounds, like the agents, so
indices stay the path indices the caller already has. Pure: no I/O.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass

from sessionlens.engine.errors import PlanError
from sessionlens.engine.model import Entry

from .rules import CUT_RULES

__all__ = [
    "CUT_RULES", "CutPoint", "Preparation", "describe_entry", "find_turn_start_index",
    "find_valid_cut_points", "frame_safe_positions", "frames_cut_point", "hard_boundary_cut",
    "carried_tail_indices", "is_cut_entry", "is_turn_start", "region_bounds", "snap_user_cut",
    "usage_context", "user_turns_cut_point",
]

#: Message roles pi accepts as the first kept message (``findValidCutPoints``).
_CUT_ROLES = frozenset({"user", "assistant", "bashExecution", "custom",
                        "branchSummary", "compactionSummary"})
#: Entries that replay as user-role messages and so may start the kept part or a turn.
_USER_LIKE_TYPES = frozenset({"branch_summary", "custom_message"})
#: Entries the backwards snap over metadata never crosses.
_SNAP_STOP_TYPES = frozenset({"message", "compaction", "reset"})
_BOUNDARY_TYPES = frozenset({"compaction", "reset"})


@dataclass(frozen=True, slots=True)
class CutPoint:
    """Where the kept part starts, as an index into the path given to the finder.

    ``first_kept_index == end`` means nothing is kept (a hard manual boundary).
    ``turn_start_index`` is set only when the cut splits a turn.
    """

    first_kept_index: int
    turn_start_index: int | None
    is_split_turn: bool
    reason: str
    hard_boundary: bool = False


@dataclass(frozen=True, slots=True)
class Preparation:
    """What one rule decides for a path before any summary exists (an agent's
    ``prepareCompaction``), as path indices.

    ``region_start`` is where the summarized history starts (OpenClaw: the previous
    compaction's first kept row); ``prelude`` are rows before the region that are summarized
    first (OpenClaw: what a reset retained). ``cut`` is None when the agent would not compact,
    and then ``nothing`` says why in words.
    """

    region_start: int
    boundary: int | None
    prelude: tuple[int, ...]
    cut: CutPoint | None
    tokens_before: int
    #: The context size the agent's threshold check compares before the next prompt, or None
    #: when it would not check (no assistant yet, or only one older than the last compaction).
    threshold_tokens: int | None
    #: keepRecentTokens as the rule applied it (OpenClaw rescales it).
    keep_used: float
    nothing: str | None
    #: True when the agent would not compact this path at all, whatever the cut (its last
    #: entry is already a compaction, or a reset): a user's cut or a hard boundary is refused too.
    refused: bool = False
    #: Rows in [region_start, end) that are not part of the agent's region and never summary
    #: input (pi 1.6: stored system messages the previous compaction's kept tail held).
    outside: tuple[int, ...] = ()


def is_cut_entry(entry: Entry) -> bool:
    """True when pi allows the kept part to start at this entry (never a tool result)."""
    if entry.type in _USER_LIKE_TYPES:
        return True
    return entry.type == "message" and entry.role in _CUT_ROLES


def is_turn_start(entry: Entry) -> bool:
    """True for entries that open a turn (pi ``findTurnStartIndex``)."""
    if entry.type in _USER_LIKE_TYPES:
        return True
    return entry.type == "message" and entry.role in ("user", "bashExecution")


def region_bounds(path: Sequence[Entry]) -> tuple[int, int | None]:
    """(first index of the region, index of the boundary before it or None).

    The boundary is the last compaction or reset on the path; the region is what follows.
    """
    for i in range(len(path) - 1, -1, -1):
        if path[i].type in _BOUNDARY_TYPES:
            return i + 1, i
    return 0, None


def carried_tail_indices(path: Sequence[Entry], boundary: int | None) -> list[int]:
    """Indices of the tail the boundary ``path[boundary]`` (a compaction or reset) kept
    verbatim: from its ``firstKeptEntryId``, when that is found before it, up to it.

    Replay keeps them in the context until the next compaction, which takes them out: pi
    0.58 starts that compaction's region after the boundary and never summarizes them;
    OpenClaw 2026.9 starts it at the boundary's ``firstKeptEntryId``."""
    if boundary is None:
        return []
    wanted = path[boundary].first_kept_entry_id
    # walked back from the boundary: the tail lies just before it, the root may be far
    start = next((i for i in range(boundary - 1, -1, -1) if path[i].id == wanted), None)
    if wanted is None or start is None:
        return []
    return [i for i in range(start, boundary) if path[i].type not in _BOUNDARY_TYPES]


def frame_safe_positions(entries: Sequence[Entry], start: int, end: int) -> list[bool]:
    """For each index in [start, end): may a cut go just before it without splitting a frame?

    A frame opens at an assistant message with tool calls and closes when every call has a
    result. Aborted or errored assistants open nothing; a newer assistant message replaces
    the pending set (as OpenClaw's grouping does), and a result without an id closes it.
    Entries between a call and its last result (a displaced user turn, metadata) are inside.
    """
    safe = [True] * (end - start)
    pending: set[str] = set()
    for i in range(start, end):
        safe[i - start] = not pending
        entry = entries[i]
        msg = entry.message
        if entry.type != "message" or msg is None:
            continue
        if msg.role == "assistant":
            if msg.stop_reason in ("aborted", "error"):
                pending = set()
            else:
                pending = {c.id for c in msg.tool_calls}
        elif msg.role == "toolResult" and pending:
            if msg.tool_call_id:
                pending.discard(msg.tool_call_id)
            else:
                pending = set()
    return safe


def find_valid_cut_points(entries: Sequence[Entry], start: int, end: int) -> list[int]:
    """Indices in [start, end) where the kept part may start: pi's cut entries, minus any
    position inside a tool call/result frame."""
    safe = frame_safe_positions(entries, start, end)
    return [i for i in range(start, end) if safe[i - start] and is_cut_entry(entries[i])]


def find_turn_start_index(entries: Sequence[Entry], index: int, start: int) -> int | None:
    """The entry that opened the turn containing ``index`` (searching back to ``start``)."""
    for i in range(index, start - 1, -1):
        if is_turn_start(entries[i]):
            return i
    return None


def _snap_back_over_metadata(entries: Sequence[Entry], cut: int, start: int) -> int:
    """Include settings/label/custom rows just before the cut (they belong with what follows)."""
    while cut > start and entries[cut - 1].type not in _SNAP_STOP_TYPES:
        cut -= 1
    return cut


def describe_entry(entry: Entry) -> str:
    """"user message 0a1b2c3d", "model_change entry 0a1b2c3d"."""
    if entry.type == "message":
        return f"{entry.role} message {entry.id}"
    return f"{entry.type} entry {entry.id}"


def _finish(entries: Sequence[Entry], start: int, end: int, cut: int, reason: str) -> CutPoint:
    """Split-turn detection on the first message-like entry at or after the cut."""
    first = cut
    while first < end and entries[first].type not in ("message", *_USER_LIKE_TYPES):
        first += 1
    if first >= end or (entries[first].type == "message" and entries[first].role == "user"):
        return CutPoint(cut, None, False, reason)
    turn = find_turn_start_index(entries, first, start)
    if turn is None or turn == first:
        return CutPoint(cut, None, False, reason)
    why = (f"; the cut splits the turn opened by {describe_entry(entries[turn])}, whose first part "
           "is summarized separately")
    return CutPoint(cut, turn, True, reason + why)


def usage_context(entry: Entry) -> int | None:
    """Context tokens an assistant entry reported, if usable (not aborted/errored, not 0)."""
    msg = entry.message
    if (entry.type == "message" and msg is not None and msg.role == "assistant"
            and msg.usage is not None and msg.stop_reason not in ("aborted", "error")
            and msg.usage.context_tokens > 0):
        return msg.usage.context_tokens
    return None


def _cut_by_user_turns(entries: Sequence[Entry], start: int, end: int, keep: float,
                       estimates: Sequence[int], valid: list[int]) -> tuple[int, str]:
    """pi (Dec 2025): newest user turn whose reported-usage delta reaches ``keep``."""
    valid_set = set(valid)
    last_usage: list[int | None] = []  # usage in force just before each index
    current: int | None = None
    for i in range(start, end):
        last_usage.append(current)
        u = usage_context(entries[i])
        if u is not None:
            current = u
    newest = current
    tail_estimate = 0
    for i in range(end - 1, start - 1, -1):
        entry = entries[i]
        if entry.type == "message":
            tail_estimate += estimates[i]
        if not (entry.type == "message" and entry.role == "user" and i in valid_set):
            continue
        before = last_usage[i - start]
        kept = newest - (before or 0) if newest is not None else tail_estimate
        if kept >= keep:
            source = "reported usage" if newest is not None else "estimated size"
            return i, (f"newest user turn whose kept tail ({kept} tokens by {source}) reaches "
                       f"keepRecentTokens {keep:,.0f}")
    return start, f"no user turn leaves {keep:,.0f} tokens behind it; everything is kept"


def _snapped(entries: Sequence[Entry], start: int, end: int, cut: int, reason: str) -> CutPoint:
    snapped = _snap_back_over_metadata(entries, cut, start)
    if snapped != cut:
        n = cut - snapped
        what = "entry that belongs" if n == 1 else "entries that belong"
        reason += f"; moved back over {n} metadata {what} with it"
    return _finish(entries, start, end, snapped, reason)


def frames_cut_point(entries: Sequence[Entry], start: int, end: int, keep_recent_tokens: float,
                     estimates: Sequence[int]) -> CutPoint:
    """The "tool-frames" rule over [start, end): pi's walk over ``message`` rows, snapped
    back to the start of a tool frame it stops in (see the module docstring)."""
    valid = find_valid_cut_points(entries, start, end)
    if not valid:
        return CutPoint(start, None, False, "the region has no valid cut point; nothing is cut")
    cut, reason = valid[0], f"the region holds less than keepRecentTokens {keep_recent_tokens:,.0f}"
    total = 0
    for i in range(end - 1, start - 1, -1):
        if entries[i].type != "message":
            continue
        total += estimates[i]
        if total < keep_recent_tokens:
            continue
        at = bisect_left(valid, i)
        if at < len(valid) and valid[at] == i:
            cut = i
            reason = f"kept tail reaches keepRecentTokens {keep_recent_tokens:,.0f} here"
        elif at > 0:
            cut = valid[at - 1]
            reason = (f"keepRecentTokens {keep_recent_tokens:,.0f} was reached at "
                      f"{describe_entry(entries[i])}; moved back to the start of its tool frame")
        elif at < len(valid):
            cut = valid[at]
            reason = (f"keepRecentTokens {keep_recent_tokens:,.0f} was reached at "
                      f"{describe_entry(entries[i])}; moved forward to the next valid cut point")
        break
    return _snapped(entries, start, end, cut, reason)


def user_turns_cut_point(entries: Sequence[Entry], start: int, end: int,
                         keep_recent_tokens: float, estimates: Sequence[int]) -> CutPoint:
    """The "pi-2025.12" rule over [start, end): the newest user turn whose reported-usage
    delta reaches keepRecentTokens (see the module docstring)."""
    valid = find_valid_cut_points(entries, start, end)
    if not valid:
        return CutPoint(start, None, False, "the region has no valid cut point; nothing is cut")
    cut, reason = _cut_by_user_turns(entries, start, end, keep_recent_tokens, estimates, valid)
    return _snapped(entries, start, end, cut, reason)


def hard_boundary_cut(end: int) -> CutPoint:
    """A manual compaction with no keepRecentTokens: nothing before it is kept."""
    return CutPoint(end, None, False, "manual compaction without keepRecentTokens: a hard "
                    "boundary, nothing before the compaction is kept", hard_boundary=True)


def snap_user_cut(entries: Sequence[Entry], start: int, end: int, requested: int) -> CutPoint:
    """A cut the user picked, moved to the nearest valid cut point (earlier on a tie).

    ``requested`` must lie in [start, end); the reason says why it moved, if it did.
    """
    if not start <= requested < end:
        raise PlanError(f"cut index {requested} is outside the compactable region [{start}, {end})")
    valid = find_valid_cut_points(entries, start, end)
    if not valid:
        raise PlanError("the region has no valid cut point")
    chosen = entries[requested]
    at = bisect_left(valid, requested)
    if at < len(valid) and valid[at] == requested:
        return _finish(entries, start, end, requested, f"cut where chosen, at {describe_entry(chosen)}")
    before = valid[at - 1] if at > 0 else None
    after = valid[at] if at < len(valid) else None
    if before is None or (after is not None and after - requested < requested - before):
        target, direction = after, "later"
    else:
        target, direction = before, "earlier"
    assert target is not None
    if chosen.type == "message" and chosen.role == "toolResult":
        why = "a tool result must stay with the call that produced it"
    elif not is_cut_entry(chosen):
        why = "it is not a message the kept part can start with"
    else:
        why = "it lies between a tool call and its results"
    moved = abs(target - requested)
    reason = (f"{describe_entry(chosen)} cannot start the kept part ({why}); moved "
              f"{moved} {'entry' if moved == 1 else 'entries'} {direction} to "
              f"{describe_entry(entries[target])}, the nearest valid cut point")
    return _finish(entries, start, end, target, reason)
