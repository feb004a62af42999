"""The Gemini CLI releases SessionLens covers (reading only), and the one its tests run."""

from __future__ import annotations

from types import MappingProxyType

from sessionlens.engine.agents.home import AgentRelease

__all__ = ["RELEASE"]

_READER = "sessionlens.engine.agents.gemini.parse"

RELEASE = AgentRelease(
    agent="gemini", name="Gemini CLI", package="@google/gemini-cli", pinned="0.61.0",
    covers="Gemini CLI chat files (JSON, and JSONL since 0.5x), read only",
    readers=MappingProxyType({"gemini-jsonl": _READER, "gemini-json": _READER}),
)
