"""One entry point for every cut rule: the agent's preparation of a path, as path indices.

The planner asks ``prepare_rule`` what the chosen rule's agent decides (region, automatic
cut, tokensBefore, the threshold check's number) and which estimator that agent counts with
(``rule_estimator``); it then applies the user's own cut or a hard boundary on top. Pure.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from sessionlens.engine.errors import PlanError
from sessionlens.engine.model import Entry
from sessionlens.engine.tokens.estimate import EstimateRules

from .cut_claude_code import claude_code_prepare
from .cut_codex import codex_prepare
from .cut_openclaw import openclaw_find_cut_point, openclaw_prepare
from .cut_pi import pi_find_cut_point, pi_prepare
from .cut_pi073 import pi073_prepare
from .cut_pi16 import pi16_find_cut_point, pi16_prepare
from .cutpoints import (
    CutPoint,
    Preparation,
    frames_cut_point,
    region_bounds,
    usage_context,
    user_turns_cut_point,
)
from .rules import CUT_RULES, CutRule

__all__ = ["find_cut_point", "legacy_tokens_before", "prepare_rule", "rule_estimator"]

_MESSAGE_TYPES = frozenset({"message", "custom_message", "branch_summary"})


_Prepare = Callable[[Sequence[Entry], int, Sequence[int]], Preparation]
_Finder = Callable[[Sequence[Entry], int, int, float, Sequence[int]], CutPoint]
#: pi's releases, newest first: rule -> (its prepareCompaction, its findCutPoint). Each lives
#: in its own module; a new pi release is a module, a line here and its ``CUT_RULES`` entry.
_PI_RELEASES: dict[str, tuple[_Prepare, _Finder]] = {
    "pi-1.6": (pi16_prepare, pi16_find_cut_point),
    "pi-0.73": (pi073_prepare, pi_find_cut_point),
    "pi-0.58": (pi_prepare, pi_find_cut_point),
}


def rule_estimator(rule: CutRule) -> EstimateRules:
    """The per-message estimator the rule's agent decides with."""
    return "openclaw" if rule == "openclaw-2026.9" else "pi"


def find_cut_point(path: Sequence[Entry], start: int, end: int, keep_recent_tokens: float,
                   estimates: Sequence[int], rule: str) -> CutPoint:
    """The automatic cut of ``rule`` over ``path[start:end]`` (just the cut: no region, no
    rescaling of keepRecentTokens; ``prepare_rule`` does those)."""
    finders = {**{r: f for r, (_, f) in _PI_RELEASES.items()},
               "openclaw-2026.9": openclaw_find_cut_point,
               "tool-frames": frames_cut_point, "pi-2025.12": user_turns_cut_point,
               "claude-code-2.1": frames_cut_point}
    finder = finders.get(rule)
    if rule == "codex-0.17":
        raise PlanError("codex-0.17 has no keepRecentTokens cut: Codex summarizes the whole "
                        "history (plan it with plan_compaction)")
    if finder is None:
        raise PlanError(f"unknown cut rule {rule!r} (choose from {', '.join(CUT_RULES)})")
    return finder(path, start, end, keep_recent_tokens, estimates)


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
    finder = frames_cut_point if rule == "tool-frames" else user_turns_cut_point
    return Preparation(start, boundary, (), finder(path, start, end, keep, estimates),
                       tokens_before, threshold, keep, None)


def prepare_rule(path: Sequence[Entry], rule: str, keep: int, estimates: Sequence[int], *,
                 manual: bool = False) -> Preparation:
    """What ``rule``'s agent prepares for ``path`` (``estimates`` by ``rule_estimator``)."""
    if rule not in CUT_RULES:
        raise PlanError(f"unknown cut rule {rule!r} (choose from {', '.join(CUT_RULES)})")
    release = _PI_RELEASES.get(rule)
    if release is not None:
        return release[0](path, keep, estimates)
    if rule == "openclaw-2026.9":
        return openclaw_prepare(path, keep, estimates, manual=manual)
    if rule == "claude-code-2.1":   # keeps a round, not a token budget: ``keep`` unused
        return claude_code_prepare(path, estimates)
    if rule == "codex-0.17":
        return codex_prepare(path, estimates)
    return _legacy_prepare(path, rule, keep, estimates)  # type: ignore[arg-type]
