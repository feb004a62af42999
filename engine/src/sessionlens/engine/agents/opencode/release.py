"""The OpenCode releases SessionLens covers (reading only), and the one its tests run."""

from __future__ import annotations

from types import MappingProxyType

from sessionlens.engine.agents.home import AgentRelease

__all__ = ["RELEASE"]

RELEASE = AgentRelease(
    agent="opencode", name="OpenCode", package="opencode-ai", pinned="1.18.33",
    covers="OpenCode 1.x (its opencode.db SQLite store), read only",
    readers=MappingProxyType({"opencode-sqlite": "sessionlens.engine.agents.opencode.parse"}),
)
