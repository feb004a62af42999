"""Claude Code session files (``~/.claude/projects/<cwd>/<session>.jsonl``) read into the model.

Mapping decisions (transcript-format.md §4 has the observed format):

- **Ids and tree.** ``Entry.id`` is the line's ``uuid``. Claude Code writes one API message
  as several lines (one per content block, same ``message.id``) and hangs each parallel
  tool result off its own ``tool_use`` line, so the raw ``parentUuid`` tree forks at every
  parallel call and a leaf walk would lose results. Lines that continue the turn in
  progress (tool results, further blocks of the same message, attachments, hook rows) are
  therefore chained in file order: their parent becomes the newest line of that turn. A
  line that starts a turn (a user prompt, a new assistant message) keeps its own parent,
  so a real rewind still shows as two children of one parent. The raw ``parentUuid`` is
  kept in ``extra["parent_uuid"]`` whenever it was changed.
- **Tool results.** A user line's ``tool_result`` blocks become ``toolResult`` messages, one
  entry each (the model wants ``tool_call_id``/``tool_name`` per message); other blocks of
  that line stay a user message. The first piece keeps the ``uuid``, later pieces get
  ``f"{uuid}:{k}"``; all keep the source line's number and byte span, and children of the
  line hang off its last piece.
- **Compaction.** A ``system``/``compact_boundary`` line and the ``isCompactSummary`` user
  line after it are ONE ``compaction`` entry (id = the boundary's uuid; summary = the
  summary message text; ``tokens_before`` = ``compactMetadata.preTokens``; trigger in
  ``extra``). ``first_kept_entry_id`` is its own id: Claude Code keeps nothing from before
  the boundary. Its parent is ``logicalParentUuid`` (``parentUuid`` is null) so the active
  path crosses the boundary; when that uuid is not in the file (it often is not), the newest
  main-chain entry before the boundary stands in and ``extra`` says so.
- **Meta text.** ``isMeta`` user lines (text Claude Code writes itself) are ``custom``
  messages (``custom_type`` ``claude-code.meta``): in context, never taken for a user ask.
- **Everything else** (attachment, queue-operation, last-prompt, progress, summary,
  file-history-snapshot, other ``system`` rows...) is kept as an entry of its own type and
  never reaches the context. Lines without a uuid, and sidechain lines in a file that also
  has a main chain, are ``append_mode="side"`` roots or branches: they never move the leaf,
  so the leaf is the last main-chain entry, as in Claude Code itself.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

from sessionlens.engine.agents.claude_code.records import (
    KNOWN_KINDS,
    RecordPool,
    boundary_facts,
    subagent_gaps,
    subagent_parent_id,
)
from sessionlens.engine.load.formats import ParsedFile
from sessionlens.engine.load.formats.claude_code_blocks import (
    STOP_REASONS,
    iso_to_ms,
    map_block,
    map_blocks,
    map_usage,
    text_of,
    tool_result_blocks,
)
from sessionlens.engine.load.formats.jsonl import JsonLine, parse_with
from sessionlens.engine.model import (
    ContentBlock,
    Diagnostic,
    Entry,
    Format,
    Message,
    SessionHeader,
    ToolCallBlock,
)

__all__ = ["FORMAT", "parse", "subagent_parent_id"]

FORMAT: Format = "claude-code"
_API = "anthropic-messages"
_PROVIDER = "anthropic"


def _freeze(extra: dict[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType(extra)


class _Reader:
    """State of one pass over a Claude Code file."""

    def __init__(self, path: Path) -> None:
        self.spath = str(path)
        self.path = path
        self.diags: list[Diagnostic] = []
        self.entries: list[Entry] = []
        self.tail: dict[str, str] = {}       # uuid -> id children hang off (last piece)
        self.group: dict[str, int] = {}      # uuid -> turn number
        self.tip: dict[int, str] = {}        # turn number -> newest entry id of that turn
        self.current: dict[bool, int] = {}   # is_sidechain -> the turn in progress
        self.turn_msg: dict[int, str] = {}   # turn number -> its Anthropic message.id
        self.tool_names: dict[str, str] = {}
        self.pending: dict[str, int] = {}    # boundary uuid -> entry index awaiting summary
        self.main_tip: str | None = None
        self.sidechain_at: list[int] = []    # entry indexes of sidechain entries
        self.has_main = False
        self.first: dict[str, Any] = {}      # header facts from the first lines
        self.pool = RecordPool()             # what the request records refer to
        self.unknown: dict[str, list[int]] = {}  # record kind -> [lines, first line]

    # ---------------------------------------------------------------- tree helpers
    def _parent(self, raw: str | None, continues: bool, side: bool) -> tuple[str | None, int]:
        """Effective parent id and the turn number for a new tree line."""
        turn = len(self.tip)
        if raw is None:
            return None, turn
        g = self.group.get(raw)
        if continues and g is not None and g == self.current.get(side):
            return self.tip[g], g
        return self.tail.get(raw, raw), turn

    def _placed(self, uuid: str, last_id: str, turn: int, side: bool) -> None:
        self.tail[uuid] = last_id
        self.group[uuid] = turn
        self.tip[turn] = last_id
        self.current[side] = turn
        if not side:
            self.main_tip = last_id

    def _add(self, entry: Entry, side: bool) -> None:
        if side:
            self.sidechain_at.append(len(self.entries))
        self.entries.append(entry)

    # ---------------------------------------------------------------- lines
    def line(self, jl: JsonLine, etype: str) -> None:
        obj = jl.obj
        if etype not in KNOWN_KINDS:
            seen = self.unknown.setdefault(etype, [0, jl.line])
            seen[0] += 1
        for key in ("sessionId", "timestamp", "cwd", "version", "gitBranch", "slug",
                    "entrypoint", "agentId"):
            if key not in self.first and isinstance(obj.get(key), str):
                self.first[key] = obj[key]
        uuid = obj.get("uuid")
        if not isinstance(uuid, str) or not uuid:
            if etype in ("user", "assistant") or obj.get("subtype") == "compact_boundary":
                self.diags.append(Diagnostic(self.spath, jl.line,
                                             f"{etype!r} line has no string 'uuid'; skipped"))
                return
            self._loose(jl, etype)
            return
        side = obj.get("isSidechain") is True
        if not side:
            self.has_main = True
        if etype == "system" and obj.get("subtype") == "compact_boundary":
            self._boundary(jl, uuid, side)
        elif etype == "user" and obj.get("isCompactSummary") is True:
            self._summary(jl, uuid, side)
        elif etype in ("user", "assistant"):
            msg = obj.get("message")
            if not isinstance(msg, dict):
                self.diags.append(Diagnostic(self.spath, jl.line,
                                             f"{etype!r} line has no 'message' object; skipped"))
                return
            if etype == "user":
                self._user(jl, uuid, msg, side)
            else:
                self._assistant(jl, uuid, msg, side)
        else:
            self._other(jl, uuid, etype, side)

    def _base_extra(self, obj: dict[str, Any], side: bool, raw_parent: Any,
                    parent: str | None) -> dict[str, Any]:
        extra: dict[str, Any] = {"is_sidechain": side}
        if raw_parent != parent:
            extra["parent_uuid"] = raw_parent
        return extra

    def _loose(self, jl: JsonLine, etype: str) -> None:
        """A line outside the uuid tree (queue-operation, last-prompt, summary...)."""
        obj = jl.obj
        extra = {k: v for k, v in obj.items()
                 if k in ("operation", "subtype", "leafUuid") and isinstance(v, str)}
        ts = obj.get("timestamp")
        self.entries.append(Entry(
            type=etype, id=f"{jl.line:08x}", parent_id=None,
            timestamp=ts if isinstance(ts, str) else None, line=jl.line, offset=jl.offset,
            length=jl.length, append_mode="side", extra=_freeze(extra),
            data=self.pool.record(etype, obj, jl.line)))

    def _other(self, jl: JsonLine, uuid: str, etype: str, side: bool) -> None:
        obj = jl.obj
        raw = obj.get("parentUuid")
        raw = raw if isinstance(raw, str) else None
        parent, turn = self._parent(raw, True, side)
        extra = self._base_extra(obj, side, raw, parent)
        for key in ("subtype", "level"):
            if isinstance(obj.get(key), str):
                extra[key] = obj[key]
        att = obj.get("attachment")
        if isinstance(att, dict) and isinstance(att.get("type"), str):
            extra["attachment_type"] = att["type"]
        self._add(Entry(type=etype, id=uuid, parent_id=parent, timestamp=_ts(obj),
                        line=jl.line, offset=jl.offset, length=jl.length,
                        extra=_freeze(extra)), side)
        self._placed(uuid, uuid, turn, side)

    def _boundary(self, jl: JsonLine, uuid: str, side: bool) -> None:
        obj = jl.obj
        meta = obj.get("compactMetadata")
        meta = meta if isinstance(meta, dict) else {}
        logical = obj.get("logicalParentUuid")
        extra: dict[str, Any] = {"is_sidechain": side, "subtype": "compact_boundary"}
        facts, head = boundary_facts(meta)
        extra.update(facts)
        if isinstance(logical, str) and logical:
            extra["logical_parent_uuid"] = logical
        parent: str | None
        if isinstance(logical, str) and logical in self.tail:
            g = self.group[logical]
            parent = self.tip[g]
        else:
            parent = self.main_tip if not side else self.tip.get(self.current.get(side, -1))
            if isinstance(logical, str) and logical:
                extra["logical_parent_missing"] = True
        pre = meta.get("preTokens")
        self.pending[uuid] = len(self.entries)
        self._add(Entry(type="compaction", id=uuid, parent_id=parent, timestamp=_ts(obj),
                        line=jl.line, offset=jl.offset, length=jl.length, summary="",
                        # 2.1.3xx keeps messages verbatim (``preservedSegment``): the
                        # replay keeps them, from the head on, after the summary
                        first_kept_entry_id=head if head in self.tail else uuid,
                        tokens_before=pre if type(pre) is int else None,
                        extra=_freeze(extra)), side)
        self._placed(uuid, uuid, len(self.tip), side)

    def _summary(self, jl: JsonLine, uuid: str, side: bool) -> None:
        obj = jl.obj
        msg = obj.get("message")
        text = text_of(msg.get("content")) if isinstance(msg, dict) else ""
        raw = obj.get("parentUuid")
        if isinstance(raw, str) and raw not in self.pending:
            # 2.1.3xx may write attachment rows between the boundary and its summary
            raw = next((p for p in self.pending if self.group.get(p) == self.group.get(raw)),
                       raw)
        at = self.pending.pop(raw, None) if isinstance(raw, str) else None
        if at is not None:
            mark = self.entries[at]
            extra = dict(mark.extra)
            extra.update(summary_line=jl.line, summary_uuid=uuid)
            self.entries[at] = dataclasses.replace(mark, summary=text, extra=_freeze(extra))
            self._placed(uuid, mark.id, self.group[mark.id], side)
            return
        # An older Claude Code compaction: the summary message alone, no boundary row.
        raw = raw if isinstance(raw, str) else None
        parent, turn = self._parent(raw, False, side)
        extra = self._base_extra(obj, side, raw, parent)
        self._add(Entry(type="compaction", id=uuid, parent_id=parent, timestamp=_ts(obj),
                        line=jl.line, offset=jl.offset, length=jl.length, summary=text,
                        first_kept_entry_id=uuid, extra=_freeze(extra)), side)
        self._placed(uuid, uuid, turn, side)

    def _user(self, jl: JsonLine, uuid: str, msg: dict[str, Any], side: bool) -> None:
        obj = jl.obj
        self.pool.row(msg)
        content = msg.get("content")
        has_results = isinstance(content, list) and any(
            isinstance(b, dict) and b.get("type") == "tool_result" for b in content)
        raw = obj.get("parentUuid")
        raw = raw if isinstance(raw, str) else None
        parent, turn = self._parent(raw, has_results, side)
        ts = _ts(obj)
        ms = iso_to_ms(ts)
        pieces: list[Message] = []
        if isinstance(content, str):
            pieces.append(Message("user", map_blocks(content), content_is_string=True,
                                  timestamp_ms=ms))
        elif isinstance(content, list):
            run: list[ContentBlock] = []
            for b in content:
                if isinstance(b, dict) and b.get("type") == "tool_result":
                    if run:
                        pieces.append(Message("user", tuple(run), timestamp_ms=ms))
                        run = []
                    call_id = str(b.get("tool_use_id") or "")
                    pieces.append(Message(
                        "toolResult", tool_result_blocks(b), timestamp_ms=ms,
                        tool_call_id=call_id, tool_name=self.tool_names.get(call_id),
                        is_error=b.get("is_error") is True))
                    continue
                mapped = map_block(b)
                if mapped is not None:
                    run.append(mapped)
            if run or not pieces:
                pieces.append(Message("user", tuple(run), timestamp_ms=ms))
        else:
            self.diags.append(Diagnostic(self.spath, jl.line, "user message 'content' is "
                                         "neither a string nor a list; read as empty",
                                         "warning"))
            pieces.append(Message("user", (), timestamp_ms=ms))
        extra = self._base_extra(obj, side, raw, parent)
        if obj.get("isMeta") is True:
            # Text Claude Code injects itself (resume notes, command caveats): the model
            # sees it, but it is not the user's ask, so it must not pass for one.
            extra["is_meta"] = True
            pieces = [dataclasses.replace(m, role="custom", custom_type="claude-code.meta")
                      if m.role == "user" else m for m in pieces]
        frozen = _freeze(extra)
        prev = parent
        for k, m in enumerate(pieces):
            eid = uuid if k == 0 else f"{uuid}:{k}"
            self._add(Entry(type="message", id=eid, parent_id=prev, timestamp=ts,
                            line=jl.line, offset=jl.offset, length=jl.length, message=m,
                            extra=frozen), side)
            prev = eid
        assert prev is not None
        self._placed(uuid, prev, turn, side)

    def _assistant(self, jl: JsonLine, uuid: str, msg: dict[str, Any], side: bool) -> None:
        obj = jl.obj
        raw = obj.get("parentUuid")
        raw = raw if isinstance(raw, str) else None
        mid = msg.get("id") if isinstance(msg.get("id"), str) else None
        g = self.group.get(raw) if raw is not None else None
        continues = mid is not None and g is not None and self.turn_msg.get(g) == mid
        parent, turn = self._parent(raw, continues, side)
        self.pool.row(msg)
        blocks = map_blocks(msg.get("content"))
        for b in blocks:
            if isinstance(b, ToolCallBlock):
                self.tool_names[b.id] = b.name
        raw_stop = msg.get("stop_reason")
        stop = STOP_REASONS.get(raw_stop, raw_stop) if isinstance(raw_stop, str) else None
        error: str | None = None
        if obj.get("isApiErrorMessage") is True or isinstance(obj.get("error"), str):
            stop = "error"
            details = obj.get("errorDetails")
            error = (details if isinstance(details, str) and details
                     else text_of(msg.get("content")) or str(obj.get("error") or "API error"))
        model = msg.get("model")
        message = Message(
            "assistant", blocks, timestamp_ms=iso_to_ms(_ts(obj)), api=_API,
            provider=_PROVIDER, model=model if isinstance(model, str) else None,
            usage=map_usage(msg.get("usage")), stop_reason=stop, error_message=error,
            # an API error row is Claude Code's own note: never sent to the model again
            exclude_from_context=obj.get("isApiErrorMessage") is True)
        extra = self._base_extra(obj, side, raw, parent)
        if mid is not None:
            extra["message_id"] = mid
            self.turn_msg.setdefault(turn, mid)
        if isinstance(obj.get("error"), str):
            extra["error"] = obj["error"]
        if isinstance(obj.get("requestRef"), str):
            extra["request_ref"] = obj["requestRef"]   # the api-request it answered
        self._add(Entry(type="message", id=uuid, parent_id=parent, timestamp=_ts(obj),
                        line=jl.line, offset=jl.offset, length=jl.length, message=message,
                        extra=_freeze(extra)), side)
        self._placed(uuid, uuid, turn, side)

    # ---------------------------------------------------------------- result
    def finish(self) -> ParsedFile:
        for uuid, at in self.pending.items():
            self.diags.append(Diagnostic(
                self.spath, self.entries[at].line, f"compact_boundary {uuid!r} has no "
                "isCompactSummary message after it; its summary is empty", "warning"))
        for kind, (count, first) in self.unknown.items():
            self.diags.append(Diagnostic(
                self.spath, first, f"record kind {kind!r} is not known to SessionLens "
                f"({count:,} line{'s' if count != 1 else ''}, the first here): kept as "
                "entries of that type, never in the context", "warning"))
        if self.has_main:
            for at in self.sidechain_at:
                self.entries[at] = dataclasses.replace(self.entries[at], append_mode="side")
        header = self._header()
        return ParsedFile(FORMAT, header, tuple(self.entries), tuple(self.diags),
                          subagent_gaps(self.path, header.extra.get("parent_session_id")))

    def _header(self) -> SessionHeader:
        first = self.first
        extra: dict[str, Any] = {"agent": "claude-code", "synthesized": True}
        for key, name in (("version", "cc_version"), ("gitBranch", "git_branch"),
                          ("slug", "slug"), ("entrypoint", "entrypoint")):
            if key in first:
                extra[name] = first[key]
        sid = first.get("sessionId") or self.path.stem
        parent = subagent_parent_id(self.path)
        if parent is not None:
            extra["parent_session_id"] = first.get("sessionId") or parent
            extra["agent_id"] = first.get("agentId") or self.path.stem.removeprefix("agent-")
            sid = self.path.stem
        return SessionHeader(id=sid, version=0, timestamp=first.get("timestamp"),
                             cwd=first.get("cwd"), line=0, extra=_freeze(extra))


def _ts(obj: dict[str, Any]) -> str | None:
    ts = obj.get("timestamp")
    return ts if isinstance(ts, str) else None


def parse(data: bytes, path: Path, *, on_progress: Callable[[int, int], None] | None = None,
          cancel: Callable[[], bool] | None = None) -> ParsedFile:
    """Read a Claude Code session (or subagent) file; never raises for a bad line."""
    reader = _Reader(Path(path))
    return parse_with(reader, data, path, on_progress=on_progress, cancel=cancel)
