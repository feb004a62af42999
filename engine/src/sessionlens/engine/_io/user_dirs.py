"""The per-user cache folder, resolved by the same rule as the app's (``gui/paths.py``).

The command line writes a search index there; ``--basedir DIR`` moves it to ``DIR/cache``
exactly as it moves the GUI's, so the two faces share one index. Nothing is resolved at
import time.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["APP_NAME", "user_cache_dir"]

APP_NAME = "SessionLens"


def user_cache_dir(basedir: Path | str | None = None) -> Path:
    """``DIR/cache`` when ``basedir`` is given, else platformdirs' cache folder for the app."""
    if basedir is not None:
        return Path(basedir).expanduser().resolve() / "cache"
    import platformdirs

    return Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False))
