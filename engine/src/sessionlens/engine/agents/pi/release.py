"""The pi releases SessionLens covers, and the one its tests run."""

from __future__ import annotations

from types import MappingProxyType

from sessionlens.engine.agents.home import AgentRelease, RuleRelease

__all__ = ["RELEASE"]

_HERE = "sessionlens.engine.agents.pi"
_READER = f"{_HERE}.parse"

RELEASE = AgentRelease(
    agent="pi", name="pi", package="@earendil-works/pi-coding-agent", pinned="1.6.0",
    covers="pi from December 2025 to 1.6.x (v1, v2 and v3 session files)",
    readers=MappingProxyType({"openclaw-v3": _READER, "pi-v1": _READER, "pi-v2": _READER}),
    settings=f"{_HERE}.pi_settings",
    rules=(
        RuleRelease(
            "pi-1.6", "@earendil-works/pi-coding-agent 1.6.0 (dist/core/compaction/"
            "compaction.js; releases 1.6.x)",
            "pi 1.6's cut, over what its model sees (context edits applied): the region starts "
            "at the previous compaction's first kept entry; trailing tool results over budget "
            "keep the last cut point; any user-like row starts a turn; images in user messages "
            "count 4,800 chars; an empty compaction is refused; tokensBefore ignores usage "
            "older than the latest compaction or context edit",
            prepare=f"{_HERE}.rule_1_6:pi16_prepare",
            find_cut=f"{_HERE}.rule_1_6:pi16_find_cut_point"),
        RuleRelease(
            "pi-0.73", "@mariozechner/pi-coding-agent 0.73.1 (dist/core/compaction/"
            "compaction.js; releases 0.63.1 to 0.73.1)",
            "pi 0.63-0.73's cut: pi 0.58's walk, but a repeated compaction summarizes from the "
            "previous compaction's first kept entry (its kept tail is summarized again) and "
            "tokensBefore is estimated over the whole rebuilt context",
            prepare=f"{_HERE}.rule_0_73:pi073_prepare",
            find_cut=f"{_HERE}.rule_0_58:pi_find_cut_point"),
        RuleRelease(
            "pi-0.58", "@mariozechner/pi-coding-agent 0.58.3 (dist/core/compaction/"
            "compaction.js; releases up to 0.63.0)",
            "pi's own cut: walk back from the newest message adding estimates until "
            "keepRecentTokens, then cut at the first user, assistant, bash or custom entry at "
            "or after that point; the region starts after the last compaction",
            prepare=f"{_HERE}.rule_0_58:pi_prepare",
            find_cut=f"{_HERE}.rule_0_58:pi_find_cut_point"),
        RuleRelease(
            "pi-2025.12", "pi as of December 2025 (reproduces sample 01's recorded cuts)",
            "older pi: only a user message starts the kept part, sized by reported usage deltas",
            prepare=None, find_cut="sessionlens.engine.plan.cutpoints:user_turns_cut_point"),
    ),
)
