"""Provider profiles kept in a JSON file under the config dir.

A profile names an endpoint, a model and the *environment variable* that holds its key;
the key itself is never written to this file (or any other). When the optional ``keyring``
package is installed, keys can live in the OS keyring instead, stored and read back by the
engine under the profile's name (``store_api_key``; every provider reads it from there).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from sessionlens.engine import (
    OFFLINE_PROFILE,
    ProviderProfile,
    atomic_write_text,
    keyring_available,
    store_api_key,
)

__all__ = ["keyring_available", "load_profiles", "save_profiles", "store_key_in_keyring"]
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


def store_key_in_keyring(profile_name: str, key: str) -> None:
    """Put a key in the OS keyring, where the profile's provider reads it back."""
    store_api_key(profile_name, key)
