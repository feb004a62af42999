"""OpenClaw's cut and numbers, as openclaw 2026.9.6 decides them (rule "openclaw-2026.9").

Read from the package's bundled agent-core (``dist/compaction-CAzwgOuQ.mjs``, source
``packages/agent-core/src/harness/compaction/compaction.ts``: ``findCutPoint``,
``findTurnStartIndex``, ``prepareCompaction``, ``estimateContextTokens``,
``calculateContextTokens``), its session projection (``dist/session-D9cHHQGH.mjs``,
``harness/session/session.ts``: ``buildSessionContext``, ``projectSessionEntryMessage``) and
the runtime (``dist/resource-loader-v8341X6T.mjs``: ``preflightManualSessionCompaction``,
``AgentSession.checkCompaction``). In our words:

* **Nothing to do** when the path ends with a ``reset`` or a compaction its safeguard hook
  wrote (``fromHook``). A compaction written by anything else does not stop it.
* **Region.** After a compaction, it starts at that compaction's ``firstKeptEntryId`` (when
  found on the path), so what the previous compaction kept is summarized again now; the
  compaction row itself is inside the region but is neither counted nor a cut. After a
  ``reset``, the region is what follows it, and the tool-pairing-safe user/assistant/
  toolResult rows the reset retained (``selectResetKeptEntries``) are summarized first, with
  their estimate added to keepRecentTokens.
* **keepRecentTokens is rescaled**: divided by reported usage / estimated context (the last
  usable usage of the replayed context over the sum of its estimates), the divisor clamped
  to [1, keepRecentTokens]. A session whose provider counts more tokens than the chars/4
  estimate keeps proportionally fewer estimated tokens.
* **Walk.** Cut candidates are the rows that project to a user, assistant, bashExecution,
  custom (not a runtime-context carrier), branchSummary or compactionSummary message (an
  excluded bash run projects to nothing). From the newest row back, every projected message
  counts, custom_message and branch_summary rows too; a candidate row moves the cut to it,
  and the walk stops once the sum reaches the (rescaled) keep. So the cut is the nearest
  candidate at or after the stopping row, and when the walk stops on a trailing tool result
  it is the last candidate before it; a walk that never gets there cuts at the first
  candidate. No tool-frame snapping in this version.
* **Metadata.** The cut moves back over rows that project to no message, stopping at a
  ``message`` row (excluded ones too), a compaction or a reset.
* **Split turn.** A cut row that starts a turn (user, bashExecution, custom, branchSummary,
  compactionSummary) is clean; otherwise (an assistant, or a metadata row the cut moved back
  onto) the turn start is searched back from the cut row; found means split.
* **Prepared only** when something would be summarized (history, reset prelude or turn
  prefix).
* **Manual** ``/compact`` (``preflightManualSessionCompaction``): prepare with the settings;
  if nothing would be summarized, prepare again with keepRecentTokens 0 (the cut then lands
  on the newest candidate). The keep comes from ``agents.defaults.compaction.keepRecentTokens``
  or the default 20,000; this version writes no hard boundary (``firstKeptEntryId`` is
  always a real kept row).
* **tokensBefore** is ``estimateContextTokens`` over the whole replayed context (previous
  summary, what it kept, what came after): the last assistant that is neither aborted nor
  errored and whose usage comes to more than 0 (``contextUsage.totalTokens`` when its state
  is "available", else ``totalTokens || sum of parts``) plus the estimates after it; a ``cli``
  assistant without ``contextUsage`` ends the search (then all is estimated).
* **Threshold check** before the next prompt: as pi's, but the latest compaction only counts
  when no reset follows it, and an errored last assistant is always replaced by the context
  estimate.

Automatic compaction in this version also passes a foreground request budget (system prompt,
tool schemas, the pending prompt) that changes the estimator and caps the kept tail; none of
that is in the transcript, so the rule reproduces ``prepareCompaction`` without it, which is
what manual ``/compact`` and the gateway's ``sessions.compact`` run. Not modelled either:
``contextUsage`` in state "unavailable" (the loader keeps only available ones), runtime-
context carriers (the loader keeps no ``details`` of custom_message rows: they count as plain
custom messages), synthetic missing tool results in the reset pairing.

Pure: indices are into the ``path`` given, estimates are OpenClaw estimates aligned with it.
"""

from __future__ import annotations

from collections.abc import Sequence

from sessionlens.engine.agents.pi.rule_0_58 import older_than
from sessionlens.engine.model import Entry, Usage
from sessionlens.engine.plan.cutpoints import CutPoint, Preparation, describe_entry
from sessionlens.engine.plan.tool_pairing import reset_kept_indices

__all__ = [
    "openclaw_context_entries", "openclaw_estimate_context", "openclaw_find_cut_point",
    "openclaw_is_cut_point", "openclaw_is_turn_start", "openclaw_prepare",
    "openclaw_threshold_tokens", "openclaw_usage_tokens", "projected_role",
]

_TURN_START_ROLES = frozenset({"user", "bashExecution", "custom", "branchSummary",
                               "compactionSummary"})


def projected_role(entry: Entry) -> str | None:
    """Role of the message a non-compaction row projects to (``getMessageFromEntryForCompaction``)."""
    if entry.type == "message":
        msg = entry.message
        if msg is None or msg.exclude_from_context:
            return None
        return msg.role
    if entry.type == "custom_message":
        return "custom"
    if entry.type == "branch_summary":
        return "branchSummary"
    return None


def openclaw_is_turn_start(entry: Entry) -> bool:
    return projected_role(entry) in _TURN_START_ROLES


def openclaw_is_cut_point(entry: Entry) -> bool:
    role = projected_role(entry)
    return role == "assistant" or role in _TURN_START_ROLES


def openclaw_find_cut_point(path: Sequence[Entry], start: int, end: int,
                            keep_recent_tokens: float, estimates: Sequence[int]) -> CutPoint:
    """OpenClaw ``findCutPoint`` over ``path[start:end]`` without a retention budget."""
    cut = next((i for i in range(end - 1, start - 1, -1) if openclaw_is_cut_point(path[i])), None)
    if cut is None:
        return CutPoint(start, None, False, "the region has no valid cut point; nothing is cut")
    reason = f"the region holds less than keepRecentTokens {keep_recent_tokens:,.0f}"
    total = 0
    for i in range(end - 1, start - 1, -1):
        if projected_role(path[i]) is None:
            continue
        if openclaw_is_cut_point(path[i]):
            cut = i
        total += estimates[i]
        if total >= keep_recent_tokens:
            reason = (f"kept tail reaches keepRecentTokens {keep_recent_tokens:,.0f} here"
                      if cut == i else
                      f"keepRecentTokens {keep_recent_tokens:,.0f} was reached at "
                      f"{describe_entry(path[i])}; cut at the nearest valid cut point after it"
                      if cut > i else
                      f"keepRecentTokens {keep_recent_tokens:,.0f} was reached at "
                      f"{describe_entry(path[i])}, after the last valid cut point")
            break
    moved = cut
    while cut > start:
        prev = path[cut - 1]
        if prev.type in ("compaction", "reset", "message") or projected_role(prev) is not None:
            break
        cut -= 1
    if moved != cut:
        n = moved - cut
        reason += (f"; moved back over {n} "
                   f"{'row that belongs' if n == 1 else 'rows that belong'} with it")
    if openclaw_is_turn_start(path[cut]):
        return CutPoint(cut, None, False, reason)
    turn = next((i for i in range(cut, start - 1, -1) if openclaw_is_turn_start(path[i])), None)
    if turn is None:
        return CutPoint(cut, None, False, reason)
    return CutPoint(cut, turn, True, reason + f"; the cut splits the turn opened by "
                    f"{describe_entry(path[turn])}, whose first part is summarized separately")


def openclaw_usage_tokens(usage: Usage) -> int:
    """OpenClaw ``calculateContextTokens``: available contextUsage, else pi's rule."""
    if usage.context_usage is not None:
        return usage.context_usage
    return usage.total_tokens or (usage.input + usage.output + usage.cache_read
                                  + usage.cache_write)


def openclaw_estimate_context(rows: Sequence[Entry],
                              estimates: Sequence[int]) -> tuple[int, int, int | None]:
    """OpenClaw ``estimateContextTokens``: (tokens, usage tokens, index of that usage)."""
    trailing = 0
    for i in range(len(rows) - 1, -1, -1):
        msg = rows[i].message
        if rows[i].type == "message" and msg is not None and msg.role == "assistant":
            usage = msg.usage
            if usage is not None and msg.api == "cli" and usage.context_usage is None:
                break  # an unavailable-context barrier: estimate everything
            if (usage is not None and msg.stop_reason not in ("aborted", "error")
                    and openclaw_usage_tokens(usage) > 0):
                used = openclaw_usage_tokens(usage)
                return used + trailing, used, i
        trailing += estimates[i]
    return sum(estimates), 0, None


def _boundary(path: Sequence[Entry]) -> int | None:
    return next((i for i in range(len(path) - 1, -1, -1)
                 if path[i].type in ("compaction", "reset")), None)


def _first_kept(path: Sequence[Entry], boundary: int) -> int:
    wanted = path[boundary].first_kept_entry_id
    return next((i for i, e in enumerate(path) if e.id == wanted), -1)


def openclaw_context_entries(path: Sequence[Entry]) -> list[int]:
    """OpenClaw ``buildSessionContext``: indices of the rows the model sees, in order."""
    def shown(i: int) -> bool:
        e = path[i]
        if e.type == "message":
            return e.message is not None and not e.message.exclude_from_context
        return e.type == "custom_message" or (e.type == "branch_summary" and bool(e.summary))

    boundary = _boundary(path)
    if boundary is None:
        return [i for i in range(len(path)) if shown(i)]
    first = _first_kept(path, boundary)
    first = first if 0 <= first < boundary else boundary
    if path[boundary].type == "reset":
        out = reset_kept_indices(path, first, boundary)
    else:
        out = [boundary] + [i for i in range(first, boundary) if shown(i)]
    return out + [i for i in range(boundary + 1, len(path)) if shown(i)]


def openclaw_threshold_tokens(path: Sequence[Entry], estimates: Sequence[int]) -> int | None:
    """The context size OpenClaw's threshold check compares before the next prompt, or None
    when it would not check."""
    rows = openclaw_context_entries(path)
    last = next((i for i in reversed(rows) if path[i].role == "assistant"), None)
    if last is None:
        return None
    boundary = _boundary(path)
    comp = path[boundary] if boundary is not None and path[boundary].type == "compaction" else None
    if older_than(path[last], comp):
        return None
    msg = path[last].message
    assert msg is not None
    if msg.stop_reason == "error":
        tokens, _, used = openclaw_estimate_context([path[i] for i in rows],
                                                    [estimates[i] for i in rows])
        return tokens if used is not None else None
    return openclaw_usage_tokens(msg.usage) if msg.usage is not None else None


def openclaw_prepare(path: Sequence[Entry], keep_recent_tokens: int, estimates: Sequence[int],
                     *, manual: bool = False) -> Preparation:
    """OpenClaw ``prepareCompaction`` (and, with ``manual``, its ``/compact`` preflight)."""
    end = len(path)
    boundary = _boundary(path)
    rows = openclaw_context_entries(path)
    context = [path[i] for i in rows]
    context_est = [estimates[i] for i in rows]
    tokens_before, usage_tokens, _ = openclaw_estimate_context(context, context_est)
    threshold = openclaw_threshold_tokens(path, estimates)
    last = path[-1] if path else None
    if last is None or last.type == "reset" or (last.type == "compaction" and last.from_hook):
        why = ("Already compacted: the last entry on the active path is a compaction "
               "(written by OpenClaw's safeguard)" if last is not None and last.type == "compaction"
               else "Nothing to compact: the last entry is a reset" if last is not None
               else "Nothing to compact: the active path is empty")
        return Preparation(end, boundary, (), None, tokens_before, threshold,
                           float(keep_recent_tokens), why, refused=True)
    start = boundary + 1 if boundary is not None else 0
    prelude: tuple[int, ...] = ()
    if boundary is not None:
        first = _first_kept(path, boundary)
        if path[boundary].type == "reset":
            prelude = tuple(reset_kept_indices(path, first, boundary)) if first >= 0 else ()
        elif first >= 0:
            start = first
    total = sum(context_est)
    scale = min(max(1.0, keep_recent_tokens), max(1.0, usage_tokens / total)) if total > 0 else 1.0
    extra = sum(estimates[i] for i in prelude)
    tries = (keep_recent_tokens, 0) if manual and keep_recent_tokens else (keep_recent_tokens,)
    why = "the region has no row to keep"
    for keep in tries:
        scaled = keep / scale + extra
        cut = openclaw_find_cut_point(path, start, end, scaled, estimates)
        why = cut.reason
        if cut.first_kept_index >= end:  # OpenClaw: "First kept entry has no UUID"
            break
        summarized = bool(prelude) or any(projected_role(path[i]) is not None
                                          for i in range(start, cut.first_kept_index))
        if summarized:
            if keep != keep_recent_tokens:
                cut = CutPoint(cut.first_kept_index, cut.turn_start_index, cut.is_split_turn,
                               f"manual /compact: keepRecentTokens {keep_recent_tokens:,} left "
                               f"nothing to summarize, so OpenClaw cut again with 0; {cut.reason}")
            elif scale > 1:
                cut = CutPoint(cut.first_kept_index, cut.turn_start_index, cut.is_split_turn,
                               f"{cut.reason} (OpenClaw divided keepRecentTokens "
                               f"{keep_recent_tokens:,} by reported/estimated {scale:.2f})")
            return Preparation(start, boundary, prelude, cut, tokens_before, threshold, scaled,
                               None)
    if scale > 1:  # the number in the reason is the scaled one: say where it came from
        why = (f"{why} (OpenClaw divided keepRecentTokens {keep_recent_tokens:,} by "
               f"reported/estimated {scale:.2f})")
    return Preparation(start, boundary, prelude, None, tokens_before, threshold,
                       keep_recent_tokens / scale + extra,
                       f"Nothing to compact: the whole region is kept ({why})")
