"""pi's cut and numbers as @earendil-works/pi-coding-agent 1.6.0 decides them (rule "pi-1.6").

Read from the package's ``dist/core/compaction/compaction.js`` (``prepareCompaction``,
``findProjectedCutPoint``, ``estimateTokens``, ``estimateProjectedContextTokens``),
``dist/core/session-manager.js`` (``buildContextEntries``, ``buildSessionProjection``,
``projectContextEntry``, ``sessionEntryToContextMessages``) and ``dist/core/agent-session.js``
(``_checkCompaction``). pi 1.6 decides over the *projection* of the path, the rows its
model sees with their messages after context edits:

* **Projection.** The latest compaction first (its ``systemMessage``, then its summary),
  the rows from its ``firstKeptEntryId`` up to it (stored ``system`` messages left out),
  then every row after it; with no compaction, the whole path. The latest ``context_edit``
  of a row among those wins: a null replacement leaves the row with no message (a failed
  turn taken out), any other swaps the content of a user, assistant, tool-result or custom
  message. Older compactions inside the kept rows project to nothing.
* **Region.** The projected rows after the compaction (the previous kept tail is summarized
  again, as since 0.63.1); compaction rows and system messages are never summary input.
* **Cut.** Cut points are rows with a user, assistant, bash, custom or summary message
  (never a tool result, a hidden row, or a compaction). The walk back adds each row's
  estimate, skipping rows that estimate 0, and at keepRecentTokens cuts at the first cut
  point at or after that row, or, when trailing tool results alone exceed the budget, at
  the last cut point (0.73 kept everything then). A closed suffix of rows the projection
  hides, holding a hidden assistant attempt, moves the cut one row on. The cut then moves
  back over rows without messages (metadata, hidden rows) up to a compaction.
* **Split turn.** Any row with a user-like message (user, bash, custom, summaries) starts a
  turn; a cut on one is clean (0.58 called a cut on a bash run or custom message a split
  turn with an empty prefix), otherwise the turn start is searched back.
* **Refusal.** Nothing to summarize and no turn prefix: pi 1.6 does not compact at all.
* **Estimates.** 0.58's, plus images in user messages at 4,800 chars and system messages
  (content, sections, ``JSON.stringify(toolsAdded)``).
* **tokensBefore** (``estimateProjectedContextTokens``): the last assistant usage that is
  not aborted, errored or all zero, plus the estimates after it, but only when its row
  comes after the latest compaction or context edit on the path; otherwise the estimate of
  the current system message (every system message replayed into one) plus every other
  message's estimate.
* **Threshold check** (before the next prompt): the last assistant of the projection; none,
  or one older than the latest compaction, means no check. With a context edit in the
  projection, tokensBefore's figure; an errored assistant or one whose usage is all zero
  (or missing): the estimate of the projection (no check when its usage is older than the
  compaction); otherwise its usage. Overflow recovery is a separate trigger, not modelled.

Pure: indices are into the ``path`` given; ``estimates`` are 0.58 pi estimates aligned with
it (the 1.6 differences are added here).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from sessionlens.engine.agents.pi.rule_0_58 import older_than, pi_region
from sessionlens.engine.model import Entry, ImageBlock, Message, TextBlock, Usage
from sessionlens.engine.plan.cutpoints import CutPoint, Preparation, describe_entry
from sessionlens.engine.tokens.estimate import (
    PI_IMAGE_CHARS,
    estimate_tokens_from_chars,
    pi_entry_tokens,
    system_parts,
    utf16_len,
)

__all__ = ["Projected", "pi16_find_cut_point", "pi16_prepare", "pi16_projection",
           "pi16_summarized_messages"]

_CUT_ROLES = frozenset({"user", "assistant", "bashExecution", "custom", "branchSummary",
                        "compactionSummary"})
_TURN_ROLES = frozenset({"user", "bashExecution", "custom", "branchSummary", "compactionSummary"})
_EDITABLE = frozenset({"user", "assistant", "toolResult", "custom"})
_USER_IMAGE_TOKENS = 1200  # 4,800 chars / 4, exact because 4,800 is a multiple of 4


@dataclass(frozen=True, slots=True)
class Projected:
    """One row of pi 1.6's projection: the path row and the messages it gives the model,
    as (role, estimate, usage of an assistant that counts, timestamp) tuples."""

    index: int
    entry: Entry
    roles: tuple[str, ...]
    tokens: tuple[int, ...]
    #: The first assistant message's usage when pi would read it (not aborted, errored or 0).
    usage: Usage | None = None
    #: The row has messages of its own (before edits): pi's "intrinsically visible".
    visible: bool = False

    @property
    def total(self) -> int:
        return sum(self.tokens)


def _user_images(msg: Message) -> int:
    return sum(1 for b in msg.content if isinstance(b, ImageBlock)) if msg.role == "user" else 0


def _usage_tokens(u: Usage) -> int:
    """``calculateContextTokens``: totalTokens, else the sum of the parts."""
    return u.total_tokens or (u.input + u.output + u.cache_read + u.cache_write)


def _valid_usage(msg: Message) -> Usage | None:
    u = msg.usage
    if msg.role != "assistant" or u is None or msg.stop_reason in ("aborted", "error"):
        return None
    return u if _usage_tokens(u) > 0 else None


def _system_tokens(msg: Message) -> int:
    images = sum(1 for b in msg.content if isinstance(b, ImageBlock))
    return estimate_tokens_from_chars(sum(utf16_len(p) for p in system_parts(msg))
                                      + PI_IMAGE_CHARS * images)


def _context_rows(path: Sequence[Entry]) -> tuple[list[int], int | None]:
    """pi 1.6 ``buildContextEntries``: path indices in projection order, the compaction's."""
    _, comp = pi_region(path)
    if comp is None:
        return list(range(len(path))), None
    rows = [comp]
    wanted = path[comp].first_kept_entry_id
    found = False
    for i in range(comp):
        found = found or path[i].id == wanted
        if found and path[i].role != "system":
            rows.append(i)
    rows.extend(range(comp + 1, len(path)))
    return rows, comp


def _project(i: int, entry: Entry, base: int, first: bool, edit: Entry | None) -> Projected:
    t = entry.type
    if t == "compaction":
        if not first:
            return Projected(i, entry, (), (), visible=True)
        summary = estimate_tokens_from_chars(utf16_len(entry.summary or ""))
        sm = entry.system_message
        if sm is None:
            return Projected(i, entry, ("compactionSummary",), (summary,), visible=True)
        return Projected(i, entry, ("system", "compactionSummary"),
                         (_system_tokens(sm), summary), visible=True)
    if t == "message" and entry.message is not None:
        msg = entry.message
    elif t == "custom_message":
        msg = Message("custom", entry.content)
    elif t == "branch_summary" and entry.summary:
        return Projected(i, entry, ("branchSummary",), (base,), visible=True)
    else:
        return Projected(i, entry, (), ())
    if edit is not None:
        if edit.replacement is None:
            return Projected(i, entry, (), (), visible=True)
        if msg.role in _EDITABLE:
            msg = dataclasses.replace(msg, content=edit.replacement)
            swapped = dataclasses.replace(entry, message=msg) if t == "message" else \
                dataclasses.replace(entry, content=edit.replacement)
            base = pi_entry_tokens(swapped)
    tokens = (_system_tokens(msg) if msg.role == "system"
              else base + _USER_IMAGE_TOKENS * _user_images(msg))
    return Projected(i, entry, (msg.role,), (tokens,), _valid_usage(msg), visible=True)


def pi16_projection(path: Sequence[Entry], estimates: Sequence[int]) -> list[Projected]:
    """pi 1.6 ``buildSessionProjection`` of ``path``: one ``Projected`` per context row."""
    rows, _ = _context_rows(path)
    edits = {path[i].target_id: path[i] for i in rows if path[i].type == "context_edit"}
    return [_project(i, path[i], estimates[i], n == 0, edits.get(path[i].id))
            for n, i in enumerate(rows)]


def _current_system_tokens(proj: Sequence[Projected], path: Sequence[Entry]) -> int:
    """Estimate of ``getCurrentSystemMessage``: every system message replayed into one."""
    texts: list[str] = []
    sections: dict[str, str] = {}
    tools: dict[str, object] = {}
    stamped = False
    for p in proj:
        if "system" not in p.roles:
            continue
        msg = p.entry.system_message if p.entry.type == "compaction" else p.entry.message
        assert msg is not None
        stamped = stamped or msg.timestamp_ms is not None
        text = "\n".join(b.text for b in msg.content if isinstance(b, TextBlock))
        if text:
            texts.append(text)
        for name, value in (msg.sections or {}).items():
            if value is None:
                sections.pop(name, None)
            else:
                sections[name] = value
        for name in msg.tools_removed:
            tools.pop(name, None)
        for tool in msg.tools_added:
            tools[str(tool.get("name"))] = tool
    if not stamped and not tools:
        return 0
    merged = Message("system", (), sections=sections or None, tools_added=tuple(tools.values()))
    chars = utf16_len("\n\n".join(texts)) + sum(utf16_len(p) for p in system_parts(merged))
    return estimate_tokens_from_chars(chars)


def _estimate(proj: Sequence[Projected]) -> tuple[int, int | None]:
    """``estimateContextTokens`` over the projection's messages: (tokens, projected row of
    the usage used or None)."""
    trailing = 0
    for n in range(len(proj) - 1, -1, -1):
        p = proj[n]
        if p.usage is not None:
            return _usage_tokens(p.usage) + trailing, n
        trailing += p.total
    return trailing, None


def _projected_tokens(proj: Sequence[Projected], path: Sequence[Entry]) -> int:
    """``estimateProjectedContextTokens``."""
    tokens, used = _estimate(proj)
    if used is not None:
        invalidating = next((i for i in range(len(path) - 1, -1, -1)
                             if path[i].type in ("context_edit", "compaction")), -1)
        if proj[used].index > invalidating:
            return tokens
    return _current_system_tokens(proj, path) + sum(
        t for p in proj for r, t in zip(p.roles, p.tokens, strict=True) if r != "system")


def _threshold(proj: Sequence[Projected], path: Sequence[Entry]) -> int | None:
    last = next((p for p in reversed(proj) if "assistant" in p.roles), None)
    if last is None:
        return None
    _, comp_index = pi_region(path)
    comp = path[comp_index] if comp_index is not None else None
    msg = last.entry.message
    assert msg is not None
    if older_than(last.entry, comp):
        return None
    if any(p.entry.type == "context_edit" for p in proj):
        return _projected_tokens(proj, path)
    direct = _usage_tokens(msg.usage) if msg.usage is not None else 0
    if msg.stop_reason == "error" or direct == 0:
        tokens, used = _estimate(proj)
        if used is not None and older_than(proj[used].entry, comp):
            return None
        return tokens
    return direct


def _recovery_suffix(proj: Sequence[Projected], cut: int, end: int) -> bool:
    """A closed suffix of hidden rows holding a hidden assistant attempt (after the cut)."""
    suffix = proj[cut + 1:end]
    omitted = {p.entry.id for p in suffix
               if p.visible and p.entry.type != "context_edit" and not p.roles}
    external = any(p.entry.type == "context_edit" and p.entry.replacement is not None
                   and p.entry.target_id not in omitted for p in suffix)
    attempt = any(p.entry.type == "message" and p.entry.role == "assistant"
                  and p.entry.id in omitted for p in suffix)
    closed = all(p.entry.type != "compaction" and (p.entry.id in omitted or not p.visible
                                                  or p.entry.type == "context_edit")
                 for p in suffix)
    return not external and attempt and closed


def _starts_turn(p: Projected) -> bool:
    return p.entry.type != "compaction" and any(r in _TURN_ROLES for r in p.roles)


def _find_cut(proj: Sequence[Projected], start: int, keep: float) -> tuple[int, int, str]:
    """``findProjectedCutPoint``: (first kept, turn start or -1, reason), projected rows."""
    end = len(proj)
    points = [n for n in range(start, end)
              if proj[n].entry.type != "compaction" and any(r in _CUT_ROLES for r in proj[n].roles)]
    if not points:
        return start, -1, "the region has no valid cut point; nothing is cut"
    cut, reason = points[0], f"the region holds less than keepRecentTokens {keep:,.0f}"
    total, exceeded = 0, False
    for n in range(end - 1, start - 1, -1):
        t = proj[n].total
        if t == 0:
            continue
        total += t
        if total >= keep:
            exceeded = True
            later = next((c for c in points if c >= n), None)
            at = describe_entry(proj[n].entry)
            if later is None:
                cut = points[-1]
                reason = (f"keepRecentTokens {keep:,.0f} was reached at {at}, after the last "
                          "valid cut point; pi 1.6 keeps from that cut point")
            else:
                cut = later
                reason = (f"kept tail reaches keepRecentTokens {keep:,.0f} here" if later == n
                          else f"keepRecentTokens {keep:,.0f} was reached at {at}; moved "
                          "forward to the next valid cut point")
            break
    if exceeded and _recovery_suffix(proj, cut, end):
        cut += 1
        reason += "; moved past a failed attempt the context no longer shows"
    moved = cut
    while cut > start and proj[cut - 1].entry.type != "compaction" and not proj[cut - 1].roles:
        cut -= 1
    if moved != cut:
        reason += f"; moved back over {moved - cut} row(s) the model does not see"
    if _starts_turn(proj[cut]):
        return cut, -1, reason
    turn = next((n for n in range(cut, start - 1, -1) if _starts_turn(proj[n])), -1)
    if turn >= 0:
        reason += (f"; the cut splits the turn opened by {describe_entry(proj[turn].entry)}, "
                   "whose first part is summarized separately")
    return cut, turn, reason


def pi16_find_cut_point(path: Sequence[Entry], start: int, end: int, keep_recent_tokens: float,
                        estimates: Sequence[int]) -> CutPoint:
    """pi 1.6's cut alone over the projected rows of ``path[:end]`` from path index ``start``
    on (``pi16_prepare`` picks the region itself)."""
    proj = pi16_projection(path[:end], estimates)
    first_row = 1 if proj and proj[0].entry.type == "compaction" else 0
    at = next((n for n in range(first_row, len(proj)) if proj[n].index >= start), len(proj))
    if at >= len(proj):
        return CutPoint(start, None, False, "the region has no valid cut point; nothing is cut")
    first, turn, reason = _find_cut(proj, at, keep_recent_tokens)
    return CutPoint(proj[first].index, proj[turn].index if turn >= 0 else None, turn >= 0, reason)


def _messages(proj: Sequence[Projected]) -> int:
    return sum(1 for p in proj if p.entry.type != "compaction" for r in p.roles if r != "system")


def pi16_summarized_messages(path: Sequence[Entry], ids: Sequence[str],
                             estimates: Sequence[int]) -> int:
    """How many messages pi 1.6 hands its summarizer for the rows ``ids`` of ``path``."""
    wanted = set(ids)
    return _messages([p for p in pi16_projection(path, estimates) if p.entry.id in wanted])


def pi16_prepare(path: Sequence[Entry], keep_recent_tokens: int,
                 estimates: Sequence[int]) -> Preparation:
    """pi 1.6.0 ``prepareCompaction`` (its manual ``/compact`` runs the same), in path indices."""
    end = len(path)
    proj = pi16_projection(path, estimates)
    _, comp = pi_region(path)
    start = 1 if comp is not None else 0
    region_start = proj[start].index if start < len(proj) else end
    # rows in the path range the projection leaves out: stored system messages before the
    # compaction (prompt state), and the compaction itself
    inside = {p.index for p in proj[start:]}
    outside = tuple(i for i in range(region_start, end) if i not in inside and i != comp)
    tokens_before = _projected_tokens(proj, path)
    threshold = _threshold(proj, path)
    if end and path[-1].type == "compaction":
        return Preparation(region_start, comp, (), None, tokens_before, threshold,
                           keep_recent_tokens, "Already compacted: the last entry on the "
                           "active path is a compaction", refused=True, outside=outside)
    first, turn, reason = _find_cut(proj, start, keep_recent_tokens)
    history = turn if turn >= 0 else first
    if not _messages(proj[start:history]) and not (turn >= 0 and _messages(proj[turn:first])):
        return Preparation(region_start, comp, (), None, tokens_before, threshold,
                           keep_recent_tokens, "Nothing to compact: pi 1.6 finds nothing to "
                           f"summarize before the cut ({reason})", outside=outside)
    cut = CutPoint(proj[first].index, proj[turn].index if turn >= 0 else None, turn >= 0, reason)
    return Preparation(region_start, comp, (), cut, tokens_before, threshold,
                       keep_recent_tokens, None, outside=outside)
