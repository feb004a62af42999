"""Provider profiles kept in a JSON file under the config dir.

A profile names an endpoint, a model and the *environment variable* that holds its key;
the key itself is never written to this file (or any other). When the optional ``keyring``
package is installed, keys can live in the OS keyring instead, looked up by profile name.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from sessionlens.engine import OFFLINE_PROFILE, ProviderProfile, atomic_write_text

KEYRING_SERVICE = "SessionLens"
_FIELDS = ("name", "kind", "base_url", "model", "context_window", "max_output_tokens",
           "temperature", "timeout_s", "key_env")


def load_profiles(path: Path) -> list[ProviderProfile]:
    """Profiles from ``path``; the offline profile is always first and always present."""
    out: list[ProviderProfile] = [OFFLINE_PROFILE]
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return out
    for item in raw.get("profiles", []) if isinstance(raw, dict) else []:
        if not isinstance(item, dict) or item.get("name") == OFFLINE_PROFILE.name:
            continue
        fields = {k: item[k] for k in _FIELDS if k in item}
        try:
            out.append(ProviderProfile(**fields))
        except TypeError:
            continue
    return out


def save_profiles(path: Path, profiles: list[ProviderProfile]) -> None:
    """Write every profile but the built-in offline one (atomic; no key can be in here)."""
    items: list[dict[str, Any]] = []
    for p in profiles:
        if p.name == OFFLINE_PROFILE.name:
            continue
        items.append({k: v for k, v in dataclasses.asdict(p).items() if k in _FIELDS})
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps({"profiles": items}, indent=2) + "\n")


def keyring_available() -> bool:
    try:
        import keyring  # noqa: F401
    except ImportError:
        return False
    return True


def store_key_in_keyring(profile_name: str, key: str) -> None:
    """Put a key in the OS keyring (only offered when ``keyring`` is installed)."""
    import keyring

    keyring.set_password(KEYRING_SERVICE, profile_name, key)
