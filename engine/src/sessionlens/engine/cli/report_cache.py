"""``inspect``'s answers kept for a file opened again unchanged, so it is not loaded again.

Why: of the two seconds ``inspect`` takes on an unchanged 100 MB session the second time, the
exact counts were already remembered (``tokens.count_cache``); the load itself is half, and
no cache of parsed entries reads back faster than the file parses (a pickle of them took
longer). The answer, though, is a pure function of what it was worked out from, so it is kept,
and used again only when all of that is the same:

- the transcript's bytes (their SHA-256, taken again on every use; the file's size, mtime and
  inode only choose which kept answer to check);
- the options, the ``openclaw.json`` settings that govern the file (read again each time), and
  the bytes of the session store the report reads;
- the engine's code (its modules' sizes and mtimes; the executable where there are no files).

Only pi / OpenClaw files are kept (other agents' adapters may read files beside the one
named), and nothing is used or kept when something beside the file needs a load's own care
(the journal of an interrupted write, temp or lock files of ours), or when the run warned.
One small JSON file per answer in the cache folder, the newest ``MAX_REPORTS`` kept; safe to
delete; a file that cannot be read or written only means the answer is worked out.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

from sessionlens.engine._io.atomic import atomic_write_bytes
from sessionlens.engine._io.private import PRIVATE_FILE_MODE, private_folder
from sessionlens.engine.errors import SessionLensError
from sessionlens.engine.persist.recovery import needs_recovery
from sessionlens.engine.persist.store_write import find_store
from sessionlens.engine.persist.successor import PI_FORMATS

__all__ = ["FOLDER_NAME", "MAX_REPORTS", "ReportCache", "engine_code_digest"]

#: The folder in the cache folder that holds the kept answers.
FOLDER_NAME = "inspect-reports"
#: Answers kept (~30 KB each); the oldest go first.
MAX_REPORTS = 128
#: Bumped when what is kept changes shape.
FORMAT_VERSION = 1

_code_digest: str | None = None


def engine_code_digest() -> str:
    """What identifies the engine's code as loaded: every ``sessionlens.engine`` module's
    name, size and mtime (a frozen app: its executable's), hashed once per process."""
    global _code_digest
    if _code_digest is None:
        h = hashlib.blake2b(digest_size=16)
        h.update(sys.version.encode())
        for name in sorted(n for n in sys.modules if n.startswith("sessionlens.engine")):
            file = getattr(sys.modules[name], "__file__", None)
            try:
                st = os.stat(file) if file else None
            except OSError:
                st = None
            h.update(f"{name}:{st.st_size}:{st.st_mtime_ns};".encode() if st else name.encode())
        if getattr(sys, "frozen", False):
            st = os.stat(sys.executable)
            h.update(f"exe:{st.st_size}:{st.st_mtime_ns}".encode())
        _code_digest = h.hexdigest()
    return _code_digest


def _file_sha256(file: Path) -> str | None:
    try:
        with open(file, "rb") as fh:
            return hashlib.file_digest(fh, "sha256").hexdigest()
    except OSError:
        return None


class ReportCache:
    """The kept answers for one ``inspect`` invocation (``key`` None: nothing to keep)."""

    def __init__(self, folder: Path, file: Path, options: dict[str, Any],
                 settings_text: str | None) -> None:
        """``options``: what of the command line shapes the answer; ``settings_text`` the
        governing settings as text (None when they could not be read: nothing is kept)."""
        self.folder = Path(folder) / FOLDER_NAME
        self.file = Path(file).absolute()
        self._stat: tuple[int, int] | None = None
        self.key = self._key({**options, "as_given": str(file)}, settings_text)
        self.hit = False

    def _key(self, options: dict[str, Any], settings_text: str | None) -> str | None:
        if settings_text is None or needs_recovery(self.file):
            return None
        try:
            st = self.file.stat()
        except OSError:
            return None
        store = options.get("store")
        store_path = Path(store) if store else find_store(self.file.parent)
        store_hash = None
        if store_path is not None:
            try:
                store_hash = hashlib.sha256(store_path.read_bytes()).hexdigest()
            except OSError:
                return None  # a store the report cannot read: the run warns or fails
        self._stat = (st.st_size, st.st_mtime_ns)
        parts = [FORMAT_VERSION, engine_code_digest(), str(self.file), st.st_size,
                 st.st_mtime_ns, st.st_ino, sorted(options.items()), settings_text,
                 str(store_path), store_hash]
        return hashlib.blake2b(json.dumps(parts, default=str).encode(),
                               digest_size=20).hexdigest()

    def _path(self) -> Path:
        return self.folder / f"{self.key}.json"

    def get(self) -> dict[str, Any] | None:
        """The kept answer, if there is one and the file's bytes are still the ones it
        describes; sets ``hit``."""
        if self.key is None:
            return None
        try:
            kept = json.loads(self._path().read_bytes())
        except (OSError, ValueError):
            return None
        if not isinstance(kept, dict) or kept.get("sha256") != _file_sha256(self.file):
            return None
        self.hit = True
        return kept

    def put(self, sha256: str, size: int, fmt: str, answer: dict[str, Any]) -> None:
        """Keep ``answer`` for the ``size`` bytes hashed ``sha256``, unless the file changed
        since the key was made (a file that grew while it loaded); never raises."""
        if self.key is None or not sha256 or fmt not in PI_FORMATS:
            return
        try:
            st = self.file.stat()
            if self._stat != (st.st_size, st.st_mtime_ns) or size != st.st_size:
                return
            private_folder(self.folder, parents=1)  # reports quote the transcript's text
            atomic_write_bytes(self._path(), json.dumps(
                {**answer, "sha256": sha256}, ensure_ascii=False).encode(),
                mode=PRIVATE_FILE_MODE)
            kept = sorted(self.folder.glob("*.json"), key=lambda p: p.stat().st_mtime_ns)
            for old in kept[:-MAX_REPORTS]:
                old.unlink(missing_ok=True)
        except (OSError, SessionLensError):
            return  # an answer not kept is only worked out again next time
