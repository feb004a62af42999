"""How to register ``sessionlens mcp`` with an agent: the exact config edit, never made here.

Claude Code takes a stdio server from ``claude mcp add [--scope user] <name> -- <command>
[args...]`` or from a project's ``.mcp.json`` (``{"mcpServers": {<name>: {"type": "stdio",
"command", "args"}}}``); Codex from a ``[mcp_servers.<name>]`` table (``command``, ``args``)
in ``~/.codex/config.toml`` (or ``codex mcp add <name> -- <command>``). The command is this
Python running ``-m sessionlens.engine.cli mcp``, so it works without the console script on
the agent's PATH; ``env`` (the CLI passes its own ``PYTHONPATH``, when set, so a source
checkout's engine is the one the agent starts) goes into the entry. ``sessionlens integrate`` (another issue) may apply these; this module
only says them (the dry run).
"""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from sessionlens.engine.errors import ConfigError

__all__ = ["McpRegistration", "registration_for", "server_command"]

SERVER_KEY = "sessionlens"


@dataclass(frozen=True, slots=True)
class McpRegistration:
    """One agent's registration: where it goes, the snippet, and a command that adds it."""

    agent: str
    config_path: str
    #: The text to merge into ``config_path``.
    snippet: str
    #: The agent's own command that makes the same edit.
    shell_command: str
    command: tuple[str, ...]

    def lines(self) -> list[str]:
        return [f"# {self.agent}: add to {self.config_path}", self.snippet.rstrip(), "",
                "# or let the agent write it:", self.shell_command]


def server_command(roots: Sequence[Path] = (), basedir: Path | None = None,
                   python: str | None = None) -> tuple[str, ...]:
    """The argv that starts the server (absolute paths, as an agent runs it from anywhere)."""
    argv = [python or sys.executable, "-m", "sessionlens.engine.cli", "mcp"]
    for root in roots:
        argv += ["--root", str(Path(root).expanduser().resolve())]
    if basedir is not None:
        argv += ["--basedir", str(Path(basedir).expanduser().resolve())]
    return tuple(argv)


def _toml_str(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)  # a JSON string is a TOML basic string


def registration_for(agent: str, roots: Sequence[Path] = (), basedir: Path | None = None,
                     python: str | None = None, env: Mapping[str, str] | None = None
                     ) -> McpRegistration:
    """The registration for ``agent`` ("claude-code" or "codex")."""
    argv = server_command(roots, basedir, python)
    command, args = argv[0], list(argv[1:])
    quoted = " ".join(shlex.quote(a) for a in argv)
    env = dict(env or {})
    flags = "".join(f" --env {shlex.quote(f'{k}={v}')}" for k, v in env.items())
    if agent == "claude-code":
        body = {"mcpServers": {SERVER_KEY: {"type": "stdio", "command": command,
                                            "args": args, "env": env}}}
        return McpRegistration(agent, ".mcp.json (project) or ~/.claude.json (user scope)",
                               json.dumps(body, indent=2) + "\n",
                               f"claude mcp add --scope user{flags} {SERVER_KEY} -- {quoted}",
                               argv)
    if agent == "codex":
        snippet = (f"[mcp_servers.{SERVER_KEY}]\ncommand = {_toml_str(command)}\n"
                   f"args = [{', '.join(_toml_str(a) for a in args)}]\n")
        if env:
            pairs = ", ".join(f"{_toml_str(k)} = {_toml_str(v)}" for k, v in env.items())
            snippet += f"env = {{ {pairs} }}\n"
        return McpRegistration(agent, "~/.codex/config.toml", snippet,
                               f"codex mcp add{flags} {SERVER_KEY} -- {quoted}", argv)
    raise ConfigError(f"{agent!r}: no MCP registration known (claude-code, codex)")
