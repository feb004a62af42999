"""The compaction entry, and the two ways of writing it: a successor file or an append.

A successor (transcript-format.md §2.5(b), OpenClaw's post-compaction rotation) is a new
``<ISO-ts>_<uuid>.jsonl`` beside the original whose header points back at it. It holds every
entry except the summarized messages of the active branch, with the branch re-linked and
emitted depth-first so the active branch comes last, and the new compaction as its last line
(pi takes the last line as the leaf). The original file is not touched.

Choices that differ from OpenClaw's rotation, and why:
- the last summarized assistant message (and the toolResults answering its calls) is kept
  and ``firstKeptEntryId`` moves to it, as OpenClaw does since its fix for issue #76729:
  replay then reads ``summary -> assistant -> user`` instead of a user turn with no reply;
- of duplicate user messages only the unanswered copies of a retry storm are dropped
  (``retry_storms``; OpenClaw's wider de-duplication once dropped a re-sent prompt, its PR
  #93732), and ``CompactionRecord.drop_retry_copies=False`` keeps them all; thinking
  signatures are not stripped: kept lines are copied verbatim, which is what lets a reader
  trust the successor;
- ``leaf`` control rows are left out: they point into the old file's append history, and
  the successor's order already puts the active branch last.

Resume state. pi and OpenClaw restore the model and thinking level from the path they
resume (pi 0.58.3 ``buildSessionContext``, the same in openclaw 2026.9.6 agent-core): the
last ``thinking_level_change`` sets the level ("off" without one), the last ``model_change``
or assistant message (any stop reason) sets the model. A successor that drops the assistant
messages carrying the current model (a hard boundary drops them all) would resume with an
older model_change's model, or none. So the successor gets a ``model_change`` and/or a
``thinking_level_change`` between its last kept entry and the compaction whenever its path
would otherwise resolve to something else than the original's. An append keeps every
entry, so its path resolves the same without help.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any

from sessionlens.engine.errors import PersistError
from sessionlens.engine.load.formats.catalog import agent_name
from sessionlens.engine.model import Entry, Transcript

from .agent_writers import agent_writer, rollout_writer, store_writer
from .checkpoints import checkpoint_path_for
from .lines import (
    dump_line,
    entry_bytes,
    entry_line,
    header_line,
)
from .names import WriteNames, choose_names
from .pi_system_message import with_system_message
from .provenance import PROVENANCE_KEY
from .record import CompactionRecord, SuccessorContent
from .relink import depth_first, kept_ancestor, new_parents
from .resume_rows import ResumeState, restore_rows, resume_state
from .retry_storms import RetryCopy, find_retry_copies

__all__ = [
    "build_compaction_entry",
    "build_successor", "appended_bytes", "iter_entry_lines", "require_writable", "PI_FORMATS",
    "STATE_ENTRY_TYPES", "ResumeState", "resume_state", "successor_kept_back",
    "planned_retry_copies", "successor_removed_ids",
]

#: Formats SessionLens can write (every other agent's files are read-only).
PI_FORMATS = frozenset({"openclaw-v3", "pi-v1", "pi-v2"})
#: State entries of which a successor keeps only the latest on the active branch.
STATE_ENTRY_TYPES = ("model_change", "thinking_level_change", "session_info")


def build_compaction_entry(record: CompactionRecord, *, entry_id: str, parent_id: str | None,
                           timestamp: str, first_kept_entry_id: str | None = None,
                           checkpoint_name: str | None = None) -> dict[str, Any]:
    """The v3 ``compaction`` entry; SessionLens's own facts sit under ``sessionlens`` (with
    the name of the checkpoint taken before the write, so an undo finds it), who wrote the
    summary under ``details`` (see ``provenance``)."""
    first_kept = first_kept_entry_id or record.first_kept_entry_id or entry_id
    own: dict[str, Any] = {"provider": record.provider, "model": record.model,
                           "template": record.template, "auditPassed": record.audit_passed}
    if record.tokens_after is not None:
        own["tokensAfter"] = record.tokens_after
    if record.instructions:
        own["instructions"] = record.instructions
    if record.failed_checks:
        own["auditFailed"] = list(record.failed_checks)
    if record.focus_matched is not None:
        own["focusApplied"] = record.focus_matched
    if record.pinned_entry_ids:
        own["pinned"] = list(record.pinned_entry_ids)
    if checkpoint_name:
        own["checkpoint"] = checkpoint_name
    details: dict[str, Any] = {"readFiles": list(record.file_ops.read_files),
                               "modifiedFiles": list(record.file_ops.modified_files)}
    if record.provenance is not None:
        details[PROVENANCE_KEY] = record.provenance.as_details()
    return {
        "type": "compaction", "id": entry_id, "parentId": parent_id, "timestamp": timestamp,
        "summary": record.summary, "firstKeptEntryId": first_kept,
        "tokensBefore": record.tokens_before,
        "details": details,
        "sessionlens": own,
    }


def _checkpoint_name(transcript: Transcript, names: WriteNames) -> str:
    return checkpoint_path_for(transcript, names.checkpoint_id).name


def require_writable(transcript: Transcript, mode: str = "successor") -> None:
    """Refuse, naming the agent, a write SessionLens cannot do: into a file of a format it
    has no writer for, or one its agent's writer (``agent_writers``) refuses; a Codex rollout
    gets a successor rollout of its own (``agent_writers.rollout_writer``), never an append."""
    own = rollout_writer(transcript.format)
    if own is not None:
        own.require_writable(transcript, mode)
        return
    database = store_writer(transcript.format)
    if database is not None:  # an agent's database (OpenClaw's store): its own rows
        database.require_writable(transcript, mode)
        return
    writer = agent_writer(transcript.format)
    if writer is not None:
        reason = writer.refusal(transcript, mode)
        if reason is not None:
            raise PersistError(transcript.path, reason)
        return
    if transcript.format not in PI_FORMATS:
        agent = agent_name(transcript.format)
        raise PersistError(transcript.path, f"this is a {agent} transcript ({transcript.format}), "
                           "which SessionLens never writes into (it writes pi, OpenClaw, "
                           "Claude Code and Codex sessions); a compaction of it can be "
                           "previewed and exported, not written")
    if transcript.header is None:
        raise PersistError(transcript.path, "the file has no session header line, so "
                           "SessionLens cannot write a successor or append to it")


# --------------------------------------------------------------------------- successor

def successor_kept_back(transcript: Transcript, first_kept_entry_id: str | None) -> tuple[str, ...]:
    """Summarized entries a successor keeps anyway: the last assistant message before the cut
    and the tool results answering its calls (OpenClaw's fix for issue #76729), so replay
    reads ``summary -> assistant -> user`` rather than a user turn with no reply. The first
    of them becomes the written ``firstKeptEntryId``. Empty for a hard boundary. Pure."""
    if first_kept_entry_id is None:
        return ()
    on_path = transcript.active_path
    if first_kept_entry_id not in on_path:
        raise PersistError(transcript.path, f"firstKeptEntryId {first_kept_entry_id} is not on "
                           "the active branch; plan the compaction again")
    before = on_path[:on_path.index(first_kept_entry_id)]
    assistant = next((transcript.entry(i) for i in reversed(before)
                      if transcript.entry(i).type == "message"
                      and transcript.entry(i).role == "assistant"), None)
    if assistant is None or assistant.message is None:
        return ()
    calls = {c.id for c in assistant.message.tool_calls}
    at = before.index(assistant.id)
    results = tuple(i for i in before[at + 1:] if (m := transcript.entry(i).message) is not None
                    and m.role == "toolResult" and m.tool_call_id in calls)
    return (assistant.id, *results)


def _removed_ids(transcript: Transcript, record: CompactionRecord,
                 retry_copies: tuple[RetryCopy, ...] = ()) -> tuple[set[str], str]:
    """Entries a successor leaves out, and the ``firstKeptEntryId`` it will carry.

    "Summarized" is positional, as in OpenClaw's rotation: every message of the active
    branch before ``firstKeptEntryId`` (all of them for a hard boundary). That includes
    messages earlier compactions already folded in, which the new summary carries on.
    """
    on_path = transcript.active_path
    fk = record.first_kept_entry_id
    kept_back = successor_kept_back(transcript, fk)
    cut = len(on_path) if fk is None else on_path.index(fk)
    before = on_path[:cut]
    removed = {i for i in before if transcript.entry(i).type == "message"
               and transcript.entry(i).role != "system"} - set(kept_back)  # pi 1.6 prompt
    first_kept = kept_back[0] if kept_back else (fk or "")
    for etype in STATE_ENTRY_TYPES:
        same = [i for i in on_path if transcript.entry(i).type == etype]
        removed.update(same[:-1])
    for copy in retry_copies:
        removed.update(copy.dropped_ids)
    for e in transcript.entries:
        if e.type == "leaf":
            removed.add(e.id)
    for e in transcript.entries:
        if e.type in ("label", "context_edit") and e.target_id is not None \
                and e.target_id in removed:  # pi 1.6 edits of a message left out go too
            removed.add(e.id)
    return removed, first_kept


def successor_removed_ids(transcript: Transcript, first_kept_entry_id: str | None
                          ) -> frozenset[str]:
    """Entries a successor cut at ``first_kept_entry_id`` leaves out (the retry-storm copies
    after the cut aside): what its compaction took out of the context. Pure."""
    removed, _ = _removed_ids(transcript, CompactionRecord("", first_kept_entry_id, 0))
    return frozenset(removed)




def planned_retry_copies(transcript: Transcript, record: CompactionRecord,
                         raw_line: Callable[[Entry], bytes] | None = None
                         ) -> tuple[RetryCopy, ...]:
    """The retry-storm copies a successor of ``record`` leaves out (none when the record
    keeps them or nothing is kept); ``raw_line`` reads sender ids (default: from disk)."""
    if not record.drop_retry_copies or record.first_kept_entry_id is None:
        return ()
    return find_retry_copies(transcript, after_entry_id=record.first_kept_entry_id,
                             raw_line=raw_line or transcript.raw_line)


def build_successor(transcript: Transcript, data: bytes, record: CompactionRecord, *,
                    now: datetime | None = None, names: WriteNames | None = None
                    ) -> SuccessorContent:
    """The successor's lines, from the original's bytes ``data`` (already checked unchanged)."""
    require_writable(transcript)
    own = rollout_writer(transcript.format)
    if own is not None:
        raise PersistError(transcript.path, f"a {own.agent} session's successor is a session of "
                           "its own (agent_writers.rollout_writer), not a pi successor")
    writer = agent_writer(transcript.format)
    if writer is not None:
        return writer.build(transcript, data, record, names or choose_names(transcript, now))
    assert transcript.header is not None
    copies = planned_retry_copies(transcript, record, lambda e: entry_bytes(data, e))
    removed, first_kept = _removed_ids(transcript, record, copies)
    parents = new_parents(transcript, removed)
    leaf = kept_ancestor(parents, transcript, transcript.leaf_id)
    order = depth_first(parents, leaf)
    names = names or choose_names(transcript, now)
    stamp, session_id = names.timestamp, names.session_id
    cwd = transcript.header.cwd or str(transcript.path.absolute().parent)
    lines = [header_line(session_id, stamp, cwd, str(transcript.path.absolute()))]
    for eid in order:
        e = transcript.entry(eid)
        raw = entry_bytes(data, e)
        lines.append(entry_line(raw, e, transcript.format, parent_id=parents[eid]))
    taken = set(transcript.index.keys())
    comp_id = names.compaction_entry_id
    taken.add(comp_id)
    if record.first_kept_entry_id is None:
        first_kept = comp_id
    kept_path: list[Entry] = []
    at, seen = leaf, set()
    while at is not None and at not in seen:
        seen.add(at)
        kept_path.append(transcript.entry(at))
        at = parents.get(at)
    restore = restore_rows(resume_state(transcript.path_entries()),
                            resume_state(reversed(kept_path)), leaf, stamp, taken)
    lines.extend(dump_line(row) for row in restore)
    parent = restore[-1]["id"] if restore else leaf
    entry = build_compaction_entry(record, entry_id=comp_id, parent_id=parent, timestamp=stamp,
                                   first_kept_entry_id=first_kept,
                                   checkpoint_name=_checkpoint_name(transcript, names))
    lines.append(dump_line(with_system_message(entry, transcript)))
    return SuccessorContent(names.successor_file_name, session_id, tuple(lines), comp_id,
                            first_kept, frozenset(removed), dropped_retry_copies=copies,
                            restored_state_entry_ids=tuple(row["id"] for row in restore))


# --------------------------------------------------------------------------- append

def appended_bytes(transcript: Transcript, data: bytes, record: CompactionRecord, *,
                   now: datetime | None = None, names: WriteNames | None = None
                   ) -> tuple[bytes, str, str]:
    """The original's bytes with the compaction appended: (new bytes, entry id, firstKept).

    v1 files are refused: pi re-migrates a v1 file on every load with fresh ids, so an
    appended v3 entry could not name its kept entries there; write a successor instead.
    """
    require_writable(transcript, "append")
    if transcript.format == "pi-v1":
        raise PersistError(transcript.path, "cannot append to a v1 (pi legacy) transcript: "
                           "its ids are re-generated on every load; write a successor")
    names = names or choose_names(transcript, now)
    taken = set(transcript.index.keys())
    comp_id = names.compaction_entry_id
    taken.add(comp_id)
    first_kept = record.first_kept_entry_id or comp_id
    entry = build_compaction_entry(record, entry_id=comp_id, parent_id=transcript.leaf_id,
                                   timestamp=names.timestamp, first_kept_entry_id=first_kept,
                                   checkpoint_name=_checkpoint_name(transcript, names))
    sep = b"" if not data or data.endswith(b"\n") else b"\n"
    return data + sep + dump_line(with_system_message(entry, transcript)) + b"\n", comp_id, \
        first_kept


def iter_entry_lines(transcript: Transcript, data: bytes) -> Iterator[bytes]:
    """Every entry as a v3 line in file order (restoring a checkpoint copies these)."""
    for e in transcript.entries:
        yield entry_line(entry_bytes(data, e), e, transcript.format)
