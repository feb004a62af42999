"""The Claude Code releases SessionLens covers, and the one its tests run."""

from __future__ import annotations

from types import MappingProxyType

from sessionlens.engine.agents.home import AgentRelease, RuleRelease

__all__ = ["RELEASE"]

_HERE = "sessionlens.engine.agents.claude_code"

RELEASE = AgentRelease(
    agent="claude-code", name="Claude Code", package="@anthropic-ai/claude-code",
    pinned="2.1.332", covers="Claude Code 2.1.x (JSONL transcripts, request records)",
    readers=MappingProxyType({"claude-code": f"{_HERE}.parse"}),
    writer=f"{_HERE}.claude_code_successor:CLAUDE_CODE_WRITER",
    hooks=f"{_HERE}.hooks",
    rules=(
        RuleRelease(
            "claude-code-2.1", "@anthropic-ai/claude-code 2.1.332 (the native binary, run "
            "against a scripted model: its compaction requests and compact_boundary records)",
            "Claude Code's own compaction: the whole conversation since the last boundary (the "
            "previous summary and what it kept included) is summarized; the newest API round "
            "(the last assistant response and what follows it) is kept verbatim as "
            "preservedMessages; it fires by itself past the window less min(max output, "
            "20,000) tokens, or that figure's CLAUDE_AUTOCOMPACT_PCT_OVERRIDE percent",
            prepare=f"{_HERE}.rule_2_1:claude_code_prepare", takes="none",
            find_cut="sessionlens.engine.plan.cutpoints:frames_cut_point",
            threshold=f"{_HERE}.rule_2_1:claude_code_threshold", manual_keeps_round=True),
    ),
)
