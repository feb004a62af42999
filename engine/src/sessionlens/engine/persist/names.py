"""The names a write will use, chosen before it, so a dry run can show the real ones.

A successor's file name holds its timestamp and new session id, the compaction entry gets a
fresh id, and the checkpoint copy a fresh uuid. Choosing them up front lets the Accept
dialog and ``compact --json`` name exactly the files the write then creates, instead of
``<timestamp>_<new session id>.jsonl`` placeholders.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from sessionlens.engine.model import Transcript

from .lines import iso_timestamp, new_entry_id, new_session_id, session_file_name

__all__ = ["WriteNames", "choose_names"]


@dataclass(frozen=True, slots=True)
class WriteNames:
    """Every name one compaction write uses."""

    #: ISO timestamp of the new entry, header and successor file name.
    timestamp: str
    #: The successor's new session id (unused by an append).
    session_id: str
    compaction_entry_id: str
    #: The uuid in ``<sessionId>.checkpoint.<uuid>.jsonl``.
    checkpoint_id: str

    @property
    def successor_file_name(self) -> str:
        return session_file_name(self.timestamp, self.session_id)


def choose_names(transcript: Transcript, now: datetime | None = None) -> WriteNames:
    """Fresh names for one write of ``transcript`` (the entry id avoids every id it holds)."""
    return WriteNames(iso_timestamp(now), new_session_id(), new_entry_id(transcript.index.keys()),
                      str(uuid.uuid4()))
