"""A transcript's first line, read as its ``session`` header without loading the file (what
the chain, the graph and a restore's repointing look at)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

__all__ = ["read_header"]

_HEADER_LIMIT = 1 << 20


def read_header(path: Path) -> dict[str, Any] | None:
    """The first line of a transcript as a dict when it is a ``session`` header."""
    try:
        with open(path, "rb") as fh:
            head = fh.readline(_HEADER_LIMIT)
    except OSError:
        return None
    try:
        obj = orjson.loads(head.lstrip(b"\xef\xbb\xbf"))
    except orjson.JSONDecodeError:
        return None
    return obj if isinstance(obj, dict) and obj.get("type") == "session" else None
