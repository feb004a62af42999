"""The cut rules SessionLens offers, and which one a file gets by default.

Each rule is named by the agent and version whose published code it reproduces, so a plan
can say "rule: openclaw-2026.9 (default for OpenClaw files)" and mean it. A pi or OpenClaw
file gets its own agent's rule; a v3 file is told apart as pi or OpenClaw by
``file_agent``. Claude Code files get ``claude-code-2.1`` (``cut_claude_code``, read from the
2.1.332 binary's own compactions); a Codex file gets ``codex-0.17`` (``cut_codex``: Codex
0.17x's local compaction, checked against the 0.171.0 binary).

Pure: ``file_agent`` reads the transcript already loaded, never the disk; a caller that
knows a ``sessions.json`` sits beside the file says so with ``store_beside``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

from sessionlens.engine.model import Transcript

__all__ = [
    "AGENT_NAMES", "CUT_RULES", "DEFAULT_CUT_RULE", "FileAgent", "AgentGuess", "CutRule",
    "CutRuleInfo", "default_cut_rule", "file_agent", "pi_evidence", "rule_label", "rule_note",
]

CutRule = Literal["pi-1.6", "pi-0.73", "pi-0.58", "openclaw-2026.9", "pi-2025.12",
                  "tool-frames", "claude-code-2.1", "codex-0.17"]
FileAgent = Literal["pi", "openclaw", "claude-code", "codex"]

AGENT_NAMES: Mapping[str, str] = MappingProxyType({
    "pi": "pi", "openclaw": "OpenClaw", "claude-code": "Claude Code", "codex": "Codex"})


@dataclass(frozen=True, slots=True)
class CutRuleInfo:
    """One cut rule: whose it is, where it was read, and what it does, in words."""

    name: CutRule
    #: The agent it reproduces ("sessionlens" for SessionLens's own rule).
    agent: str
    #: The published package (and version) the rule was read from and is tested against.
    source: str
    description: str


CUT_RULES: Mapping[str, CutRuleInfo] = MappingProxyType({info.name: info for info in (
    CutRuleInfo(
        "pi-1.6", "pi", "@earendil-works/pi-coding-agent 1.6.0 (dist/core/compaction/"
        "compaction.js; releases 1.6.x)",
        "pi 1.6's cut, over what its model sees (context edits applied): the region starts at "
        "the previous compaction's first kept entry; trailing tool results over budget keep "
        "the last cut point; any user-like row starts a turn; images in user messages count "
        "4,800 chars; an empty compaction is refused; tokensBefore ignores usage older than "
        "the latest compaction or context edit"),
    CutRuleInfo(
        "pi-0.73", "pi", "@mariozechner/pi-coding-agent 0.73.1 (dist/core/compaction/"
        "compaction.js; releases 0.63.1 to 0.73.1)",
        "pi 0.63-0.73's cut: pi 0.58's walk, but a repeated compaction summarizes from the "
        "previous compaction's first kept entry (its kept tail is summarized again) and "
        "tokensBefore is estimated over the whole rebuilt context"),
    CutRuleInfo(
        "pi-0.58", "pi", "@mariozechner/pi-coding-agent 0.58.3 (dist/core/compaction/"
        "compaction.js; releases up to 0.63.0)",
        "pi's own cut: walk back from the newest message adding estimates until "
        "keepRecentTokens, then cut at the first user, assistant, bash or custom entry at or "
        "after that point; the region starts after the last compaction"),
    CutRuleInfo(
        "openclaw-2026.9", "openclaw", "openclaw 2026.9.6 (agent-core compaction.ts, "
        "dist/compaction-CAzwgOuQ.mjs)",
        "OpenClaw's own cut: keepRecentTokens divided by reported usage / estimate, the region "
        "starting at what the previous compaction kept (or after a reset), manual /compact "
        "cutting again with keepRecentTokens 0 when nothing would be summarized"),
    CutRuleInfo(
        "pi-2025.12", "pi", "pi as of December 2025 (reproduces sample 01's recorded cuts)",
        "older pi: only a user message starts the kept part, sized by reported usage deltas"),
    CutRuleInfo(
        "claude-code-2.1", "claude-code", "@anthropic-ai/claude-code 2.1.332 (the native "
        "binary, run against a scripted model: its compaction requests and compact_boundary "
        "records)",
        "Claude Code's own compaction: the whole conversation since the last boundary (the "
        "previous summary and what it kept included) is summarized; the newest API round (the "
        "last assistant response and what follows it) is kept verbatim as preservedMessages; "
        "it fires by itself past the window less min(max output, 20,000) tokens, or that "
        "figure's CLAUDE_AUTOCOMPACT_PCT_OVERRIDE percent"),
    CutRuleInfo(
        "codex-0.17", "codex", "@openai/codex 0.170-0.171 (codex-rs core/src/compact.rs; "
        "checked against the 0.171.0 binary)",
        "Codex's own compaction: the whole history is summarized with Codex's compact prompt; "
        "the recent user messages (up to 20,000 tokens, the oldest kept one cut to fit) are "
        "copied back, then the initial context and the summary behind Codex's handoff "
        "prefix; automatic at model_auto_compact_token_limit (config.toml), else 90% of the "
        "model's window"),
    CutRuleInfo(
        "tool-frames", "sessionlens", "SessionLens (no published agent)",
        "SessionLens's conservative cut: pi's walk, moved back to the start of a tool "
        "call/result frame it stops in, so at least keepRecentTokens stay and no kept result "
        "loses its call"),
)})

#: The rule a file gets when nothing is known about it (SessionLens reads OpenClaw first).
DEFAULT_CUT_RULE: CutRule = "openclaw-2026.9"
_AGENT_RULE: Mapping[str, CutRule] = MappingProxyType({
    "pi": "pi-1.6", "openclaw": "openclaw-2026.9", "claude-code": "claude-code-2.1",
    "codex": "codex-0.17"})


@dataclass(frozen=True, slots=True)
class AgentGuess:
    """Which agent wrote a file, and the evidence, in words."""

    agent: FileAgent
    reason: str


_OPENCLAW_DIRS = frozenset({".openclaw", ".clawdbot", ".moltbot"})


def _path_evidence(transcript: Transcript) -> AgentGuess | None:
    parts = transcript.path.parts
    if len(parts) >= 4 and parts[-2] == "sessions" and parts[-4] == "agents":
        return AgentGuess("openclaw", "it lies in an OpenClaw agents/<id>/sessions/ folder")
    if _OPENCLAW_DIRS.intersection(parts):
        return AgentGuess("openclaw", "it lies in an OpenClaw state folder")
    if ".pi" in parts or (len(parts) >= 3 and parts[-3] == "sessions"
                          and parts[-2].startswith("--") and parts[-2].endswith("--")):
        return AgentGuess("pi", "it lies in pi's sessions/--<cwd>--/ folder")
    return None


#: Rows only pi 1.6 writes (OpenClaw 2026.9 writes none of them).
_PI16_ROWS = frozenset({"usage", "context_edit"})


def pi_evidence(transcript: Transcript) -> str | None:
    """Why the file is surely pi's (its folder, or rows only pi 1.6 writes), or None when
    nothing in it says so (``file_agent`` still guesses pi for an unmarked v3 file)."""
    by_path = _path_evidence(transcript)
    if by_path is not None:
        return by_path.reason if by_path.agent == "pi" else None
    for e in transcript.entries:
        if e.type in _PI16_ROWS or e.role == "system" or e.system_message is not None:
            return f"it holds pi 1.6's {e.type if e.type in _PI16_ROWS else 'system message'} rows"
    return None


def _content_evidence(transcript: Transcript) -> str | None:
    for e in transcript.entries:
        if e.type in ("reset", "leaf") or e.append_mode is not None:
            return f"it holds a {e.type if e.type in ('reset', 'leaf') else 'side-appended'} " \
                   "row, which only OpenClaw writes"
        if e.type == "compaction" and e.from_hook:
            return "its compactions were written by a hook (fromHook), as OpenClaw's safeguard does"
        if e.type == "custom" and (e.custom_type == "model-snapshot"
                                   or (e.custom_type or "").startswith("openclaw:")):
            return f"it holds OpenClaw's {e.custom_type} rows"
        msg = e.message
        if msg is not None and msg.role == "assistant" and (
                msg.provider == "openclaw" or (msg.usage is not None
                                               and msg.usage.context_usage is not None)):
            return "its assistant rows carry OpenClaw's gateway or contextUsage fields"
    return None


def file_agent(transcript: Transcript, *, store_beside: bool = False) -> AgentGuess:
    """Which agent wrote the file. For a v3 file, in this order: its folder (an OpenClaw
    ``agents/<id>/sessions/`` or state folder, or pi's ``sessions/--<cwd>--/``); a
    ``sessions.json`` beside it (``store_beside``); rows only OpenClaw writes (reset and leaf
    rows, side appends, ``fromHook`` compactions, ``model-snapshot``/``openclaw:*`` custom
    rows, gateway or ``contextUsage`` fields); else pi. v1 and v2 files are pi's."""
    fmt = transcript.format
    if fmt in ("claude-code", "codex"):
        return AgentGuess(fmt, f"it is a {AGENT_NAMES[fmt]} file")
    if fmt in ("pi-v1", "pi-v2"):
        return AgentGuess("pi", f"it is a v{fmt[-1]} file, a format only pi wrote")
    if fmt == "openclaw-sqlite":
        return AgentGuess("openclaw", "it is a session of OpenClaw's SQLite store")
    by_path = _path_evidence(transcript)
    if by_path is not None:
        return by_path
    if store_beside:
        return AgentGuess("openclaw", "an OpenClaw sessions.json lies beside it")
    by_content = _content_evidence(transcript)
    if by_content is not None:
        return AgentGuess("openclaw", by_content)
    return AgentGuess("pi", "a v3 file with no OpenClaw marks")


def default_cut_rule(transcript: Transcript, *, store_beside: bool = False) -> CutRule:
    """The rule of the agent that wrote the file (``file_agent``)."""
    return _AGENT_RULE[file_agent(transcript, store_beside=store_beside).agent]


def rule_note(rule: str, agent: str) -> str:
    """Words for the plan when the rule is not the file's own agent's ("" when it is)."""
    info = CUT_RULES.get(rule)
    if info is None or info.agent == agent:
        return ""
    whose = AGENT_NAMES.get(info.agent, "SessionLens's own")
    return (f"this is a {AGENT_NAMES.get(agent, agent)} file planned with the {rule} rule "
            f"({whose} rule), so the cut may differ from where {AGENT_NAMES.get(agent, agent)} "
            "would cut")


def rule_label(rule: str, agent: str) -> str:
    """How a face names the rule in use: "openclaw-2026.9 (default for OpenClaw files)", or
    "tool-frames (chosen; the default for pi files is pi-1.6)"."""
    default = _AGENT_RULE.get(agent, DEFAULT_CUT_RULE)
    files = f"{AGENT_NAMES.get(agent, agent)} files"
    if rule == default:
        return f"{rule} (default for {files})"
    return f"{rule} (chosen; the default for {files} is {default})"
