"""Every agent home SessionLens has, and the one place the generic layers ask about them.

The reader dispatch (``load.formats.catalog``), the cut rule choice (``plan.rules``,
``plan.prepare``), the writer choice (``persist.agent_writers``) and the hook commands
(``cli.agent_cmd``) look an agent's modules up here by name and import them on first use,
so no generic layer imports an agent's code and every arrow points from the agents down.
A new agent release is a change in its own folder: a module and a line in its
``release.py``.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from types import MappingProxyType, ModuleType
from typing import Any

from sessionlens.engine.agents.claude_code.release import RELEASE as _CLAUDE_CODE
from sessionlens.engine.agents.codex.release import RELEASE as _CODEX
from sessionlens.engine.agents.gemini.release import RELEASE as _GEMINI
from sessionlens.engine.agents.home import AgentRelease, RuleRelease
from sessionlens.engine.agents.openclaw.release import RELEASE as _OPENCLAW
from sessionlens.engine.agents.opencode.release import RELEASE as _OPENCODE
from sessionlens.engine.agents.pi.release import RELEASE as _PI

__all__ = ["AGENTS", "READERS", "RULES", "agent_for_format", "load_module", "load_named"]

#: Agent key -> its release, in the order faces list them.
AGENTS: Mapping[str, AgentRelease] = MappingProxyType({
    r.agent: r for r in (_PI, _OPENCLAW, _CLAUDE_CODE, _CODEX, _GEMINI, _OPENCODE)})

#: Format -> the module that reads it, for every format an agent home reads.
READERS: Mapping[str, str] = MappingProxyType({
    fmt: module for r in AGENTS.values() for fmt, module in r.readers.items()})

#: Rule name -> the rule, every agent's, newest release of each agent first.
RULES: Mapping[str, tuple[str, RuleRelease]] = MappingProxyType({
    rule.name: (r.agent, rule) for r in AGENTS.values() for rule in r.rules})


def agent_for_format(fmt: str) -> AgentRelease | None:
    """The agent whose home reads ``fmt`` files (None for a format no agent home holds)."""
    return next((r for r in AGENTS.values() if fmt in r.readers), None)


def load_module(name: str) -> ModuleType:
    """The module ``name`` (as a ``release.py`` names it), imported on first use."""
    return importlib.import_module(name)


def load_named(ref: str) -> Any:
    """The object ``module:attribute`` names, its module imported on first use."""
    module, _, attribute = ref.partition(":")
    return getattr(importlib.import_module(module), attribute)
