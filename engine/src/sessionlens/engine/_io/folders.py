"""Where SessionLens keeps its own files: one rule for the app and the command line.

platformdirs gives the per-user folders; ``--basedir DIR`` (the app's and every subcommand's)
puts them all under DIR instead, which is how tests and sandboxed runs keep the user's real
folders untouched. Nothing is created here: callers create what they write to, and a
folder that cannot be created is the caller's fallback case, not an error of this module.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["APP_NAME", "UserFolders", "user_folders"]

APP_NAME = "SessionLens"


@dataclass(frozen=True, slots=True)
class UserFolders:
    """The four per-user folders; ``basedir`` is set when they were redirected."""

    config: Path
    data: Path
    cache: Path
    state: Path
    basedir: Path | None = None


def user_folders(basedir: Path | str | None = None) -> UserFolders:
    """The folders platformdirs picks for SessionLens, or ``basedir``'s sub-folders."""
    if basedir is not None:
        root = Path(basedir).expanduser().resolve()
        return UserFolders(root / "config", root / "data", root / "cache", root / "state", root)
    import platformdirs  # only when the real folders are asked for

    return UserFolders(
        Path(platformdirs.user_config_dir(APP_NAME, appauthor=False)),
        Path(platformdirs.user_data_dir(APP_NAME, appauthor=False)),
        Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False)),
        Path(platformdirs.user_state_dir(APP_NAME, appauthor=False)),
    )
