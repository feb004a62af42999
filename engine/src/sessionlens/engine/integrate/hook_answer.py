"""What an agent's hook command answers (``sessionlens hook AGENT EVENT``), for every agent."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["HookAnswer"]


@dataclass(frozen=True, slots=True)
class HookAnswer:
    """What the hook process does: its exit code, stdout and stderr."""

    code: int = 0
    stdout: str = ""
    stderr: str = ""
