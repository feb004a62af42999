"""``sessionlens integrate AGENT``: the config edits and files that put SessionLens in an agent.

Nothing is touched unless asked: ``plan_changes`` only computes every change (the file,
what it holds now, what it would hold), ``--dry-run`` prints them, ``apply_changes`` makes
them: each file that exists is first copied beside itself
(``NAME.sessionlens-backup-YYYYmmddTHHMMSSZ``), then replaced atomically. ``--uninstall``
plans the reverse edits the same way (our entries out, the user's left as they are).

- pi: ``<agent dir>/extensions/sessionlens.js`` (the package's extension) and
  ``<agent dir>/sessionlens.json`` (the channel's command, deadline and journal);
- OpenClaw: ``openclaw.json``: the plugin's folder in ``plugins.load.paths``, its entry
  (enabled, config) in ``plugins.entries.sessionlens``, ``plugins.allow`` when the user keeps
  an allow list, and ``agents.defaults.compaction.provider = "sessionlens"``. A file with
  comments (JSON5) is refused: rewriting it would drop them;
- Claude Code: ``~/.claude/settings.json``: a PreCompact and a PostCompact command hook;
- Codex: ``config.toml``'s ``experimental_compact_prompt_file`` (a prompt file holding the
  user's standing focus, local compaction only), a PostCompact command hook in
  ``hooks.json`` (notify only: it audits the summary Codex wrote), and in config.toml the
  trust of that hook, without which Codex never runs them
  (``codex_trust``).
"""

from __future__ import annotations

import difflib
import json
import os
import re
import shlex
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from sessionlens.engine._io.atomic import atomic_copy, atomic_write_text
from sessionlens.engine._io.folders import UserFolders
from sessionlens.engine.errors import ConfigError

from . import codex_trust
from .journal import journal_path
from .preferences import DEFAULT_DEADLINE_S, load_prefs

__all__ = ["AGENTS", "INTEGRATION_AGENTS", "FileChange", "apply_changes", "packaging_dir", "plan_changes"]

AGENTS = ("pi", "openclaw", "claude-code", "codex")
#: The agents ``integrate`` knows (the engine's public name for ``AGENTS``).
INTEGRATION_AGENTS = AGENTS
Agent = Literal["pi", "openclaw", "claude-code", "codex"]
_MARK = "sessionlens"


@dataclass(frozen=True, slots=True)
class FileChange:
    """One file the integration writes: None before = created, None after = removed."""

    path: Path
    before: str | None
    after: str | None
    why: str

    @property
    def action(self) -> str:
        if self.before is None:
            return "create"
        return "remove" if self.after is None else "edit"

    def diff_lines(self, now: str = "now", after: str = "after") -> list[str]:
        """The change as a unified diff, a line each (what ``--dry-run`` and the app show)."""
        return [d.rstrip("\n") for d in difflib.unified_diff(
            (self.before or "").splitlines(True), (self.after or "").splitlines(True),
            now, after)]


def packaging_dir() -> Path:
    """``packaging/integrations`` of this source tree (the pi and OpenClaw packages)."""
    here = Path(__file__).resolve()
    for parent in here.parents:
        candidate = parent / "packaging" / "integrations"
        if candidate.is_dir():
            return candidate
    raise ConfigError("packaging/integrations not found beside this SessionLens "
                      f"({here}); install from a source tree")


def _read(path: Path) -> str | None:
    try:
        return path.read_text("utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from exc


def _json(path: Path, text: str | None) -> dict[str, Any]:
    if text is None or not text.strip():
        return {}
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}:{exc.lineno}: not plain JSON ({exc.msg}); SessionLens "
                          "does not rewrite a file with comments: edit it by hand") from exc
    if not isinstance(obj, dict):
        raise ConfigError(f"{path}:1: expected a JSON object")
    return obj


def _dump(obj: dict[str, Any]) -> str:
    return json.dumps(obj, indent=2, ensure_ascii=False) + "\n"


def _change(path: Path, before: str | None, after: str | None, why: str) -> list[FileChange]:
    return [] if before == after else [FileChange(path, before, after, why)]


def _command(folders: UserFolders, *words: str) -> list[str]:
    import sys

    argv = [sys.executable, "-m", "sessionlens.engine.cli", *words]
    return argv + (["--basedir", str(folders.basedir)] if folders.basedir else [])


def _deadline_ms(folders: UserFolders) -> int:
    # the agent side waits a little longer than the engine's own deadline
    return int((load_prefs(folders.config).deadline_s or DEFAULT_DEADLINE_S) * 1000) + 5000


def _pi(home: Path, folders: UserFolders, uninstall: bool) -> list[FileChange]:
    agent = Path(os.environ.get("PI_CODING_AGENT_DIR") or home / ".pi" / "agent")
    ext, cfg = agent / "extensions" / "sessionlens.js", agent / "sessionlens.json"
    if uninstall:
        return [*_change(ext, _read(ext), None, "the SessionLens extension"),
                *_change(cfg, _read(cfg), None, "its configuration")]
    source = (packaging_dir() / "pi" / "sessionlens.js").read_text("utf-8")
    config = _dump({"command": _command(folders, "compact-for-agent"),
                    "deadline_ms": _deadline_ms(folders),
                    "journal": str(journal_path(folders.state))})
    return [*_change(ext, _read(ext), source, "pi loads extensions from here by itself"),
            *_change(cfg, _read(cfg), config, "the channel the extension calls")]


def _openclaw(home: Path, folders: UserFolders, uninstall: bool) -> list[FileChange]:
    state = Path(os.environ.get("OPENCLAW_STATE_DIR") or home / ".openclaw")
    path = Path(os.environ.get("OPENCLAW_CONFIG_PATH") or state / "openclaw.json")
    before = _read(path)
    cfg = _json(path, before)
    plugin_dir = str(packaging_dir() / "openclaw")
    plugins = cfg.setdefault("plugins", {})
    load = plugins.setdefault("load", {})
    paths = [p for p in load.get("paths", []) if p != plugin_dir]
    entries = plugins.setdefault("entries", {})
    compaction = cfg.setdefault("agents", {}).setdefault("defaults", {}).setdefault(
        "compaction", {})
    allow = plugins.get("allow")
    if uninstall:
        entries.pop(_MARK, None)
        if isinstance(allow, list):
            plugins["allow"] = [a for a in allow if a != _MARK]
        if compaction.get("provider") == _MARK:
            compaction.pop("provider")
    else:
        paths.append(plugin_dir)
        entries[_MARK] = {"enabled": True, "config": {
            "command": _command(folders, "compact-for-agent"),
            "deadline_ms": _deadline_ms(folders), "journal": str(journal_path(folders.state))}}
        if isinstance(allow, list) and _MARK not in allow:
            plugins["allow"] = [*allow, _MARK]
        compaction["provider"] = _MARK
    load["paths"] = paths
    return _change(path, before, _dump(_pruned(cfg)), "the plugin, its channel, and "
                   "agents.defaults.compaction.provider")


def _pruned(obj: Any) -> Any:
    """``obj`` without the empty objects/lists this module created."""
    if isinstance(obj, dict):
        out = {k: _pruned(v) for k, v in obj.items()}
        return {k: v for k, v in out.items() if v not in ({}, [])}
    return obj


def _hook_file(path: Path, folders: UserFolders, agent: str, uninstall: bool,
               events: tuple[str, ...] = ("PreCompact", "PostCompact")) -> list[FileChange]:
    """Our command hooks for ``events`` in ``path`` (``--uninstall``: ours out of both)."""
    before = _read(path)
    cfg = _json(path, before)
    hooks = cfg.setdefault("hooks", {})
    for event, name in (("PreCompact", "pre-compact"), ("PostCompact", "post-compact")):
        groups = [g for g in hooks.get(event, []) if not _ours(g)]
        if not uninstall and event in events:
            groups.append({"matcher": "", "hooks": [{
                "type": "command", "timeout": 60,
                "command": shlex.join(_command(folders, "hook", agent, name))}]})
        hooks[event] = groups
    return _change(path, before, _dump(_pruned(cfg)), f"{agent}'s compaction hooks")


def _ours(group: Any) -> bool:
    if not isinstance(group, dict):
        return False
    return any(isinstance(h, dict) and "sessionlens" in str(h.get("command", ""))
               and " hook " in f" {h.get('command', '')} " for h in group.get("hooks", []))


_TOML_KEY = re.compile(r"^experimental_compact_prompt_file\s*=.*$", re.M)


def _codex(home: Path, folders: UserFolders, uninstall: bool) -> list[FileChange]:
    codex_home = Path(os.environ.get("CODEX_HOME") or home / ".codex")
    toml, prompt = codex_home / "config.toml", folders.config / "codex-compact-prompt.md"
    # PostCompact only: Codex's PreCompact is notify-only too and would have nothing to do
    hooks = _hook_file(codex_home / "hooks.json", folders, "codex", uninstall, ("PostCompact",))
    before = _read(toml)
    text = codex_trust.without_trust(before or "")
    ours = f'experimental_compact_prompt_file = {json.dumps(str(prompt))}  # {_MARK}'
    existing = _TOML_KEY.search(text)
    if existing and _MARK not in existing.group(0) and not uninstall:
        raise ConfigError(f"{toml}: experimental_compact_prompt_file is set already "
                          f"({existing.group(0).strip()}); SessionLens leaves it alone")
    text = _TOML_KEY.sub("", text) if existing and _MARK in existing.group(0) else text
    text = text.lstrip("\n")
    if not uninstall:   # a top-level key goes before the first [table]; the trust at the end
        text = f"{ours}\n{text}"
        hooks_after = hooks[0].after if hooks else _read(codex_home / "hooks.json")
        text = codex_trust.with_trust(toml, text, _trust(codex_home, hooks_after, text))
    changes = _change(toml, before, text if text.strip() or before else None,
                      "Codex's local compaction prompt, and the trust Codex asks before it "
                      "runs SessionLens's hooks")
    focus = load_prefs(folders.config).focus.strip()
    body = None if uninstall else (
        "You are compacting a coding session so that work can continue from your summary "
        "alone. Keep every file path, command, identifier, decision and open task exactly "
        "as written; say what the user asked last and what is left to do."
        + (f"\n\nThe user's standing focus: {focus}" if focus else "") + "\n")
    changes += _change(prompt, _read(prompt), body, "the prompt the config points at")
    return changes + hooks


def _trust(codex_home: Path, hooks_json: str | None, toml_text: str) -> str:
    """The trust block for our hooks in ``hooks_json``, less those config.toml already
    trusts with the same hash (the user trusted them in Codex's own review)."""
    hooks_path = codex_home / "hooks.json"
    entries = list(codex_trust.ours_in(_json(hooks_path, hooks_json), _ours))
    try:
        state = tomllib.loads(toml_text).get("hooks", {}).get("state", {})
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{codex_home / 'config.toml'}: not TOML ({exc})") from exc
    where = str(hooks_path.resolve())
    entries = [e for e in entries if not (
        isinstance(state, dict) and isinstance(s := state.get(f"{where}:{e[0]}:{e[1]}:{e[2]}"),
                                                dict) and s.get("trusted_hash") == e[3])]
    return codex_trust.trust_block(hooks_path, entries) if entries else ""


def plan_changes(agent: str, folders: UserFolders, *, home: Path | None = None,
                 uninstall: bool = False) -> list[FileChange]:
    """Every file change ``integrate AGENT`` (or ``--uninstall``) would make."""
    home = home or Path.home()
    if agent == "pi":
        return _pi(home, folders, uninstall)
    if agent == "openclaw":
        return _openclaw(home, folders, uninstall)
    if agent == "claude-code":
        return _hook_file(home / ".claude" / "settings.json", folders, "claude-code",
                          uninstall)
    if agent == "codex":
        return _codex(home, folders, uninstall)
    raise ConfigError(f"unknown agent {agent!r} (one of {', '.join(AGENTS)})")


def apply_changes(changes: Sequence[FileChange], *, now: datetime | None = None) -> list[Path]:
    """Make ``changes``: a backup of each existing file first, then an atomic replace (or
    the removal). Returns the backups made."""
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%dT%H%M%SZ")
    backups: list[Path] = []
    for c in changes:
        if c.before is not None:
            backup = c.path.with_name(f"{c.path.name}.sessionlens-backup-{stamp}")
            atomic_copy(c.path, backup, exclusive=False)
            backups.append(backup)
        if c.after is None:
            c.path.unlink(missing_ok=True)
        else:
            c.path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(c.path, c.after)
    return backups
