"""Claude Code's request and bookkeeping records (2.1.3xx), beside the conversation lines.

Claude Code 2.1.332 writes, next to its user/assistant/system rows, the exact request of every
turn (checked against what the binary sent, tests/agents/drivers/claude_code.py):

- ``api-request-shape`` {shapeHash, shape: {system, tools}}: the system prompt blocks and the
  tool definitions, once per distinct shape;
- ``api-request-blob`` {hash, message}: a request message that is not a transcript row (the
  rendered environment, reminders), content-addressed: ``hash`` is the sha256 of the message's
  JSON with sorted keys and no spaces. Messages that are transcript rows are not repeated:
  the hash of ``{role, content}`` of a user or assistant row (a string content also as one
  text block) names them;
- ``api-request`` {id, shapeHash, params: {model, max_tokens, ...}, base?, keep, tail,
  cacheControl, requestDigest}: the messages are the first ``keep`` messages of request
  ``base`` followed by the messages named in ``tail``; an assistant row's ``requestRef`` is
  the id of the request it answered. The sent request also starts its system prompt with a
  billing header block and carries the ``cacheControl`` marks; neither is in the record;
- ``cost-state`` {totalCostUSD, modelUsage: {model: {inputTokens, outputTokens, costUSD,
  ...}}}: the session's running cost, the last one the total;
- ``atis-latch``, ``mode``, ``last-prompt``, ``queue-operation``, ``tools-used``,
  ``attachment`` (rendered reminders, prompt snapshots): bookkeeping, kept as entries.

This module knows those shapes; the line loop in ``claude_code.py`` calls it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from sessionlens.engine.model import Entry, FormatGaps

__all__ = ["KNOWN_KINDS", "CostState", "RecordedRequest", "RecordPool", "boundary_facts",
           "last_cost", "message_hash", "recorded_requests", "request_parts", "subagent_gaps",
           "subagent_parent_id"]

#: Every line type Claude Code writes that this reader knows (others get one diagnostic each).
KNOWN_KINDS = frozenset({
    "user", "assistant", "system", "summary", "file-history-snapshot", "file-history-delta",
    "attachment", "queue-operation", "progress", "last-prompt", "ai-title", "custom-title",
    "pr-link", "tag", "agent-name", "agent-color", "agent-setting", "worktree-state",
    "api-request", "api-request-shape", "api-request-blob", "cost-state", "atis-latch",
    "mode", "tools-used", "content-replacement",
})


def subagent_parent_id(path: Path) -> str | None:
    """The parent session id of a ``<session>/subagents/agent-*.jsonl`` file, else None."""
    if path.parent.name == "subagents" and path.name.startswith("agent-"):
        return path.parent.parent.name or None
    return None


def subagent_gaps(path: Path, parent: Any) -> FormatGaps:
    """A compaction subagent file (``agent-acompact-*``) says whose it is; others nothing."""
    if not (path.name.startswith("agent-acompact-") and parent):
        return FormatGaps()
    return FormatGaps("Claude Code", (), (
        f"Claude Code's compaction subagent of session {parent}: its last message is the "
        "summary of one of that session's compactions (inspect names which)",))


def boundary_facts(meta: Mapping[str, Any]) -> tuple[dict[str, Any], str | None]:
    """What a ``compact_boundary``'s ``compactMetadata`` says, as entry ``extra`` keys
    (``trigger`` manual/auto, ``pre_tokens``/``post_tokens`` as Claude Code measured the
    context before and after, ``preserved_uuids`` kept verbatim), and the uuid of the first
    message it kept (``preservedMessages.uuids[0]``, else ``preservedSegment.headUuid``)."""
    facts: dict[str, Any] = {}
    if isinstance(meta.get("trigger"), str):
        facts["trigger"] = meta["trigger"]
    for key, name in (("preTokens", "pre_tokens"), ("postTokens", "post_tokens")):
        if type(meta.get(key)) is int:
            facts[name] = meta[key]
    head: str | None = None
    listed = meta.get("preservedMessages")
    segment = meta.get("preservedSegment")
    if isinstance(listed, dict) and isinstance(listed.get("uuids"), list):
        uuids = [u for u in listed["uuids"] if isinstance(u, str)]
        if uuids:
            facts["preserved_uuids"] = tuple(uuids)
            head = uuids[0]
    if head is None and isinstance(segment, dict) and isinstance(segment.get("headUuid"), str):
        head = segment["headUuid"]
        facts["preserved_uuids"] = (head,) if head == segment.get("tailUuid") else ()
    if isinstance(segment, dict) and isinstance(segment.get("anchorUuid"), str):
        facts["preserved_anchor"] = segment["anchorUuid"]
    return facts, head


def message_hash(message: Any) -> str:
    """Claude Code's content address of a request message."""
    return hashlib.sha256(orjson.dumps(message, option=orjson.OPT_SORT_KEYS)).hexdigest()


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    """One request as Claude Code recorded it (what it sent, less the billing header and the
    cache marks)."""

    id: str
    line: int
    timestamp: str | None
    model: str | None
    system: tuple[Mapping[str, Any], ...]
    tools: tuple[Mapping[str, Any], ...]
    messages: tuple[Mapping[str, Any], ...]
    #: Hashes ``tail`` names that no blob or row of the file holds (their messages are left
    #: out of ``messages``); empty when the request is complete.
    missing: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class CostState:
    line: int
    total_usd: float
    #: model -> {inputTokens, outputTokens, cacheReadInputTokens, ..., costUSD}
    by_model: Mapping[str, Mapping[str, Any]]


class RecordPool:
    """What a pass over the file has seen that requests refer to: rows, blobs, shapes."""

    def __init__(self) -> None:
        self._rows: list[Mapping[str, Any]] = []   # raw row messages not hashed yet
        self._by_hash: dict[str, Mapping[str, Any]] = {}
        self._shapes: dict[str, Mapping[str, Any]] = {}
        self._messages: dict[str, tuple[Mapping[str, Any], ...]] = {}

    def row(self, message: Mapping[str, Any]) -> None:
        """A user or assistant row's message (hashed only once a request needs it)."""
        self._rows.append(message)

    def _hash_rows(self) -> None:
        for m in self._rows:
            plain = {"role": m.get("role"), "content": m.get("content")}
            self._by_hash.setdefault(message_hash(plain), plain)
            content = plain["content"]
            if isinstance(content, str):
                blocks = {"role": plain["role"], "content": [{"type": "text", "text": content}]}
                self._by_hash.setdefault(message_hash(blocks), blocks)
        self._rows.clear()

    def record(self, etype: str, obj: Mapping[str, Any], line: int) -> Any:
        """The ``data`` an entry of this record type keeps (None: keep nothing)."""
        if etype == "api-request-blob":
            h, message = obj.get("hash"), obj.get("message")
            if isinstance(h, str) and isinstance(message, dict):
                self._by_hash.setdefault(h, message)
            return None
        if etype == "api-request-shape":
            h, shape = obj.get("shapeHash"), obj.get("shape")
            if isinstance(h, str) and isinstance(shape, dict):
                self._shapes[h] = shape
            return None
        if etype == "api-request":
            return self._request(obj, line)
        if etype == "cost-state":
            total = obj.get("totalCostUSD")
            usage = obj.get("modelUsage")
            if isinstance(total, (int, float)):
                return CostState(line, float(total), dict(usage) if isinstance(usage, dict)
                                 else {})
        return None

    def _request(self, obj: Mapping[str, Any], line: int) -> RecordedRequest | None:
        rid = obj.get("id")
        if not isinstance(rid, str):
            return None
        self._hash_rows()
        base = obj.get("base")
        keep = obj.get("keep")
        start = self._messages.get(base, ()) if isinstance(base, str) else ()
        head = start[:keep] if type(keep) is int and keep >= 0 else ()
        missing: list[str] = []
        tail: list[Mapping[str, Any]] = []
        for h in obj.get("tail") or ():
            found = self._by_hash.get(h) if isinstance(h, str) else None
            if found is None:
                missing.append(str(h))
            else:
                tail.append(found)
        messages = (*head, *tail)
        self._messages[rid] = messages
        shape = self._shapes.get(str(obj.get("shapeHash")), {})
        params = obj.get("params")
        model = params.get("model") if isinstance(params, dict) else None
        ts = obj.get("timestamp")
        return RecordedRequest(
            rid, line, ts if isinstance(ts, str) else None,
            model if isinstance(model, str) else None,
            tuple(b for b in shape.get("system") or () if isinstance(b, dict)),
            tuple(t for t in shape.get("tools") or () if isinstance(t, dict)),
            messages, tuple(missing))


def recorded_requests(entries: Iterable[Entry]) -> tuple[RecordedRequest, ...]:
    """The file's recorded requests, in file order."""
    return tuple(e.data for e in entries if isinstance(e.data, RecordedRequest))


def last_cost(entries: Sequence[Entry]) -> CostState | None:
    """The newest ``cost-state`` of the file (the session's total so far), or None."""
    for e in reversed(entries):
        if isinstance(e.data, CostState):
            return e.data
    return None


def _content_texts(content: Any) -> Iterable[str]:
    if isinstance(content, str):
        yield content
        return
    if not isinstance(content, list):
        return
    for block in content:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            yield block["text"]
        elif kind == "thinking" and isinstance(block.get("thinking"), str):
            yield block["thinking"]
        elif kind == "tool_use":
            yield str(block.get("name") or "")
            yield orjson.dumps(block.get("input")).decode()
        elif kind == "tool_result":
            yield from _content_texts(block.get("content"))


def request_parts(request: RecordedRequest) -> tuple[list[str], list[str], list[str]]:
    """The texts of a recorded request a tokenizer counts, in three parts: the system
    blocks, each tool's definition as JSON, every message's texts, tool inputs and results."""
    system = [str(b.get("text") or "") for b in request.system]
    tools = [orjson.dumps(t, option=orjson.OPT_SORT_KEYS).decode() for t in request.tools]
    messages = [t for m in request.messages for t in _content_texts(m.get("content"))]
    return ([t for t in system if t], tools, [t for t in messages if t])
