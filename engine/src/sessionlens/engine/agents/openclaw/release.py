"""The OpenClaw releases SessionLens covers, and the one its tests run."""

from __future__ import annotations

from types import MappingProxyType

from sessionlens.engine.agents.home import AgentRelease, RuleRelease

__all__ = ["RELEASE"]

_HERE = "sessionlens.engine.agents.openclaw"

RELEASE = AgentRelease(
    agent="openclaw", name="OpenClaw", package="openclaw", pinned="2026.9.6",
    covers="OpenClaw 2026.9.x (v3 session files, and since 2026.8 its SQLite store)",
    readers=MappingProxyType({"openclaw-sqlite": f"{_HERE}.openclaw_store"}),
    store=f"{_HERE}.sqlite_writer:STORE_WRITER",
    rules=(
        RuleRelease(
            "openclaw-2026.9", "openclaw 2026.9.6 (agent-core compaction.ts, "
            "dist/compaction-CAzwgOuQ.mjs)",
            "OpenClaw's own cut: keepRecentTokens divided by reported usage / estimate, the "
            "region starting at what the previous compaction kept (or after a reset), manual "
            "/compact cutting again with keepRecentTokens 0 when nothing would be summarized",
            prepare=f"{_HERE}.rule_2026_9:openclaw_prepare", takes="keep-manual",
            find_cut=f"{_HERE}.rule_2026_9:openclaw_find_cut_point", estimator="openclaw"),
    ),
)
