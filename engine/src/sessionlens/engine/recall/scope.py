"""Which sessions the recall server may answer about, and finding one by what a model gives.

The scope is a list of folders (or single files) the user configured: by default the
agents' own session folders (``default_session_dirs``, what ``sessionlens sessions``
searches) plus the folders added to the search (``roots.json`` beside the index); with
``--root`` exactly those. Every path is resolved (symlinks followed) before it is compared,
so ``<root>/../elsewhere`` and a link out of a root are outside. A model names a session by
its path (as every answer gives it), its file name, or the session id the agent gave it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from sessionlens.engine.errors import LoadError, ScopeError
from sessionlens.engine.sessions.discovery import SessionInfo, discover_sessions

__all__ = ["RecallScope"]


@dataclass(frozen=True, slots=True)
class RecallScope:
    """The folders and files the server answers about (resolved, absolute, in order)."""

    roots: tuple[Path, ...]

    @classmethod
    def of(cls, roots: Sequence[Path | str]) -> RecallScope:
        """A scope over ``roots`` (missing ones are skipped: nothing there to answer about)."""
        out: list[Path] = []
        for root in roots:
            p = Path(root).expanduser().resolve()
            if p.exists() and p not in out:
                out.append(p)
        return cls(tuple(out))

    def contains(self, path: Path | str) -> bool:
        """True if ``path`` (resolved) is one of the roots or lies under one."""
        p = Path(path).expanduser().resolve()
        return any(p == r or p.is_relative_to(r) for r in self.roots)

    def check(self, path: Path | str) -> Path:
        """``path`` resolved, or ``ScopeError`` when it is outside every root."""
        p = Path(path).expanduser().resolve()
        if not self.contains(p):
            raise ScopeError(f"{path}: outside the folders this server answers about "
                             f"({self.describe()})")
        return p

    def describe(self) -> str:
        if not self.roots:
            return "none configured"
        shown = ", ".join(str(r) for r in self.roots[:3])
        return shown + (f" and {len(self.roots) - 3} more" if len(self.roots) > 3 else "")

    def sessions(self) -> list[SessionInfo]:
        """Every primary session file in the scope (the cheap scan), newest first."""
        found = discover_sessions(list(self.roots))
        return sorted(found, key=lambda s: s.modified, reverse=True)

    def resolve(self, session: str) -> Path:
        """The transcript file a model means by ``session``: a path (absolute, ``~``, or
        relative to a root), a file name, or a session id. Refuses what lies outside."""
        text = session.strip()
        if not text:
            raise ScopeError("no session given: pass a path, file name or session id")
        given = Path(text).expanduser()
        candidates = [given] if given.is_absolute() else [r / given for r in self.roots
                                                          if r.is_dir()]
        for c in candidates:
            if c.exists() or given.is_absolute():
                p = self.check(c)
                if not p.is_file():
                    raise LoadError(p, "not a transcript file (a folder?)")
                return p
        if os.sep not in text:
            for s in self.sessions():
                if text in (s.session_id, s.path.name, s.path.stem):
                    return s.path.resolve()
        raise ScopeError(f"no session {text!r} in the folders this server answers about "
                         f"({self.describe()}); pass a path from list_sessions or "
                         "search_sessions")
