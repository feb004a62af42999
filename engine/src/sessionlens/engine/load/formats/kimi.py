"""Kimi CLI sessions (``~/.kimi/sessions/<work-dir hash>/<session id>/``, or
``$KIMI_SHARE_DIR/sessions/``).

A session folder holds ``context.jsonl``, what the model is sent, and ``wire.jsonl``, the
event log the UI was driven by. ``context.jsonl`` is the transcript: ``user``,
``assistant`` (``think`` and ``text`` parts, ``tool_calls``) and ``tool`` messages, with
``_checkpoint {id}`` marks (entries of type ``checkpoint``) and ``_usage {token_count}``
lines (the context size after a step: the usage of the assistant message before it).
Subagents write ``context_sub_<n>.jsonl`` beside it; those are sessions of their own,
linked to the folder's session.

``context.jsonl`` has no times and no per-call usage. When ``wire.jsonl`` is beside it, its
events lend them: a user message takes the time of the ``TurnBegin`` with the same text; an
assistant message is matched to its step by its first tool call id, else by its first
part's text, and takes the step's start time and its ``StatusUpdate.token_usage``; tool
results take their ``ToolResult`` time. A subagent's context is not matched (its events are
nested in the parent's wire), and no model is recorded anywhere.

Kimi writes its text to the model in ``<system>`` tags: a user message starting "Previous
context has been compacted" is a ``compaction`` (the rest is the summary; Kimi keeps the
messages written after it, and rotates the old context to ``context_<n>.jsonl``;
``tokens_before`` is the context size the wire reported before its ``CompactionBegin``);
"CHECKPOINT <n>" and D-Mail notes are ``custom`` messages (the model reads them; the user
did not type them). Tool output holding ``<system>ERROR`` is an error result. A
``wire.jsonl`` opened alone is not a transcript: its ``context.jsonl`` is.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sessionlens.engine.errors import NotATranscriptError
from sessionlens.engine.model import (
    ContentBlock,
    Diagnostic,
    FormatGaps,
    Message,
    SessionHeader,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    Usage,
)

from . import ParsedFile
from .claude_code_blocks import text_of
from .entry_chain import Chain, arguments_of, as_dict, as_list, epoch_ms, freeze, iso_from_ms
from .field_errors import read_guarded
from .jsonl import JsonLine, iter_objects, usage_count

__all__ = ["is_subagent_context", "parse", "session_id_of"]

_COMPACTED = "Previous context has been compacted"
_DMAIL = "You just got a D-Mail"


def is_subagent_context(path: Path) -> bool:
    return path.name.startswith("context_sub_")


def session_id_of(path: Path) -> str:
    """The session folder's name (a subagent context adds its file stem)."""
    sid = path.parent.name
    return f"{sid}/{path.stem}" if is_subagent_context(path) else sid


@dataclass(slots=True)
class _Step:
    ts: float
    texts: list[str] = field(default_factory=list)
    calls: list[str] = field(default_factory=list)
    usage: dict[str, Any] | None = None


@dataclass(slots=True)
class _Wire:
    """What ``wire.jsonl`` says about the main context, indexed for matching."""

    turns: list[tuple[str, float]] = field(default_factory=list)
    steps: list[_Step] = field(default_factory=list)
    results: dict[str, float] = field(default_factory=dict)
    compaction_tokens: list[int | None] = field(default_factory=list)


def _read_wire(path: Path) -> _Wire | None:
    try:
        data = path.read_bytes()
    except OSError:
        return None
    wire = _Wire()
    last_context: int | None = None
    for jl in iter_objects(data, path, []):
        msg, ts = jl.obj.get("message"), jl.obj.get("timestamp")
        if not isinstance(msg, dict) or not isinstance(ts, (int, float)):
            continue
        kind, payload = msg.get("type"), msg.get("payload")
        payload = as_dict(payload)
        if kind == "TurnBegin":
            wire.turns.append((text_of(payload.get("user_input")), float(ts)))
        elif kind == "StepBegin":
            wire.steps.append(_Step(float(ts)))
        elif kind == "ContentPart" and wire.steps:
            text = payload.get("think") if payload.get("type") == "think" else payload.get("text")
            if isinstance(text, str):
                wire.steps[-1].texts.append(text)
        elif kind == "ToolCall" and wire.steps and isinstance(payload.get("id"), str):
            wire.steps[-1].calls.append(payload["id"])
        elif kind == "ToolResult" and isinstance(payload.get("tool_call_id"), str):
            wire.results[payload["tool_call_id"]] = float(ts)
        elif kind == "StatusUpdate":
            if wire.steps and isinstance(payload.get("token_usage"), dict):
                wire.steps[-1].usage = payload["token_usage"]
            if isinstance(payload.get("context_tokens"), int):
                last_context = payload["context_tokens"]
        elif kind == "CompactionBegin":
            wire.compaction_tokens.append(last_context)
    return wire


def _wire_usage(raw: dict[str, Any]) -> Usage:
    inp, out = usage_count(raw.get("input_other")), usage_count(raw.get("output"))
    c_read, c_write = usage_count(raw.get("input_cache_read")), usage_count(
        raw.get("input_cache_creation"))
    return Usage(input=inp, output=out, cache_read=c_read, cache_write=c_write,
                 total_tokens=inp + out + c_read + c_write)


class _Reader:
    def __init__(self, path: Path, wire: _Wire | None) -> None:
        self.chain = Chain(path, "kimi")
        self.wire = wire
        self.turn = 0
        self.step = 0
        self.compactions = 0
        self.last_assistant: int | None = None
        self.matched = False

    def _ts(self, seconds: float | None) -> tuple[int | None, str | None]:
        ms = epoch_ms(seconds) if seconds is not None else None
        return ms, iso_from_ms(ms)

    def line(self, jl: JsonLine) -> None:
        obj = jl.obj
        role = obj.get("role")
        span: dict[str, Any] = {"line": jl.line, "offset": jl.offset, "length": jl.length}
        eid = f"{jl.line:08x}"
        if role == "_checkpoint":
            self.chain.add("checkpoint", eid, extra={"checkpoint_id": obj.get("id")}, **span)
        elif role == "_usage":
            count = usage_count(obj.get("token_count"))
            at = self.last_assistant
            if at is not None and count:
                msg = self.chain.entries[at].message
                if msg is not None and msg.usage is None:
                    self.chain.update_message(at, usage=Usage(total_tokens=count))
            self.last_assistant = None
        elif role == "user":
            self._user(obj, eid, span)
        elif role == "assistant":
            self._assistant(obj, eid, span)
        elif role == "tool":
            call_id = str(obj.get("tool_call_id") or "")
            ms, ts = self._ts(self.wire.results.get(call_id) if self.wire else None)
            text = text_of(obj.get("content"))
            self.chain.add("message", eid, timestamp=ts, message=Message(
                "toolResult", (TextBlock(text),) if text else (), timestamp_ms=ms,
                tool_call_id=call_id, is_error="<system>ERROR" in text), **span)
        else:
            self.chain.error(jl.line, f"a line with unknown role {role!r}; skipped")

    def _user(self, obj: dict[str, Any], eid: str, span: dict[str, Any]) -> None:
        text = text_of(obj.get("content"))
        head = text.lstrip()
        if _COMPACTED in head[:200]:
            summary = head.split("</system>", 1)[1].strip() if "</system>" in head[:300] else head
            before = None
            if self.wire is not None and self.compactions < len(self.wire.compaction_tokens):
                before = self.wire.compaction_tokens[self.compactions]
            self.compactions += 1
            self.chain.add("compaction", eid, summary=summary, first_kept_entry_id=eid,
                           tokens_before=before, extra={"source": "compacted context"}, **span)
            return
        if head.startswith("<system>") and ("CHECKPOINT" in head[:40] or _DMAIL in head[:200]):
            kind = "kimi.dmail" if _DMAIL in head[:200] else "kimi.checkpoint"
            self.chain.add("message", eid, message=Message(
                "custom", (TextBlock(text),), custom_type=kind), **span)
            return
        ms, ts = None, None
        if self.wire is not None:
            for k in range(self.turn, len(self.wire.turns)):
                if self.wire.turns[k][0].strip() == text.strip():
                    ms, ts = self._ts(self.wire.turns[k][1])
                    self.turn = k + 1
                    self.matched = True
                    break
        self.chain.add("message", eid, timestamp=ts, message=Message(
            "user", (TextBlock(text),) if text else (),
            content_is_string=isinstance(obj.get("content"), str), timestamp_ms=ms), **span)

    def _match_step(self, first_text: str, call_ids: list[str]) -> _Step | None:
        if self.wire is None:
            return None
        for k in range(self.step, len(self.wire.steps)):
            step = self.wire.steps[k]
            if (call_ids and call_ids[0] in step.calls) or \
                    (not call_ids and first_text and step.texts and step.texts[0] == first_text):
                self.step = k + 1
                self.matched = True
                return step
        return None

    def _assistant(self, obj: dict[str, Any], eid: str, span: dict[str, Any]) -> None:
        blocks: list[ContentBlock] = []
        content = obj.get("content")
        parts = content if isinstance(content, list) else [{"type": "text", "text": content}]
        first_text = ""
        for p in parts:
            if not isinstance(p, dict):
                continue
            if p.get("type") == "think":
                blocks.append(ThinkingBlock(str(p.get("think") or ""),
                                            redacted=not p.get("think") and bool(p.get("encrypted"))))
                first_text = first_text or str(p.get("think") or "")
            elif p.get("type") == "text" and p.get("text"):
                blocks.append(TextBlock(str(p["text"])))
                first_text = first_text or str(p["text"])
        ids: list[str] = []
        for c in as_list(obj.get("tool_calls")):
            if not isinstance(c, dict):
                continue
            fn = as_dict(c.get("function"))
            args, partial = arguments_of(fn.get("arguments"))
            ids.append(str(c.get("id") or ""))
            blocks.append(ToolCallBlock(ids[-1], str(fn.get("name") or ""), args, partial))
        step = self._match_step(first_text, ids)
        ms, ts = self._ts(step.ts if step is not None else None)
        usage = _wire_usage(step.usage) if step is not None and step.usage else None
        self.chain.add("message", eid, timestamp=ts, message=Message(
            "assistant", tuple(blocks), timestamp_ms=ms, api="openai-completions",
            provider="moonshot", usage=usage, stop_reason="toolUse" if ids else "stop"), **span)
        self.last_assistant = len(self.chain.entries) - 1


def parse(data: bytes, path: Path, *, on_progress: Callable[[int, int], None] | None = None,
          cancel: Callable[[], bool] | None = None) -> ParsedFile:
    """Read a Kimi ``context.jsonl`` (with ``wire.jsonl`` beside it when there is one)."""
    path = Path(path)
    first = data.lstrip()[:200]
    if first.startswith(b"{") and b'"protocol_version"' in first.split(b"\n", 1)[0]:
        raise NotATranscriptError(path, "this is a Kimi CLI wire log; open the context.jsonl "
                                  "beside it, which is the transcript (the wire log lends it "
                                  "times and usage)")
    wire = None if is_subagent_context(path) else _read_wire(path.with_name("wire.jsonl"))
    reader = _Reader(path, wire)
    diags: list[Diagnostic] = []
    for jl in iter_objects(data, path, diags, on_progress=on_progress, cancel=cancel):
        read_guarded(diags, str(path), jl.line, reader.line, jl)
    missing = ["model", "ids"]
    if not reader.matched:
        missing = ["timestamps", "usage", *missing]
    notes = ["times and per-call usage come from wire.jsonl" if reader.matched else
             "no wire.jsonl matched: the context size after each step is the only usage"]
    extra: dict[str, Any] = {"agent": "kimi-cli", "wire": wire is not None}
    if is_subagent_context(path):
        extra["parent_session_id"] = path.parent.name
    header = SessionHeader(id=session_id_of(path), version=0, provider="moonshot", line=0,
                           timestamp=next((e.timestamp for e in reader.chain.entries
                                           if e.timestamp), None), extra=freeze(extra))
    return reader.chain.parsed(header, FormatGaps("Kimi CLI", tuple(missing), tuple(notes)),
                               diags)
