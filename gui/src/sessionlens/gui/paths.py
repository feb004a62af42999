"""Where the app keeps its files, resolved once at start-up.

Nothing is resolved at import time: ``AppPaths.resolve`` runs in the composition root, so a
test (or a user with ``--basedir DIR``) can redirect every directory before anything is
written. Engine functions receive these paths explicitly.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

APP_ORG = "sessionlens"


@dataclass(frozen=True, slots=True)
class AppPaths:
    """Every directory the GUI writes to; ``basedir`` is set when they were redirected."""

    config_dir: Path
    data_dir: Path
    cache_dir: Path
    state_dir: Path
    basedir: Path | None = None

    @property
    def settings_file(self) -> Path:
        """The QSettings INI file (one file, so tests and --basedir can sandbox it)."""
        return self.config_dir / "sessionlens.ini"

    @property
    def profiles_file(self) -> Path:
        """Provider profiles (names, URLs, models, env var names; never keys)."""
        return self.config_dir / "profiles.json"

    @property
    def tiktoken_cache(self) -> Path:
        return self.cache_dir / "tiktoken"

    @classmethod
    def resolve(cls, basedir: Path | str | None = None) -> AppPaths:
        """Resolve from platformdirs, or put everything under ``basedir`` (the engine's rule,
        so the CLI's ``--basedir`` finds the same cache)."""
        from sessionlens.engine import user_folders

        f = user_folders(basedir)
        return cls(f.config, f.data, f.cache, f.state, f.basedir)

    def ensure(self) -> AppPaths:
        """Create the directories (called once by the composition root)."""
        for d in (self.config_dir, self.data_dir, self.cache_dir, self.state_dir):
            d.mkdir(parents=True, exist_ok=True)
        return self


def bundled_sample_path() -> Path:
    """The sample session shipped inside the GUI package (opened on first launch)."""
    from importlib import resources

    return Path(str(resources.files("sessionlens.gui") / "assets" / "sample" / "sample-session.jsonl"))
