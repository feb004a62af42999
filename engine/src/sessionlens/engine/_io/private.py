"""Files that hold transcript text outside the transcripts (the search index, inspect
reports, token counts) are no more readable than the transcripts: 0600 files in 0700
folders (issue 39 item 15: the index was 0644 in a 0755 folder beside 0600 transcripts).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

__all__ = ["PRIVATE_FILE_MODE", "PRIVATE_FOLDER_MODE", "private_file", "private_folder"]

PRIVATE_FOLDER_MODE = 0o700
PRIVATE_FILE_MODE = 0o600


def private_folder(folder: Path, *, parents: int = 0) -> Path:
    """``folder`` (made if missing) and its ``parents`` nearest parents, which must be
    SessionLens's own cache folders, readable by the owner only."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True, mode=PRIVATE_FOLDER_MODE)
    for level in [folder, *list(folder.parents)[:parents]]:
        with contextlib.suppress(OSError):
            if level.stat().st_mode & 0o077:
                os.chmod(level, PRIVATE_FOLDER_MODE)
    return folder


def private_file(path: Path) -> Path:
    """``path`` as an owner-only file: made empty if missing, narrowed if it exists (SQLite
    gives its -wal and -shm files the mode of the database file)."""
    path = Path(path)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT, PRIVATE_FILE_MODE)
    except OSError:
        return path
    # narrowing is best effort: a file system without Unix modes (or a file owned by
    # someone else) refuses fchmod, and the file is still usable as it is
    try:
        with contextlib.suppress(OSError):
            if os.fstat(fd).st_mode & 0o077:
                os.fchmod(fd, PRIVATE_FILE_MODE)
    finally:
        os.close(fd)
    return path
