"""One continuation per session: the successors a transcript already has.

A successor names its original in its header's ``parentSession`` (``successor``). Writing a
second successor of the same original (or appending a compaction to an original the agent
has already moved on from) gives the session two continuations, and the agent follows only
one of them. The writer asks ``refuse_second_successor`` under the transcript's lock, before
anything is written, so two runs at once cannot both pass the check; the dry run asks too,
so a dialog can say so before the user accepts.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import orjson

from sessionlens.engine._io.atomic import is_temp_name
from sessionlens.engine.errors import SecondSuccessorError
from sessionlens.engine.sessions.classify import classify_session_file
from sessionlens.engine.sessions.store import resolve_session_file

__all__ = ["existing_successors", "refuse_second_successor"]

#: A header line longer than this is no header SessionLens or pi wrote.
_HEADER_LIMIT = 64 * 1024


def _parent_of(path: Path) -> str | None:
    """The ``parentSession`` a transcript's header names, if any."""
    try:
        with open(path, "rb") as fh:
            head = fh.readline(_HEADER_LIMIT)
        obj = orjson.loads(head.lstrip(b"\xef\xbb\xbf"))
    except (OSError, orjson.JSONDecodeError):
        return None
    if not isinstance(obj, dict) or obj.get("type") != "session":
        return None
    raw = obj.get("parentSession")
    return raw if isinstance(raw, str) and raw else None


def existing_successors(transcript_path: Path | str) -> tuple[Path, ...]:
    """The transcripts beside ``transcript_path`` whose header names it as their
    ``parentSession``, oldest name first (successor names start with their timestamp)."""
    me = Path(transcript_path).resolve()
    folder = me.parent
    found: list[Path] = []
    with contextlib.suppress(OSError):
        for child in sorted(folder.iterdir()):
            if (child == me or not child.name.endswith(".jsonl") or is_temp_name(child.name)
                    or classify_session_file(child.name) != "primary" or not child.is_file()):
                continue
            raw = _parent_of(child)
            if raw is None:
                continue
            parent = resolve_session_file(raw, None, folder)
            if parent is not None and parent.resolve() == me:
                found.append(child)
    return tuple(found)


def refuse_second_successor(transcript_path: Path | str) -> None:
    """Raise SecondSuccessorError naming the newest successor ``transcript_path`` has."""
    successors = existing_successors(transcript_path)
    if successors:
        raise SecondSuccessorError(Path(transcript_path), successors[-1])
