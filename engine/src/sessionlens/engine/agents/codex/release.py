"""The Codex releases SessionLens covers, and the one its tests run."""

from __future__ import annotations

from types import MappingProxyType

from sessionlens.engine.agents.home import AgentRelease, RuleRelease

__all__ = ["RELEASE"]

_HERE = "sessionlens.engine.agents.codex"

RELEASE = AgentRelease(
    agent="codex", name="Codex", package="@openai/codex", pinned="0.171.0",
    covers="Codex 0.170-0.171 (rollout JSONL files)",
    readers=MappingProxyType({"codex": f"{_HERE}.parse"}),
    successor=f"{_HERE}.codex_successor:CODEX_ROLLOUTS",
    hooks=f"{_HERE}.hooks",
    rules=(
        RuleRelease(
            "codex-0.17", "@openai/codex 0.170-0.171 (codex-rs core/src/compact.rs; checked "
            "against the 0.171.0 binary)",
            "Codex's own compaction: the whole history is summarized with Codex's compact "
            "prompt; the recent user messages (up to 20,000 tokens, the oldest kept one cut to "
            "fit) are copied back, then the initial context and the summary behind Codex's "
            "handoff prefix; automatic at model_auto_compact_token_limit (config.toml), else "
            "90% of the model's window",
            prepare=f"{_HERE}.rule_0_17:codex_prepare", takes="none",
            finish=f"{_HERE}.rule_0_17:codex_plan"),
    ),
)
