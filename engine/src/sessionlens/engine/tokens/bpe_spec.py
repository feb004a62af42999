"""tiktoken's constructor arguments for an encoding, kept ready to load (``marshal``).

Why: ``tiktoken.get_encoding("o200k_base")`` decodes 200,000 base64 lines in Python before
its Rust core is built, ~60% of the time a first count waits for the tokenizer. The
arguments tiktoken's own constructor returns (name, pattern, ranks, special tokens) are
written once next to the BPE data and read back in one ``marshal.loads``; the Encoding is
then built from them exactly as ``tiktoken.get_encoding`` builds it.

The file name carries tiktoken's and Python's versions (marshal's format is per Python),
and a BLAKE2b digest of the payload guards against a torn or corrupt file: anything that
does not check out is ignored and rebuilt from tiktoken.
"""

from __future__ import annotations

import hashlib
import marshal
import sys
from pathlib import Path
from typing import Any

from sessionlens.engine._io.atomic import atomic_write_bytes
from sessionlens.engine.errors import PersistError

__all__ = ["read_spec", "spec_path", "write_spec"]

_DIGEST = 32


def spec_path(folder: Path, name: str, tiktoken_version: str) -> Path:
    """Where the arguments of ``name`` for this tiktoken and this Python are kept."""
    py = f"{sys.version_info[0]}{sys.version_info[1]}"
    return folder / f"{name}.tiktoken-{tiktoken_version}.py{py}.m{marshal.version}.spec"


def read_spec(path: Path, name: str) -> dict[str, Any] | None:
    """The kept arguments of ``name``, or None when missing, corrupt or not for ``name``."""
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    digest, payload = raw[:_DIGEST], raw[_DIGEST:]
    if not payload or hashlib.blake2b(payload, digest_size=_DIGEST).digest() != digest:
        return None
    try:
        spec = marshal.loads(payload)
    except (EOFError, ValueError, TypeError):
        return None
    ok = (isinstance(spec, dict) and spec.get("name") == name
          and isinstance(spec.get("pat_str"), str)
          and isinstance(spec.get("mergeable_ranks"), dict) and spec["mergeable_ranks"]
          and isinstance(spec.get("special_tokens"), dict))
    return spec if ok else None


def write_spec(path: Path, spec: dict[str, Any]) -> bool:
    """Keep ``spec`` for next time; False (and nothing left behind) if it cannot be written."""
    payload = marshal.dumps(spec)
    try:
        atomic_write_bytes(path, hashlib.blake2b(payload, digest_size=_DIGEST).digest() + payload)
    except (OSError, PersistError):
        return False
    return True
