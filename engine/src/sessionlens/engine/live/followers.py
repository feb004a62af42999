"""What a live session follows: a transcript file's tail or a session of OpenClaw's store.

Both answer the same two questions for ``LiveSession``: ``reset`` (count everything there is
now as read, before a full load) and ``step`` (what changed since, with the appended entries
when they can be read alone). A step that appended is taken with ``accept`` once the session
has used its entries; a reload calls ``reset`` instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from sessionlens.engine.model import Transcript

from .appended import Appended, read_appended, read_store_appended
from .store_tail import StoreMark, follow_store, mark_store, split_store_key
from .tail import ChangeKind, FileMark, follow, mark_file

__all__ = ["FileFollower", "Follower", "Step", "StoreFollower", "follower_for"]


@dataclass(frozen=True, slots=True)
class Step:
    """What changed; ``appended`` is None when the change must be read by a full reload."""

    kind: ChangeKind
    appended: Appended | None = None


class Follower(Protocol):
    def reset(self) -> None: ...

    def step(self, transcript: Transcript, leaf_id: str | None,
             seen: set[str]) -> Step: ...

    def accept(self) -> None: ...


class FileFollower:
    """A JSONL file, followed by byte offsets (``tail.follow``)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.mark: FileMark | None = None
        self._pending: FileMark | None = None

    def reset(self) -> None:
        self.mark = mark_file(self.path)

    def step(self, transcript: Transcript, leaf_id: str | None, seen: set[str]) -> Step:
        assert self.mark is not None
        change = follow(self.path, self.mark)
        if change.kind == "none":
            if change.mark is not None:
                self.mark = change.mark
            return Step("none")
        self._pending = change.mark
        return Step(change.kind, read_appended(transcript, change, leaf_id=leaf_id, seen=seen))

    def accept(self) -> None:
        if self._pending is not None:
            self.mark = self._pending


class StoreFollower:
    """One session of OpenClaw's store, followed by ``seq`` (``store_tail.follow_store``)."""

    def __init__(self, db: Path, session_id: str) -> None:
        self.db, self.session_id = db, session_id
        self.mark: StoreMark | None = None
        self._pending: StoreMark | None = None

    def reset(self) -> None:
        self.mark = mark_store(self.db, self.session_id)

    def step(self, transcript: Transcript, leaf_id: str | None, seen: set[str]) -> Step:
        assert self.mark is not None
        change = follow_store(self.db, self.session_id, self.mark)
        if change.kind == "none":
            return Step("none")
        self._pending = change.mark
        return Step(change.kind, read_store_appended(transcript, change, leaf_id=leaf_id,
                                                     seen=seen))

    def accept(self) -> None:
        if self._pending is not None:
            self.mark = self._pending


def follower_for(path: Path) -> Follower:
    """A store follower for ``<db>/<session id>``, a file follower for anything else."""
    key = split_store_key(path)
    return StoreFollower(*key) if key is not None else FileFollower(path)
