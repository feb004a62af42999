"""The cut rules SessionLens offers, and which one a file gets by default.

Each rule is named by the agent and version whose published code it reproduces, so a plan
can say "rule: openclaw-2026.9 (default for OpenClaw files)" and mean it. A pi or OpenClaw
file gets its own agent's rule; a v3 file is told apart as pi or OpenClaw by
``file_agent``. Each agent's rules, one per release range, live in its home
(``agents/<agent>/``, listed by ``agents.releases``); its newest release's is its default.

Pure: ``file_agent`` reads the transcript already loaded, never the disk; a caller that
knows a ``sessions.json`` sits beside the file says so with ``store_beside``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

from sessionlens.engine.agents.releases import AGENTS, RULES
from sessionlens.engine.model import Transcript

__all__ = [
    "AGENT_NAMES", "CUT_RULES", "DEFAULT_CUT_RULE", "FileAgent", "AgentGuess", "CutRule",
    "CutRuleInfo", "default_cut_rule", "file_agent", "pi_evidence", "rule_label", "rule_note",
]

#: A cut rule's name: one of ``CUT_RULES`` (each agent's home declares its own).
CutRule = str
FileAgent = Literal["pi", "openclaw", "claude-code", "codex"]

AGENT_NAMES: Mapping[str, str] = MappingProxyType({
    key: AGENTS[key].name for key in ("pi", "openclaw", "claude-code", "codex")})


@dataclass(frozen=True, slots=True)
class CutRuleInfo:
    """One cut rule: whose it is, where it was read, and what it does, in words."""

    name: CutRule
    #: The agent it reproduces ("sessionlens" for SessionLens's own rule).
    agent: str
    #: The published package (and version) the rule was read from and is tested against.
    source: str
    description: str


#: Every agent's rules (``agents.releases``), then SessionLens's own.
CUT_RULES: Mapping[str, CutRuleInfo] = MappingProxyType({
    **{name: CutRuleInfo(name, agent, rule.source, rule.description)
       for name, (agent, rule) in RULES.items()},
    "tool-frames": CutRuleInfo(
        "tool-frames", "sessionlens", "SessionLens (no published agent)",
        "SessionLens's conservative cut: pi's walk, moved back to the start of a tool "
        "call/result frame it stops in, so at least keepRecentTokens stay and no kept result "
        "loses its call"),
})

#: The rule a file gets when nothing is known about it (SessionLens reads OpenClaw first).
DEFAULT_CUT_RULE: CutRule = AGENTS["openclaw"].rules[0].name
#: Each agent's default: the rule of its newest release.
_AGENT_RULE: Mapping[str, CutRule] = MappingProxyType({
    key: release.rules[0].name for key, release in AGENTS.items() if release.rules})


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
