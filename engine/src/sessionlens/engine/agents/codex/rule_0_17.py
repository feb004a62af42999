"""Codex 0.17x's local compaction (rule ``codex-0.17``), as the 0.171.0 binary does it.

Facts (codex-rs ``core/src/compact.rs``, and the requests the binary sent to the scripted
model in ``tests/agents/drivers/codex.py``):

- **What is summarized:** the whole history the model holds (after an earlier compaction:
  its kept messages and its summary too), sent with ``COMPACT_PROMPT`` appended.
- **What is kept verbatim:** the user messages of that history (not Codex's own environment
  or AGENTS.md messages, not an earlier summary), newest first, while their approximate
  tokens (UTF-8 bytes / 4, rounded up, over its text parts run together) fit 20,000; the
  first that does not fit is cut to what remains (three parts: head, "…N tokens
  truncated…", tail). They are copies: the entries
  they come from are summarized too. Codex then puts its initial context (developer and
  environment messages) back before the newest kept message, and last the summary behind
  ``SUMMARY_PREFIX``.
- **When:** automatically once the last response's total tokens reach
  ``model_auto_compact_token_limit`` (``config.toml`` of the Codex home), else 90% of the
  model's window: the ``model_context_window`` Codex records is 95% of it, so the limit is
  18/19 of the recorded window (244,800 of 258,400, found with the binary); a manual
  compaction (``/compact``, ``thread/compact/start``) does the same work at any time.

Pure: the path and its estimates in, indices and numbers out. The planner turns them into a
``CompactionPlan``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

from sessionlens.engine.agents.codex.compacted import is_summary_text
from sessionlens.engine.agents.codex.items import CONTEXT_PREFIXES
from sessionlens.engine.model import Entry, SessionHeader, TextBlock
from sessionlens.engine.plan.compaction_plan import CompactionPlan
from sessionlens.engine.plan.cutpoints import (
    Preparation,
    hard_boundary_cut,
    region_bounds,
    usage_context,
)

__all__ = ["KEEP_USER_TOKENS", "CodexKeep", "approx_tokens", "auto_compact_limit",
           "codex_keep", "codex_plan", "codex_prepare", "is_kept_kind", "truncate_middle",
           "user_text"]

#: Codex's budget for the user messages it keeps (``COMPACT_USER_MESSAGE_MAX_TOKENS``).
KEEP_USER_TOKENS = 20_000
_MESSAGE_TYPES = frozenset({"message", "custom_message", "branch_summary"})
#: SessionLens's summary of a Codex history takes at most 1/SUMMARY_SHARE of it (Codex's own
#: prompt asks for a concise handoff and sets no length), and at least SUMMARY_FLOOR tokens.
SUMMARY_SHARE = 4
SUMMARY_FLOOR = 256


def approx_tokens(text: str) -> int:
    """Codex's approximate token count: UTF-8 bytes / 4, rounded up."""
    return (len(text.encode("utf-8")) + 3) // 4


def user_text(entry: Entry) -> str:
    """A user message's text as Codex counts it: its text parts run together."""
    msg = entry.message
    return "".join(b.text for b in msg.content if isinstance(b, TextBlock)) if msg else ""


def truncate_middle(text: str, tokens: int) -> tuple[str, ...]:
    """``text`` cut to ``tokens`` (4 bytes each) as Codex cuts a kept user message: the first
    and last halves of the budget as text parts around a part "…N tokens truncated…" (N: the
    bytes left out / 4, rounded up). A text that fits is one part."""
    raw = text.encode("utf-8")
    budget = max(tokens, 0) * 4
    if len(raw) <= budget:
        return (text,)
    head = raw[:budget // 2].decode("utf-8", "ignore")
    tail = raw[len(raw) - (budget - budget // 2):].decode("utf-8", "ignore") if budget else ""
    gone = math.ceil((len(raw) - len(head.encode()) - len(tail.encode())) / 4)
    return (head, f"…{gone} tokens truncated…", tail)


def is_kept_kind(entry: Entry) -> bool:
    """A user message Codex would keep: typed by the user, not its own injected context,
    not an earlier compaction's summary."""
    msg = entry.message
    if entry.type != "message" or msg is None or msg.role != "user" or msg.exclude_from_context:
        return False
    text = user_text(entry)
    return not text.lstrip().startswith(CONTEXT_PREFIXES) and not is_summary_text(text)


@dataclass(frozen=True, slots=True)
class CodexKeep:
    """The user messages Codex keeps, oldest first."""

    entry_ids: tuple[str, ...]
    #: The oldest kept one when it had to be cut to fit, else None.
    truncated_id: str | None
    #: Tokens (Codex's approximation) the kept messages take.
    tokens: int
    #: Tokens the truncated one keeps (0 when none is cut).
    truncated_to: int = 0


def codex_keep(entries: Sequence[Entry], budget: int = KEEP_USER_TOKENS) -> CodexKeep:
    """Which of ``entries`` (the history, in order) Codex keeps verbatim."""
    kept: list[str] = []
    remaining = budget
    truncated: str | None = None
    cut_to = 0
    for entry in reversed([e for e in entries if is_kept_kind(e)]):
        if remaining <= 0:
            break
        need = approx_tokens(user_text(entry))
        kept.append(entry.id)
        if need <= remaining:
            remaining -= need
            continue
        truncated, cut_to, remaining = entry.id, remaining, 0
    kept.reverse()
    return CodexKeep(tuple(kept), truncated, budget - remaining, cut_to)


def auto_compact_limit(header: SessionHeader | None, window: int) -> tuple[int, str]:
    """Codex's automatic compaction limit for the file, and where it comes from."""
    extra = header.extra if header is not None else {}
    limit = extra.get("auto_compact_token_limit")
    if isinstance(limit, int) and not isinstance(limit, bool) and limit > 0:
        return limit, str(extra.get("auto_compact_token_limit_source") or "config.toml")
    return (window * 18 // 19, f"Codex's default: 90% of the model's window (18/19 of the "
            f"recorded {window:,})")


def codex_prepare(path: Sequence[Entry], estimates: Sequence[int]) -> Preparation:
    """The whole history is summarized (a hard boundary: nothing stays in place; the kept
    user messages are copies, ``codex_keep``). tokensBefore: the last reported total plus
    estimates after it; the threshold check: that last reported total."""
    end = len(path)
    start, boundary = region_bounds(path)
    if end and path[-1].type == "compaction":
        return Preparation(start, boundary, (), None, 0, None, 0,
                           "Already compacted: the last entry on the active path is a "
                           "compaction", refused=True)
    trailing = 0
    reported: int | None = None
    for i in range(end - 1, start - 1, -1):
        reported = usage_context(path[i])
        if reported is not None:
            break
        if path[i].type in _MESSAGE_TYPES:
            trailing += estimates[i]
    if reported is None:
        summary = (estimates[boundary] if boundary is not None
                   and path[boundary].type == "compaction" else 0)
        before = summary + trailing
    else:
        before = reported + trailing
    cut = replace(hard_boundary_cut(end), reason=(
        "Codex summarizes the whole history and keeps copies of the recent user messages "
        f"(up to {KEEP_USER_TOKENS:,} tokens) after its summary"))
    return Preparation(start, boundary, (), cut, before, reported, 0, None)


def _custom_type(entry: Entry) -> str | None:
    return entry.message.custom_type if entry.message is not None else None


def codex_plan(plan: CompactionPlan, path: Sequence[Entry], estimates: Sequence[int],
               header: SessionHeader | None) -> CompactionPlan:
    """``plan`` (the whole history summarized) with Codex's own numbers: its limit as the
    threshold (reached at ``>=``), the user messages it copies back, and what stays: the
    kept tokens are what lies outside the history (instructions, tools: reported minus the
    history's estimate), the initial context Codex puts back and the copies. Codex puts no
    cap on its summary; the one SessionLens writes for a Codex file gets 0.8 x reserve, but
    never more than a quarter of the history it replaces (at least 256 tokens)."""
    limit, _ = auto_compact_limit(header, plan.context_window)
    start, boundary = region_bounds(path)
    keep = codex_keep(path[start:])
    # Codex rebuilds its initial context: the newest developer and environment messages
    initial = sum(next((estimates[i] for i in range(len(path) - 1, -1, -1)
                        if _custom_type(path[i]) == kind), 0)
                  for kind in ("codex.developer", "codex.context"))
    summary = (estimates[boundary] if boundary is not None
               and path[boundary].type == "compaction" else 0)
    history = summary + sum(estimates[i] for i in range(start, len(path))
                            if path[i].type in _MESSAGE_TYPES)
    outside = max(plan.tokens_before - history, 0)   # instructions, tools: they stay
    check = plan.threshold_tokens
    stays = outside + initial + keep.tokens
    budget = min(plan.summary_budget_tokens, max(SUMMARY_FLOOR, history // SUMMARY_SHARE))
    return replace(
        plan, threshold=limit, copied_entry_ids=keep.entry_ids,
        should_compact=plan.settings.enabled and check is not None and check >= limit,
        kept_tokens=stays, summary_budget_tokens=budget,
        predicted_tokens_after=stays + budget)
