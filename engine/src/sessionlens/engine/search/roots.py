"""The folders and files a user added to the search, kept beside the index in ``roots.json``.

They are the user's choice, not cache: the index itself may be thrown away and rebuilt at
any time (corrupt, older schema), so they are never stored inside it. Writes are atomic.
"""

from __future__ import annotations

import json
from pathlib import Path

from sessionlens.engine._io.atomic import atomic_write_text
from sessionlens.engine.errors import ConfigError

__all__ = ["ROOTS_FILE", "add_root", "read_roots", "remove_root"]

ROOTS_FILE = "roots.json"


def read_roots(folder: Path) -> list[Path]:
    """The added folders/files, in the order they were added (missing file: none)."""
    path = folder / ROOTS_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{path}: cannot read the search folders: {exc}") from exc
    items = data.get("roots") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise ConfigError(f"{path}: expected {{\"roots\": [...]}}")
    return [Path(p) for p in items if isinstance(p, str) and p]


def _write(folder: Path, roots: list[Path]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    body = json.dumps({"roots": [str(p) for p in roots]}, indent=2, ensure_ascii=False)
    atomic_write_text(folder / ROOTS_FILE, body + "\n")


def add_root(folder: Path, root: Path | str) -> list[Path]:
    """Add a folder or file (absolute, once); returns the new list."""
    p = Path(root).expanduser().resolve()
    roots = read_roots(folder)
    if p not in roots:
        roots.append(p)
        _write(folder, roots)
    return roots


def remove_root(folder: Path, root: Path | str) -> list[Path]:
    """Drop a folder or file from the list; returns the new list."""
    p = Path(root).expanduser().resolve()
    roots = [r for r in read_roots(folder) if r != p]
    _write(folder, roots)
    return roots
