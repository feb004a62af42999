"""Where the other agents keep their sessions by default (and the variables that move them).

Each function takes ``(home, env)`` and returns candidate folders or files, existing or not
(``discovery.default_session_dirs`` keeps the ones that exist):

- Gemini CLI: ``$GEMINI_CLI_HOME/.gemini/tmp`` or ``~/.gemini/tmp`` (``<project>/chats/``).
- GitHub Copilot CLI: ``$COPILOT_HOME`` or ``~/.copilot``: ``session-state/`` and
  ``history-session-state/``.
- Crush and the Go OpenCode keep a database in each project (``.crush/crush.db``,
  ``.opencode/opencode.db``), and Aider its history (``.aider.chat.history.md``, or
  ``$AIDER_CHAT_HISTORY_FILE``). Their projects are the working folder (``$PWD``) and the
  projects Crush lists in ``$XDG_DATA_HOME/crush/projects.json`` (``~/.local/share/crush``;
  ``%LOCALAPPDATA%\\crush`` on Windows), whose ``data_dir`` is where that project's
  database is.
- OpenCode: ``$XDG_DATA_HOME/opencode/opencode.db`` (``~/.local/share/opencode``).
- Cursor: ``$CURSOR_CONFIG_DIR/projects`` or ``~/.cursor/projects``.
- Cline and Roo Code: ``tasks/`` under the extension's global storage in each VS Code
  family editor (Code, Insiders, VSCodium, Cursor, Windsurf; Linux, macOS and Windows
  locations), and the Cline CLI's ``~/.cline/data/tasks``.
- Kimi CLI: ``$KIMI_SHARE_DIR/sessions`` or ``~/.kimi/sessions``.
- Amp: ``$XDG_DATA_HOME/amp/threads`` (``~/.local/share/amp/threads``).
- Continue: ``$CONTINUE_GLOBAL_DIR/sessions`` or ``~/.continue/sessions``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import orjson

__all__ = [
    "aider_files", "amp_dirs", "cline_dirs", "continue_dirs", "copilot_dirs", "crush_files",
    "cursor_dirs", "gemini_dirs", "kimi_dirs", "openclaw_store_files", "opencode_files",
    "project_roots",
]

_EDITORS = ("Code", "Code - Insiders", "VSCodium", "Cursor", "Windsurf")
_EXTENSIONS = ("saoudrizwan.claude-dev", "rooveterinaryinc.roo-cline")


def _env_path(env: Mapping[str, str], name: str) -> Path | None:
    value = env.get(name)
    return Path(value).expanduser() if value else None


def _data_home(home: Path, env: Mapping[str, str]) -> Path:
    return _env_path(env, "XDG_DATA_HOME") or home / ".local" / "share"


def gemini_dirs(home: Path, env: Mapping[str, str]) -> list[Path]:
    return [(_env_path(env, "GEMINI_CLI_HOME") or home) / ".gemini" / "tmp"]


def copilot_dirs(home: Path, env: Mapping[str, str]) -> list[Path]:
    root = _env_path(env, "COPILOT_HOME") or home / ".copilot"
    return [root / "session-state", root / "history-session-state"]


def _crush_projects(home: Path, env: Mapping[str, str]) -> list[tuple[Path, Path | None]]:
    """(project folder, data folder) of every project Crush has opened."""
    bases = [_data_home(home, env) / "crush"]
    local = _env_path(env, "LOCALAPPDATA")
    if local is not None:
        bases.append(local / "crush")
    out: list[tuple[Path, Path | None]] = []
    for base in bases:
        try:
            listed = orjson.loads((base / "projects.json").read_bytes())
        except (OSError, orjson.JSONDecodeError):
            continue
        projects = listed.get("projects") if isinstance(listed, dict) else None
        for p in projects if isinstance(projects, list) else []:
            if isinstance(p, dict) and isinstance(p.get("path"), str):
                data = p.get("data_dir")
                out.append((Path(p["path"]), Path(data) if isinstance(data, str) else None))
    return out


def project_roots(home: Path, env: Mapping[str, str]) -> list[Path]:
    """The project folders to look in for project-local sessions (see the module notes)."""
    roots: list[Path] = []
    pwd = _env_path(env, "PWD")
    if pwd is not None:
        roots.append(pwd)
    roots.extend(path for path, _data in _crush_projects(home, env))
    return list(dict.fromkeys(roots))


def crush_files(home: Path, env: Mapping[str, str]) -> list[Path]:
    """Crush databases (Crush's listed data folders first) and the Go OpenCode's."""
    out = [data / "crush.db" for _path, data in _crush_projects(home, env) if data is not None]
    for root in project_roots(home, env):
        out += [root / ".crush" / "crush.db", root / ".opencode" / "opencode.db"]
    return list(dict.fromkeys(out))


def openclaw_store_files(home: Path, env: Mapping[str, str]) -> list[Path]:
    """OpenClaw 2026.8+'s per-agent SQLite stores,
    ``<state>/agents/<agent>/agent/openclaw-agent.sqlite`` (state: ``$OPENCLAW_STATE_DIR``,
    else ``~/.openclaw``)."""
    state = _env_path(env, "OPENCLAW_STATE_DIR")
    out: list[Path] = []
    for root in [state] if state is not None else [home / ".openclaw", home / ".clawdbot"]:
        agents = root / "agents"
        if agents.is_dir():
            out += sorted(p / "agent" / "openclaw-agent.sqlite" for p in agents.iterdir()
                          if p.is_dir())
    return out


def aider_files(home: Path, env: Mapping[str, str]) -> list[Path]:
    named = _env_path(env, "AIDER_CHAT_HISTORY_FILE")
    out = [named] if named is not None else []
    out += [root / ".aider.chat.history.md" for root in project_roots(home, env)]
    return list(dict.fromkeys(out))


def opencode_files(home: Path, env: Mapping[str, str]) -> list[Path]:
    return [_data_home(home, env) / "opencode" / "opencode.db"]


def cursor_dirs(home: Path, env: Mapping[str, str]) -> list[Path]:
    return [(_env_path(env, "CURSOR_CONFIG_DIR") or home / ".cursor") / "projects"]


def cline_dirs(home: Path, env: Mapping[str, str]) -> list[Path]:
    bases = [home / ".config", home / "Library" / "Application Support"]
    appdata = _env_path(env, "APPDATA")
    if appdata is not None:
        bases.append(appdata)
    out = [base / editor / "User" / "globalStorage" / ext / "tasks"
           for base in bases for editor in _EDITORS for ext in _EXTENSIONS]
    out.append(home / ".cline" / "data" / "tasks")
    return out


def kimi_dirs(home: Path, env: Mapping[str, str]) -> list[Path]:
    return [(_env_path(env, "KIMI_SHARE_DIR") or home / ".kimi") / "sessions"]


def amp_dirs(home: Path, env: Mapping[str, str]) -> list[Path]:
    return [_data_home(home, env) / "amp" / "threads"]


def continue_dirs(home: Path, env: Mapping[str, str]) -> list[Path]:
    return [(_env_path(env, "CONTINUE_GLOBAL_DIR") or home / ".continue") / "sessions"]
