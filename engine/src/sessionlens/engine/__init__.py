"""SessionLens engine: the Qt-free core (load, count, plan, summarize, audit, persist, export).

The GUI and the CLI import only the names re-exported here. Each engine module lists its
public names in ``__all__``; this package resolves them on first use, so importing
``sessionlens.engine`` stays cheap (no tokenizer, no httpx until needed).
"""

from __future__ import annotations

import importlib
from typing import Any

#: Modules whose ``__all__`` make up the public surface, in lookup order.
_PUBLIC_MODULES = (
    "errors", "model", "load", "tree", "discovery", "tokens", "settings", "overflow",
    "plan", "chunks", "forensics", "pruning", "prompts", "serialize", "providers", "compaction",
    "summarize", "identifiers", "audit", "audit_successor", "dropped", "quality", "export", "persist",
    "successor", "checkpoints", "store", "chain", "secrets", "lineage", "drift",
    "lineage_diff",
)

_cache: dict[str, Any] = {}


def _public_modules() -> list[Any]:
    mods = []
    for name in _PUBLIC_MODULES:
        try:
            mods.append(importlib.import_module(f"{__name__}.{name}"))
        except ModuleNotFoundError as exc:  # a module not written yet
            if exc.name != f"{__name__}.{name}":
                raise
    return mods


def __getattr__(name: str) -> Any:
    if name in _cache:
        return _cache[name]
    for mod in _public_modules():
        if name in getattr(mod, "__all__", ()):
            value = getattr(mod, name)
            _cache[name] = value
            return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def public_names() -> list[str]:
    """Every public name, sorted (used by the exported-members test)."""
    names: set[str] = set()
    for mod in _public_modules():
        names.update(getattr(mod, "__all__", ()))
    return sorted(names)
