"""Where a provider's API key comes from: the environment, else the OS keyring.

Keys are read at call time and never kept, written to settings, logs, exports or
transcripts. The optional ``keyring`` package holds keys under the service name
``SessionLens`` and the profile's name; the app stores them there and every provider reads
them back from there (the environment variable, when set, wins).
"""

from __future__ import annotations

import importlib
import os
from typing import Any

__all__ = ["KEYRING_SERVICE", "keyring_available", "read_key", "store_api_key"]

KEYRING_SERVICE = "SessionLens"


def _keyring() -> Any | None:
    try:
        return importlib.import_module("keyring")
    except ImportError:
        return None


def keyring_available() -> bool:
    """True when the optional ``keyring`` package is installed."""
    return _keyring() is not None


def read_key(profile_name: str, key_env: str | None) -> str | None:
    """The key for a profile: ``$key_env`` if set, else the keyring entry, else None."""
    if key_env:
        value = os.environ.get(key_env, "").strip()
        if value:
            return value
    kr = _keyring()
    if kr is None:
        return None
    try:
        stored = kr.get_password(KEYRING_SERVICE, profile_name)
    except Exception:  # a locked or absent keyring backend: no key, not a crash
        return None
    return stored.strip() if isinstance(stored, str) and stored.strip() else None


def store_api_key(profile_name: str, key: str) -> None:
    """Put a key in the OS keyring (raises ``ConfigError`` when there is no keyring)."""
    from sessionlens.engine.errors import ConfigError

    kr = _keyring()
    if kr is None:
        raise ConfigError("the optional keyring package is not installed (pip install keyring)")
    kr.set_password(KEYRING_SERVICE, profile_name, key)
