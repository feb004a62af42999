"""Every format SessionLens reads: its agent, its adapter module, and how that module reads.

One table, so the reader's dispatch, the write guard's refusal message, ``inspect`` and the
token estimates agree on what a format is. ``kind`` says how the adapter takes a file:
``"bytes"`` (``parse(data, path, ...)``) or ``"sqlite"`` (``parse_db(opened, path,
session, ...)`` over a read-only connection). ``sessions`` marks a file that holds several
sessions, each opened as ``<file>/<session>`` (a database, an Aider history).
``token_rule`` names the agent's own token estimator when it has one (``tokens.agent_rules``
implements them); None means the agent estimates nothing itself, so the exact count is what
to go by. The formats of an agent with a home (``agents/<agent>/``) are read by the module
its ``release.py`` names (``agents.releases.READERS``); the others by ``load.formats``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

from sessionlens.engine.agents.releases import READERS
from sessionlens.engine.model import Format

__all__ = ["FORMATS", "GAP_TEXT", "FormatEntry", "agent_name", "gap_text"]


@dataclass(frozen=True, slots=True)
class FormatEntry:
    """How one format is read."""

    agent: str
    #: The reader module's full name (an agent's home, or ``load.formats``).
    module: str
    kind: Literal["bytes", "sqlite"] = "bytes"
    sessions: bool = False
    token_rule: str | None = None
    #: ``module:function`` reading one entry back (``Transcript.row_reader``) when the file
    #: is not lines of bytes.
    row_reader: str | None = None


_OURS = "sessionlens.engine.load.formats"


def _home(fmt: Format) -> str:
    """The module of the agent home that reads ``fmt`` (``agents.releases``)."""
    return READERS[fmt]


_PI = FormatEntry("OpenClaw/pi", _home("openclaw-v3"), token_rule="pi")

#: Format name -> how it is read.
FORMATS: Mapping[Format, FormatEntry] = MappingProxyType({
    "openclaw-v3": _PI,
    "pi-v1": _PI,
    "pi-v2": _PI,
    "claude-code": FormatEntry("Claude Code", _home("claude-code")),
    "codex": FormatEntry("Codex", _home("codex")),
    "gemini-jsonl": FormatEntry("Gemini CLI", _home("gemini-jsonl"), token_rule="gemini"),
    "gemini-json": FormatEntry("Gemini CLI", _home("gemini-json"), token_rule="gemini"),
    "copilot-events": FormatEntry("GitHub Copilot CLI", f"{_OURS}.copilot"),
    "copilot-legacy": FormatEntry("GitHub Copilot CLI", f"{_OURS}.copilot_legacy"),
    "crush-sqlite": FormatEntry("Crush", f"{_OURS}.crush", "sqlite", sessions=True),
    "opencode-go-sqlite": FormatEntry("OpenCode (Go)", f"{_OURS}.crush", "sqlite", sessions=True),
    "opencode-sqlite": FormatEntry("OpenCode", _home("opencode-sqlite"), "sqlite", sessions=True,
                                   token_rule="chars4"),
    "cursor-jsonl": FormatEntry("Cursor", f"{_OURS}.cursor"),
    "cursor-txt": FormatEntry("Cursor", f"{_OURS}.cursor"),
    "cline": FormatEntry("Cline", f"{_OURS}.cline"),
    "roo-code": FormatEntry("Roo Code", f"{_OURS}.cline"),
    "aider-md": FormatEntry("Aider", f"{_OURS}.aider", sessions=True),
    "kimi": FormatEntry("Kimi CLI", f"{_OURS}.kimi"),
    "amp": FormatEntry("Amp", f"{_OURS}.amp"),
    "continue": FormatEntry("Continue", f"{_OURS}.continue_sessions"),
    "openclaw-sqlite": FormatEntry("OpenClaw", _home("openclaw-sqlite"), "sqlite", sessions=True,
                                   token_rule="pi",
                                   row_reader=f"{_home('openclaw-sqlite')}:event_bytes"),
})

#: What each ``FormatGaps.missing`` kind means, as a reader should be told it.
GAP_TEXT: Mapping[str, str] = MappingProxyType({
    "ids": "no entry ids: SessionLens numbers the records",
    "timestamps": "no per-message times",
    "usage": "no token usage per model call",
    "tool_results": "tool results are not recorded",
    "model": "the model is not recorded per message",
    "compaction_summary": "compactions are marked, but their summary text is not recorded",
    "kept_window": "which messages a compaction kept is not recorded (shown as none kept)",
})


def agent_name(fmt: str) -> str:
    """The agent that writes ``fmt`` files (the format name itself if unknown)."""
    entry = FORMATS.get(fmt)  # type: ignore[call-overload]
    return entry.agent if entry is not None else fmt


def gap_text(kind: str) -> str:
    return GAP_TEXT.get(kind, kind)
