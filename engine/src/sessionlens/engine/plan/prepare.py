"""One entry point for every cut rule: the agent's preparation of a path, as path indices.

The planner asks ``prepare_rule`` what the chosen rule's agent decides (region, automatic
cut, tokensBefore, the threshold check's number) and which estimator that agent counts with
(``rule_estimator``); it then applies the user's own cut or a hard boundary on top. Pure.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from sessionlens.engine.agents.releases import RULES, load_named
from sessionlens.engine.errors import PlanError
from sessionlens.engine.model import Entry
from sessionlens.engine.tokens.estimate import EstimateRules

from .cutpoints import (
    CutPoint,
    Preparation,
    frames_cut_point,
    region_bounds,
    usage_context,
)
from .rules import CUT_RULES, CutRule

__all__ = ["find_cut_point", "legacy_tokens_before", "prepare_rule", "rule_estimator"]

_MESSAGE_TYPES = frozenset({"message", "custom_message", "branch_summary"})


_Finder = Callable[[Sequence[Entry], int, int, float, Sequence[int]], CutPoint]


def rule_estimator(rule: CutRule) -> EstimateRules:
    """The per-message estimator the rule's agent decides with."""
    return RULES[rule][1].estimator if rule in RULES else "pi"


def _finder(rule: str) -> _Finder:
    """The rule's findCutPoint (its agent's, from ``agents.releases``; tool-frames is ours)."""
    if rule == "tool-frames":
        return frames_cut_point
    own = RULES.get(rule)
    if own is None:
        raise PlanError(f"unknown cut rule {rule!r} (choose from {', '.join(CUT_RULES)})")
    if own[1].find_cut is None:
        raise PlanError(f"{rule} has no keepRecentTokens cut: its agent summarizes the whole "
                        "history (plan it with plan_compaction)")
    finder: _Finder = load_named(own[1].find_cut)
    return finder


def find_cut_point(path: Sequence[Entry], start: int, end: int, keep_recent_tokens: float,
                   estimates: Sequence[int], rule: str) -> CutPoint:
    """The automatic cut of ``rule`` over ``path[start:end]`` (just the cut: no region, no
    rescaling of keepRecentTokens; ``prepare_rule`` does those)."""
    return _finder(rule)(path, start, end, keep_recent_tokens, estimates)


def legacy_tokens_before(path: Sequence[Entry], start: int, boundary: int | None,
                         estimates: Sequence[int]) -> int:
    """The older rules' tokensBefore: the last valid reported usage (not 0) after the
    boundary plus estimates after it, else the previous summary plus the region's estimates."""
    trailing = 0
    for i in range(len(path) - 1, start - 1, -1):
        usage = usage_context(path[i])
        if usage is not None:
            return usage + trailing
        if path[i].type in _MESSAGE_TYPES:
            trailing += estimates[i]
    summary = estimates[boundary] if boundary is not None and path[boundary].type == "compaction" else 0
    return summary + trailing


def _legacy_prepare(path: Sequence[Entry], rule: CutRule, keep: int,
                    estimates: Sequence[int]) -> Preparation:
    end = len(path)
    start, boundary = region_bounds(path)
    tokens_before = legacy_tokens_before(path, start, boundary, estimates)
    reported = next((u for u in (usage_context(path[i]) for i in range(end - 1, start - 1, -1))
                     if u is not None), None)
    threshold = reported if reported is not None else tokens_before
    if end and path[-1].type == "compaction":
        return Preparation(start, boundary, (), None, tokens_before, threshold, keep,
                           "Already compacted: the last entry on the active path is a compaction",
                           refused=True)
    return Preparation(start, boundary, (), _finder(rule)(path, start, end, keep, estimates),
                       tokens_before, threshold, keep, None)


def prepare_rule(path: Sequence[Entry], rule: str, keep: int, estimates: Sequence[int], *,
                 manual: bool = False) -> Preparation:
    """What ``rule``'s agent prepares for ``path`` (``estimates`` by ``rule_estimator``)."""
    if rule not in CUT_RULES:
        raise PlanError(f"unknown cut rule {rule!r} (choose from {', '.join(CUT_RULES)})")
    own = RULES[rule][1] if rule in RULES else None
    if own is None or own.prepare is None:
        return _legacy_prepare(path, rule, keep, estimates)
    prepare = load_named(own.prepare)
    if own.takes == "none":   # keeps a round or the whole history, not a token budget
        prep: Preparation = prepare(path, estimates)
    elif own.takes == "keep-manual":
        prep = prepare(path, keep, estimates, manual=manual)
    else:
        prep = prepare(path, keep, estimates)
    return prep
