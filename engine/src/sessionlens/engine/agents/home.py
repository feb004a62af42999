"""What one agent's home declares (``agents/<agent>/release.py``), as data.

A ``release.py`` names its modules (``"package.module:attribute"``) instead of importing
them, so ``catalog`` can list every agent without loading any agent's code.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

__all__ = ["AgentRelease", "RuleRelease"]


@dataclass(frozen=True, slots=True)
class RuleRelease:
    """One cut rule: the agent release range whose compaction it reproduces."""

    #: The rule's name, as plans and ``--rule`` say it ("pi-1.6").
    name: str
    #: The published package (and version) the rule was read from and is tested against.
    source: str
    description: str
    #: ``module:function`` of its prepareCompaction; None: the older rules' walk (the
    #: region after the last compaction, then ``find_cut`` over it).
    prepare: str | None
    #: What ``prepare`` takes besides the path and the estimates: ``keep`` (keepRecentTokens),
    #: ``keep-manual`` (and whether the compaction is manual), ``none``.
    takes: Literal["keep", "keep-manual", "none"] = "keep"
    #: ``module:function`` of its findCutPoint; None when the agent cuts by no token budget.
    find_cut: str | None = None
    #: The per-message estimator the agent decides with (``tokens.estimate.EstimateRules``).
    estimator: Literal["pi", "openclaw"] = "pi"
    #: ``module:function`` (window -> tokens) where the agent compacts by itself, when that
    #: is not the settings' window less reserve.
    threshold: str | None = None
    #: ``module:function`` (plan, path, estimates, header -> plan) putting the agent's own
    #: numbers into the generic plan, when it has some.
    finish: str | None = None
    #: A manual compaction keeps the agent's newest round (never a hard boundary).
    manual_keeps_round: bool = False


@dataclass(frozen=True, slots=True)
class AgentRelease:
    """An agent as SessionLens supports it: its releases, pin and modules."""

    #: The agent's key in plans and settings ("claude-code").
    agent: str
    #: Its name as messages say it ("Claude Code").
    name: str
    #: The published package and the version the tests run ("@openai/codex 0.171.0").
    package: str
    pinned: str
    #: The releases whose files and behaviour this home covers, in words.
    covers: str
    #: The formats (``model.Format``) this agent writes -> ``module`` of the reader.
    readers: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    #: Its cut rules, newest release first; the first is the default for its files.
    rules: tuple[RuleRelease, ...] = ()
    #: ``module:attribute`` of its ``persist.agent_writers.AgentWriter`` (None: pi/OpenClaw
    #: v3 files go through the generic successor; an agent SessionLens does not write).
    writer: str | None = None
    #: ``module:attribute`` of its ``persist.agent_writers.RolloutWriter``, when its successor
    #: is a new session of its own written outside the generic path (Codex).
    successor: str | None = None
    #: ``module:attribute`` of its ``persist.agent_writers.StoreWriter``, when its sessions
    #: live in a database a compaction is written into as rows (OpenClaw's store).
    store: str | None = None
    #: The module answering the agent's hook commands (``sessionlens hook AGENT EVENT``).
    hooks: str | None = None
    #: The module reading the agent's own settings beside its files.
    settings: str | None = None
