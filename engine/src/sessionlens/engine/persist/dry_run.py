"""A write's dry run: the exact files, names and numbers a compaction write will produce.

``plan_write`` builds the successor (or the appended file) in memory with names chosen now,
loads that result back and measures it, so the Accept dialog and ``compact --json`` show
what the write will really do: the real file names, the ``firstKeptEntryId`` the file will
hold (a successor moves it back to the last summarized assistant turn), how many entries a
successor leaves out, and "tokens after" as ``inspect`` will report it on the written file.
``write_compaction(..., names=plan.names)`` then writes exactly that. Nothing is written here.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Literal

from sessionlens.engine.errors import FileChangedError, PersistError
from sessionlens.engine.load.formats.catalog import agent_name
from sessionlens.engine.load.reader import load_transcript_bytes
from sessionlens.engine.model import Transcript
from sessionlens.engine.tokens.context import context_estimate
from sessionlens.engine.tokens.estimate import estimate_entry_tokens

from .agent_writers import RolloutWriter, agent_writer, rollout_writer, store_writer
from .checkpoints import checkpoint_path_for, compacted_since_load, moved_on_from
from .continuation import existing_successors
from .guard import read_unchanged_bytes
from .names import choose_names
from .record import CompactionRecord, PlannedFile, WritePlan
from .store_write import find_store, matching_session_keys, read_store_object
from .successor import appended_bytes, build_successor, require_writable

__all__ = ["plan_write"]

def plan_write(transcript: Transcript, record: CompactionRecord,
               mode: Literal["successor", "append"] = "successor", *,
               now: datetime | None = None,
               store_path: Path | None | Literal["auto"] = "auto") -> WritePlan:
    """The dry run of ``write_compaction(transcript, record, mode)``.

    Raises ``PersistError`` (or a subclass: the file changed, it is not writable) exactly
    where the write itself would refuse, before anything is written.
    """
    require_writable(transcript, mode)
    database = store_writer(transcript.format)
    if database is not None:  # rows of an agent's database (OpenClaw's store), not a file
        return database.plan(transcript, record, now)
    data = read_unchanged_bytes(transcript)
    own = rollout_writer(transcript.format)
    if own is not None:
        return _plan_codex(own, transcript, data, record, now)
    own_format = agent_writer(transcript.format) is not None
    folder = transcript.path.absolute().parent
    store = find_store(folder) if store_path == "auto" else store_path
    # the refusals the write makes under its lock, made here first so the dialog says so
    if store is not None:
        follows = moved_on_from(read_store_object(Path(store))[1], transcript)
        if follows is not None:
            raise FileChangedError(transcript.path, f"was already compacted: {Path(store).name}"
                                   f" follows {follows} now (compact that file instead)")
    done = compacted_since_load(transcript, data)
    if done is not None:
        raise FileChangedError(transcript.path, "was compacted by another run since it was "
                               f"loaded (checkpoint {done.name}): reload the session")
    # not a refusal here: the dialog asks, naming it; the write refuses unless allowed
    successors = existing_successors(transcript.path)
    names = choose_names(transcript, now)
    checkpoint = checkpoint_path_for(transcript, names.checkpoint_id)
    files = [] if own_format else [PlannedFile(
        "checkpoint", checkpoint,
        f"a copy of {transcript.path.name} as it is now ({len(data):,} bytes), for undo")]
    if mode == "successor":
        content = build_successor(transcript, data, record, names=names)
        target, after_bytes = folder / content.file_name, content.data()
        first_kept, comp_id, session_id = (content.first_kept_entry_id,
                                           content.compaction_entry_id, content.session_id)
        removed, copies = len(content.removed_entry_ids), content.dropped_retry_copies
    elif mode == "append":
        after_bytes, comp_id, first_kept = appended_bytes(transcript, data, record, names=names)
        target, session_id, removed = transcript.path.absolute(), transcript.session_id or "", 0
        copies = ()
    else:
        raise PersistError(transcript.path, f"unknown write mode {mode!r}")
    after = load_transcript_bytes(after_bytes, target)
    tokens_after = context_estimate(after)
    if own_format:
        files.append(PlannedFile(
            "successor", target,
            f"new {agent_name(transcript.format)} session {session_id}: the compaction "
            f"{comp_id} and its summary, {len(after.entries):,} entries ({removed:,} messages "
            f"of the original left out); {transcript.path.name} stays as it is"))
    elif mode == "successor":
        files.append(PlannedFile(
            "successor", target,
            f"new transcript: {len(after.entries):,} entries ({removed:,} of the original left "
            f"out), the compaction {comp_id} last; parentSession = {transcript.path.name}"))
    else:
        files.append(PlannedFile("append", target, f"the compaction {comp_id} appended as the "
                                 "last line; every existing line stays as it is"))
    if store is not None and not own_format:
        _, obj = read_store_object(Path(store))
        keys = matching_session_keys(obj, transcript.path, transcript.session_id)
        if keys:
            what = ("points the session at the successor, " if mode == "successor" else "")
            files.append(PlannedFile("store", Path(store),
                                     f"{what}adds a checkpoint record and counts the compaction "
                                     f"(records: {', '.join(keys)})"))
    return WritePlan(mode, names, replace(record, tokens_after=tokens_after), tuple(files),
                     first_kept, comp_id, session_id, int(record.tokens_before), tokens_after,
                     removed, copies, successors[-1] if successors else None)


def _plan_codex(codex: RolloutWriter, transcript: Transcript, data: bytes, record: CompactionRecord,
                now: datetime | None) -> WritePlan:
    """A Codex successor: one new rollout in the Codex home, measured as it will be read,
    plus what stays outside the history as the plan counts it (instructions, tools: the
    original's reported context minus the estimate of its history)."""
    names = codex.names(transcript, now)
    target = codex.target(transcript, names)
    after = load_transcript_bytes(codex.build(transcript, data, record, names), target)
    history = sum(estimate_entry_tokens(transcript.entry(i.entry_id)) for i in transcript.context
                  if i.entry_id in transcript.index)
    tokens_after = context_estimate(after) + max(0, int(record.tokens_before) - history)
    kept = sum(1 for e in after.entries if e.extra.get("codex_type")
               == "compacted.replacement_history")
    note = (f"new Codex rollout (session {names.session_id}) that `codex resume "
            f"{names.session_id}` continues: the summary and {kept:,} kept message(s); "
            f"{transcript.path.name} stays as it is")
    return WritePlan("successor", names, replace(record, tokens_after=tokens_after),
                     (PlannedFile("successor", target, note),), "", "", names.session_id,
                     int(record.tokens_before), tokens_after,
                     sum(1 for e in transcript.entries if e.message is not None))
