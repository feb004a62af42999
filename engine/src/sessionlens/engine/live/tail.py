"""Following one transcript file as its agent appends to it.

An agent appends whole lines; a compaction that rewrites the file, a truncation, a new file
under the old name or a removal must not be taken for an append. ``FileMark`` remembers what
was read (size, inode, how far complete lines go, a digest of the first bytes) and
``follow`` answers, from a ``stat`` and at most two small reads, what changed since: the new
complete lines, or that the file must be read again from the start. A half-written last
line waits until its newline arrives.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

__all__ = ["FileMark", "TailChange", "follow", "mark_file"]

#: Bytes at the start of the file whose digest tells an append from a rewrite.
HEAD_BYTES = 4096

ChangeKind = Literal["none", "appended", "rewritten", "removed"]


@dataclass(frozen=True, slots=True)
class FileMark:
    """How far a file was read: complete lines up to ``complete_to`` (``lines`` of them)."""

    size: int
    ino: int
    mtime_ns: int
    complete_to: int
    lines: int
    head_digest: str


@dataclass(frozen=True, slots=True)
class TailChange:
    """What ``follow`` found. For ``appended``: the new complete lines (``data``, each ending
    with a newline), the file offset they start at and the 1-based number of the first."""

    kind: ChangeKind
    mark: FileMark | None
    data: bytes = b""
    offset: int = 0
    first_line: int = 0


def _digest(head: bytes) -> str:
    return hashlib.blake2b(head[:HEAD_BYTES], digest_size=16).hexdigest()


def mark_file(path: Path) -> FileMark:
    """A mark for the file as it is now: every complete line counted as read."""
    st = os.stat(path)
    with open(path, "rb") as fh:
        data = fh.read(st.st_size)
    complete_to = data.rfind(b"\n") + 1
    lines = data.count(b"\n", 0, complete_to)
    return FileMark(st.st_size, st.st_ino, st.st_mtime_ns, complete_to, lines,
                    _digest(data[:complete_to]))


def follow(path: Path, mark: FileMark) -> TailChange:
    """What changed in ``path`` since ``mark``: nothing, appended complete lines, a rewrite
    (another inode, fewer bytes than were read, or other first bytes), or a removal."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return TailChange("removed", None)
    if st.st_ino != mark.ino or st.st_size < mark.complete_to:
        return TailChange("rewritten", None)
    if st.st_size == mark.size and st.st_mtime_ns == mark.mtime_ns:
        return TailChange("none", mark)
    with open(path, "rb") as fh:  # one open: the head to compare, then the new bytes
        head = fh.read(min(mark.complete_to, HEAD_BYTES))
        if mark.complete_to and _digest(head) != mark.head_digest:
            return TailChange("rewritten", None)
        fh.seek(mark.complete_to)
        fresh = fh.read(st.st_size - mark.complete_to)
    end = fresh.rfind(b"\n") + 1
    data = fresh[:end]
    digest = (_digest(head + data[:HEAD_BYTES]) if mark.complete_to < HEAD_BYTES and end
              else mark.head_digest)
    moved = FileMark(st.st_size, st.st_ino, st.st_mtime_ns, mark.complete_to + end,
                     mark.lines + data.count(b"\n"), digest)
    if not data:
        return TailChange("none", moved)
    return TailChange("appended", moved, data, mark.complete_to, mark.lines + 1)
