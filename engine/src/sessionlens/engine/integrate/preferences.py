"""What the user chose for compactions run inside their agents (a per-user setting).

``config/integrations.json`` (written by the app's Settings or by hand)::

    {"focus": "Keep every decision about the schema",   # standing focus instructions
     "approve_compactions": false,   # Claude Code: block automatic compactions (exit 2)
     "profile": "work-openai",       # a profile of profiles.json (default: offline)
     "deadline_s": 45,               # SessionLens gives up after this (agents wait longer)
     "template": "structured", "quality_retries": 1, "identifier_policy": "strict",
     "on_audit_failure": "agent"}    # pi: "agent" hands back pi's own summary, "cancel"

The summarizer is a profile of the same ``config/profiles.json`` the app's Settings edit
(names, URLs, models, the *name* of the key's variable; never a key). A file that does not
parse is an error naming it and its line, never a silent default: the user asked for
something and would not get it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from sessionlens.engine.contract.templates import IdentifierPolicy
from sessionlens.engine.errors import ConfigError
from sessionlens.engine.summarize.providers import OFFLINE_PROFILE, ProviderProfile

__all__ = ["DEFAULT_DEADLINE_S", "IntegrationPrefs", "load_prefs", "load_profile",
           "prefs_path"]

#: Claude Code's hooks time out after 60 s and pi waits as long as an extension takes: the
#: engine stops well before so the agent can still run its own summarizer.
DEFAULT_DEADLINE_S = 45.0
_PROFILE_FIELDS = ("name", "kind", "base_url", "model", "context_window", "max_output_tokens",
                   "temperature", "timeout_s", "key_env")
OnAuditFailure = Literal["agent", "cancel"]


@dataclass(frozen=True, slots=True)
class IntegrationPrefs:
    focus: str = ""
    approve_compactions: bool = False
    profile: str = OFFLINE_PROFILE.name
    deadline_s: float = DEFAULT_DEADLINE_S
    template: str = "structured"
    quality_retries: int = 1
    on_audit_failure: OnAuditFailure = "agent"
    identifier_policy: IdentifierPolicy = "strict"


def prefs_path(config_dir: Path) -> Path:
    return Path(config_dir) / "integrations.json"


def _read_json(path: Path) -> Any:
    try:
        text = path.read_text("utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}:{exc.lineno}: not JSON: {exc.msg}") from exc


def load_prefs(config_dir: Path) -> IntegrationPrefs:
    """The user's integration preferences (defaults when there is no file)."""
    path = prefs_path(config_dir)
    raw = _read_json(path)
    if raw is None:
        return IntegrationPrefs()
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}:1: expected a JSON object")
    d = IntegrationPrefs()
    on_fail = raw.get("on_audit_failure", d.on_audit_failure)
    if on_fail not in ("agent", "cancel"):
        raise ConfigError(f"{path}: on_audit_failure must be 'agent' or 'cancel', "
                          f"not {on_fail!r}")
    policy = raw.get("identifier_policy", d.identifier_policy)
    if policy not in ("strict", "off"):
        raise ConfigError(f"{path}: identifier_policy must be 'strict' or 'off', not {policy!r}")
    try:
        return IntegrationPrefs(
            focus=str(raw.get("focus", d.focus) or ""),
            approve_compactions=bool(raw.get("approve_compactions", d.approve_compactions)),
            profile=str(raw.get("profile", d.profile) or d.profile),
            deadline_s=float(raw.get("deadline_s", d.deadline_s)),
            template=str(raw.get("template", d.template)),
            quality_retries=max(0, min(3, int(raw.get("quality_retries", d.quality_retries)))),
            on_audit_failure=on_fail, identifier_policy=policy)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{path}: {exc}") from exc


def load_profile(config_dir: Path, name: str) -> ProviderProfile:
    """The profile ``name`` of ``config/profiles.json`` (the offline one is always there)."""
    if name == OFFLINE_PROFILE.name:
        return OFFLINE_PROFILE
    path = Path(config_dir) / "profiles.json"
    raw = _read_json(path)
    items = raw.get("profiles", []) if isinstance(raw, dict) else []
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict) and item.get("name") == name:
            try:
                return ProviderProfile(**{k: item[k] for k in _PROFILE_FIELDS if k in item})
            except TypeError as exc:
                raise ConfigError(f"{path}: profile {name!r}: {exc}") from exc
    raise ConfigError(f"{path}: no profile named {name!r} (integrations.json asks for it)")
