"""A Claude Code session SessionLens compacted, written the way Claude Code writes its own.

Claude Code 2.1.332 resumes ``<project>/<session-id>.jsonl`` by id (``claude --resume ID``).
Its own compaction leaves, in the same file: the messages it keeps verbatim, a ``system``
row ``compact_boundary`` (``parentUuid`` null, ``logicalParentUuid`` the newest kept row,
``compactMetadata`` {trigger, preTokens, postTokens, preservedSegment {headUuid, anchorUuid,
tailUuid}, preservedMessages {anchorUuid, uuids, allUuids}}) and the summary as a user
message with ``isCompactSummary`` and ``isVisibleInTranscriptOnly`` whose text is Claude
Code's continuation note around the summary. On load it drops every row before the boundary
but the listed kept ones, re-parents those after the summary (the anchor) and zeroes their
usage, so the model gets: the summary message, then the kept messages, then the new turn.

The successor is a NEW session in the same project folder (``<new-uuid>.jsonl``): the kept
user and assistant rows copied byte for byte but for their ``sessionId`` and ``parentUuid``
(chained one after the other), then the boundary and the summary, all under the new id.
Nothing summarized is copied. The original file is never touched; it stays where the
summary note says the full transcript is. SessionLens's own facts (provider, model, audit,
instructions) sit under a ``sessionlens`` key of the boundary row, which Claude Code keeps
as it is.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from sessionlens.engine.errors import PersistError
from sessionlens.engine.model import ToolCallBlock, Transcript
from sessionlens.engine.persist.agent_writers import AgentWriter
from sessionlens.engine.persist.lines import dump_line, entry_bytes
from sessionlens.engine.persist.names import WriteNames
from sessionlens.engine.persist.record import CompactionRecord, SuccessorContent

__all__ = ["CLAUDE_CODE_WRITER", "ClaudeCodeWriter", "summary_message_text"]

_INTRO = ("This session is being continued from a previous conversation that ran out of "
          "context. The summary below covers the earlier portion of the conversation.\n\n")
_OUTRO = ("\n\nIf you need specific details from before compaction (like exact code snippets, "
          "error messages, or content you generated), read the full transcript at: {path}\n"
          "Continue the conversation from where it left off without asking the user any "
          "further questions. Resume directly — do not acknowledge the summary, do not recap "
          "what was happening, do not preface with \"I'll continue\" or similar. Pick up the "
          "last task as if the break never happened.")
_KEPT = ("\n\nThe messages after this summary are the most recent messages from before "
         "compaction, kept verbatim. The summary was written without seeing them, so something "
         "it says has not happened yet may already have happened in them.")
#: Row fields copied from the newest row onto the rows SessionLens writes.
_CONTEXT_KEYS = ("userType", "entrypoint", "cwd", "version", "gitBranch", "slug")


def summary_message_text(summary: str, transcript_path: str, tools_used: list[str],
                         kept: bool) -> str:
    """The summary message as Claude Code 2.1.332 words it around a summary."""
    tools = (f"<system-reminder>\n<tools-used-before-summary>{', '.join(tools_used)}"
             "</tools-used-before-summary>\n</system-reminder>\n" if tools_used else "")
    return (_INTRO + tools + "Summary:\n" + summary.strip()
            + _OUTRO.format(path=transcript_path) + (_KEPT if kept else ""))


class ClaudeCodeWriter:
    """The successor writer for Claude Code files (``persist.agent_writers``)."""

    agent = "Claude Code"

    def refusal(self, transcript: Transcript, mode: str) -> str | None:
        if mode != "successor":
            return ("SessionLens writes a Claude Code compaction as a new session beside the "
                    "original (--write successor), never into the original file")
        if transcript.header is not None and transcript.header.extra.get("parent_session_id"):
            return "this is a Claude Code subagent file; compact its session instead"
        return None

    def file_name(self, names: WriteNames) -> str:
        return f"{names.session_id}.jsonl"

    def build(self, transcript: Transcript, data: bytes, record: CompactionRecord,
              names: WriteNames) -> SuccessorContent:
        on_path = transcript.active_path
        fk = record.first_kept_entry_id
        if fk is not None and fk not in on_path:
            raise PersistError(transcript.path, f"firstKeptEntryId {fk} is not on the active "
                               "branch; plan the compaction again")
        cut = len(on_path) if fk is None else on_path.index(fk)
        rows: list[dict[str, Any]] = []
        seen: set[tuple[int, int]] = set()
        for eid in on_path[cut:]:
            e = transcript.entry(eid)
            if e.type != "message" or (e.offset, e.length) in seen:
                continue
            seen.add((e.offset, e.length))
            row = json.loads(entry_bytes(data, e))
            if row.get("type") in ("user", "assistant") and not row.get("isApiErrorMessage"):
                rows.append(row)
        summarized = on_path[:cut]
        tools = sorted({b.name for i in summarized if (m := transcript.entry(i).message)
                        is not None for b in m.content if isinstance(b, ToolCallBlock)})
        sid, stamp = names.session_id, names.timestamp
        newest: dict[str, Any] = next(
            (json.loads(entry_bytes(data, transcript.entry(i))) for i in reversed(on_path)
             if transcript.entry(i).type == "message"), {})
        context = {k: newest[k] for k in _CONTEXT_KEYS if k in newest}
        lines: list[bytes] = []
        parent: str | None = None
        for row in rows:
            row.update(parentUuid=parent, sessionId=sid, isSidechain=False)
            parent = row["uuid"]
            lines.append(dump_line(row))
        kept = [r["uuid"] for r in rows]
        # uuids, as Claude Code's rows have; named after the new session id, so the dry run
        # and the write (same names) give the same ones
        boundary_id, summary_id = (str(uuid.uuid5(uuid.NAMESPACE_URL, f"{sid}/{part}"))
                                   for part in ("compact_boundary", "summary"))
        meta: dict[str, Any] = {"trigger": "manual", "preTokens": record.tokens_before}
        if record.tokens_after is not None:
            meta["postTokens"] = record.tokens_after
        if kept:
            meta["preservedSegment"] = {"headUuid": kept[0], "anchorUuid": summary_id,
                                        "tailUuid": kept[-1]}
            meta["preservedMessages"] = {"anchorUuid": summary_id, "uuids": kept,
                                         "allUuids": kept}
        own: dict[str, Any] = {"provider": record.provider, "model": record.model,
               "template": record.template, "auditPassed": record.audit_passed,
               "original": str(transcript.path.absolute()),
               "originalSessionId": transcript.session_id}
        if record.instructions:
            own["instructions"] = record.instructions
        if record.failed_checks:
            own["auditFailed"] = list(record.failed_checks)
        if record.provenance is not None:
            own["provenance"] = record.provenance.as_details()
        lines.append(dump_line({
            "parentUuid": None, "logicalParentUuid": parent, "isSidechain": False,
            "type": "system", "subtype": "compact_boundary", "content": "Conversation compacted",
            "isMeta": False, "timestamp": stamp, "uuid": boundary_id, "level": "info",
            "compactMetadata": meta, "sessionId": sid, **context, "sessionlens": own}))
        text = summary_message_text(record.summary, str(transcript.path.absolute()), tools,
                                    bool(kept))
        lines.append(dump_line({
            "parentUuid": boundary_id, "isSidechain": False, "type": "user",
            "message": {"role": "user", "content": text}, "isVisibleInTranscriptOnly": True,
            "isCompactSummary": True, "uuid": summary_id, "timestamp": stamp,
            "sessionId": sid, **context}))
        removed = frozenset(i for i in summarized if transcript.entry(i).type == "message")
        return SuccessorContent(self.file_name(names), sid, tuple(lines), boundary_id,
                                kept[0] if kept else boundary_id, removed)


CLAUDE_CODE_WRITER: AgentWriter = ClaudeCodeWriter()
