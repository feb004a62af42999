"""Per-format parsers: bytes of one file in, a ``ParsedFile`` out.

Here are the readers of the agents that have no home of their own; pi, OpenClaw, Claude
Code, Codex, Gemini CLI and OpenCode read in ``agents/<agent>/parse.py`` (and OpenClaw's
store in ``agents/openclaw/openclaw_store.py``), to the same contract. Every format module
exposes
``parse(data: bytes, path: Path, *, on_progress=None, cancel=None) -> ParsedFile``; the
SQLite ones read a database by path instead (``catalog`` says which kind each module is). The
parser only reads lines into the shared model; the tree, leaf, active path and replayed
context are worked out afterwards by ``sessionlens.engine.load.tree.build_transcript`` so every
format shares one set of rules.
"""

from __future__ import annotations

from dataclasses import dataclass

from sessionlens.engine.model import Diagnostic, Entry, Format, FormatGaps, SessionHeader

__all__ = ["ParsedFile"]


@dataclass(frozen=True, slots=True)
class ParsedFile:
    """What a format parser read from one file, before the tree is resolved.

    ``entries`` are in file order without the header; per-line problems are in
    ``diagnostics`` (the parser never raises for a bad line).
    """

    format: Format
    header: SessionHeader | None
    entries: tuple[Entry, ...]
    diagnostics: tuple[Diagnostic, ...]
    #: What the format does not record (see ``FormatGaps``).
    gaps: FormatGaps = FormatGaps()
