"""What a compaction write is given and gives back, shared by every writer: the run's
decisions (``CompactionRecord``), a successor built in memory (``SuccessorContent``) and the
files a step wrote (``WriteResult``), and a write's dry run (``WritePlan``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from sessionlens.engine.model import FileOps

from .names import WriteNames
from .provenance import SummaryProvenance
from .retry_storms import RetryCopy

__all__ = ["CompactionRecord", "FileKind", "PlannedFile", "SuccessorContent", "WritePlan",
           "WriteResult"]


@dataclass(frozen=True, slots=True)
class CompactionRecord:
    """What a compaction run decided and produced: everything the writers need.

    ``first_kept_entry_id`` None means a hard boundary: nothing before the compaction is
    kept (written as the compaction's own id, as OpenClaw's manual ``/compact`` does).
    ``summarized_entry_ids`` records what this run summarized (for audits and callers);
    what a successor leaves out follows from ``first_kept_entry_id`` alone.
    """

    summary: str
    first_kept_entry_id: str | None
    tokens_before: int
    tokens_after: int | None = None
    file_ops: FileOps = FileOps()
    summarized_entry_ids: tuple[str, ...] = ()
    provider: str = ""
    model: str = ""
    template: str = ""
    audit_passed: bool | None = None
    instructions: str = ""
    #: Names of the audit checks the summary failed (empty when it passed or was not audited).
    failed_checks: tuple[str, ...] = ()
    #: Leave out the unanswered copies of a retry storm in the kept part (successor only).
    drop_retry_copies: bool = True
    #: Whether the focus instructions matched anything (see ``SummaryResult.focus_matched``).
    focus_matched: bool | None = None
    #: Who wrote the summary (recorded under ``details``; None records nothing).
    provenance: SummaryProvenance | None = None
    #: The user's pins the summary carries (ids), and the checkpoint the write takes.
    pinned_entry_ids: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class WriteResult:
    """The files one persist step wrote (all of them in ``written``, in write order)."""

    written: tuple[Path, ...]
    successor_path: Path | None = None
    checkpoint_path: Path | None = None
    store_path: Path | None = None
    compaction_entry_id: str | None = None
    #: Session id of the file that now holds the compaction (or the restored copy).
    session_id: str | None = None
    #: ``firstKeptEntryId`` as written (a successor may move it to the kept assistant).
    first_kept_entry_id: str | None = None
    #: Retry-storm copies the successor left out (see ``retry_storms``).
    dropped_retry_copies: tuple[RetryCopy, ...] = ()
    #: What the step did not do and why (e.g. a store with no record of the transcript).
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SuccessorContent:
    """A successor file built in memory, ready to be written."""

    file_name: str
    session_id: str
    lines: tuple[bytes, ...]
    compaction_entry_id: str
    first_kept_entry_id: str
    removed_entry_ids: frozenset[str] = field(default_factory=frozenset)
    dropped_retry_copies: tuple[RetryCopy, ...] = ()
    #: The model_change / thinking_level_change rows written so the successor resumes with
    #: the original's model and thinking level (empty when its kept rows already do).
    restored_state_entry_ids: tuple[str, ...] = ()

    def data(self) -> bytes:
        return b"".join(line + b"\n" for line in self.lines)


FileKind = Literal["checkpoint", "successor", "append", "store"]


@dataclass(frozen=True, slots=True)
class PlannedFile:
    """One file the write will create or change, and what it will hold."""

    kind: FileKind
    path: Path
    note: str


@dataclass(frozen=True, slots=True)
class WritePlan:
    """Everything one compaction write will do, decided and measured before it runs."""

    mode: Literal["successor", "append"]
    names: WriteNames
    #: The record to write: as given, with ``tokens_after`` set to the measured figure.
    record: CompactionRecord
    files: tuple[PlannedFile, ...]
    #: ``firstKeptEntryId`` as the written file will hold it.
    first_kept_entry_id: str
    compaction_entry_id: str
    #: Session id of the file that will hold the compaction.
    session_id: str
    tokens_before: int
    #: pi's context estimate of the written file (what ``inspect`` will say).
    tokens_after: int
    #: Entries of the original a successor leaves out (0 for an append).
    entries_removed: int
    #: Unanswered copies of a retry storm the successor leaves out.
    dropped_retry_copies: tuple[RetryCopy, ...] = ()
    #: The successor the original already has (its newest): writing makes a second
    #: continuation, refused unless the user allows it.
    existing_successor: Path | None = None

    @property
    def written_paths(self) -> tuple[Path, ...]:
        return tuple(f.path for f in self.files)
