"""Cursor agent transcripts (``~/.cursor/projects/<project>/agent-transcripts/``).

Two shapes, both without ids, times, model, usage or tool output:

- ``<uuid>.jsonl`` (also nested as ``<uuid>/<uuid>.jsonl``): one ``{role, message:
  {content}}`` per line, content in the Anthropic block shape (``text``, ``tool_use`` with
  ``name`` and ``input`` but no id). Tool calls get ids made from their line and position;
  no result is recorded, so none is shown.
- ``<uuid>.txt``: blocks headed by a line ``user:`` or ``assistant:``. In an assistant
  block, ``<think>...</think>`` is reasoning, ``[Tool call] Name`` starts a tool call whose
  indented ``key: value`` lines are its arguments (kept as text), and ``[Tool result]
  Name`` marks that the call returned, without its output: it becomes an empty
  ``toolResult`` paired with the oldest open call of that name.

Cursor counts tokens with the model's tokenizer and writes no estimate of its own, so the
exact count is the one to use.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sessionlens.engine.model import (
    ContentBlock,
    Diagnostic,
    Format,
    FormatGaps,
    Message,
    SessionHeader,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
)

from . import ParsedFile
from .claude_code_blocks import map_block
from .entry_chain import Chain, freeze, text_message
from .field_errors import read_guarded
from .jsonl import JsonLine, iter_lines, iter_objects

__all__ = ["parse", "session_id_of"]

_GAPS = ("ids", "timestamps", "usage", "model", "tool_results")
_THINK = re.compile(r"<think>(.*?)</think>", re.S)
_HEADERS = {"user:": "user", "assistant:": "assistant"}
_CALL, _RESULT = "[Tool call] ", "[Tool result] "


def session_id_of(path: Path) -> str:
    """The transcript's uuid: its file name without the extension."""
    return path.stem


def _header(path: Path, fmt: Format) -> SessionHeader:
    return SessionHeader(id=session_id_of(path), version=0, line=0, extra=freeze(
        {"agent": "cursor", "layout": fmt, "project": path.parents[2].name
         if len(path.parents) > 2 and path.parent.name == "agent-transcripts" else None}))


def _jsonl(data: bytes, path: Path, on_progress: Callable[[int, int], None] | None,
           cancel: Callable[[], bool] | None) -> ParsedFile:
    chain = Chain(path, "cursor-jsonl")
    for jl in iter_objects(data, path, chain.diags, on_progress=on_progress, cancel=cancel):
        read_guarded(chain.diags, chain.spath, jl.line, _jsonl_line, chain, jl)
    gaps = FormatGaps("Cursor", _GAPS, ("tool calls are recorded without their results",))
    return chain.parsed(_header(path, "cursor-jsonl"), gaps)


def _jsonl_line(chain: Chain, jl: JsonLine) -> None:
    role, message = jl.obj.get("role"), jl.obj.get("message")
    if role not in ("user", "assistant") or not isinstance(message, dict):
        chain.error(jl.line, "a line without role user/assistant and a 'message' object; "
                    "skipped")
        return
    content = message.get("content")
    blocks: list[ContentBlock] = []
    items = content if isinstance(content, list) else [content]
    for k, raw in enumerate(items):
        block = map_block(raw)
        if isinstance(block, ToolCallBlock) and not block.id:
            block = ToolCallBlock(f"{jl.line:08x}:{k}", block.name, block.arguments)
        if block is not None:
            blocks.append(block)
    calls = any(isinstance(b, ToolCallBlock) for b in blocks)
    msg = Message(str(role), tuple(blocks), content_is_string=isinstance(content, str),
                  stop_reason=("toolUse" if calls else "stop") if role == "assistant"
                  else None)
    chain.add("message", f"{jl.line:08x}", line=jl.line, offset=jl.offset,
              length=jl.length, message=msg)


class _TxtBlock:
    """One ``user:`` / ``assistant:`` block of a plain-text transcript."""

    def __init__(self, role: str, line: int, offset: int) -> None:
        self.role, self.line, self.offset, self.end = role, line, offset, offset
        self.lines: list[str] = []


def _txt_message(block: _TxtBlock, chain: Chain) -> None:
    text: list[str] = []
    calls: list[tuple[str, str, dict[str, Any]]] = []
    results: list[str] = []
    current: dict[str, Any] | None = None
    key: str | None = None
    for k, raw in enumerate(block.lines):
        if raw.startswith(_CALL):
            name = raw[len(_CALL):].strip()
            current, key = {}, None
            calls.append((f"{block.line:08x}:{k}", name, current))
        elif raw.startswith(_RESULT):
            results.append(raw[len(_RESULT):].strip())
            current = None
        elif current is not None and raw.startswith("  "):
            body = raw[2:]
            head, sep, value = body.partition(": ")
            if sep and not body.startswith(" ") and head.replace("_", "").isalnum():
                key = head
                current[key] = value
            elif key is not None:
                current[key] += "\n" + body
        elif current is not None and not raw.strip():
            continue
        else:
            current = None
            text.append(raw)
    body = "\n".join(text).strip("\n")
    span: dict[str, Any] = {"line": block.line, "offset": block.offset, "length": block.end - block.offset}
    if block.role == "user":
        chain.add("message", f"{block.line:08x}", message=text_message("user", body), **span)
        return
    blocks: list[ContentBlock] = [ThinkingBlock(m.strip()) for m in _THINK.findall(body)]
    rest = _THINK.sub("", body).strip()
    if rest:
        blocks.append(TextBlock(rest))
    blocks.extend(ToolCallBlock(cid, name, args) for cid, name, args in calls)
    chain.add("message", f"{block.line:08x}", message=Message(
        "assistant", tuple(blocks), stop_reason="toolUse" if calls else "stop"), **span)
    open_calls = [(cid, name) for cid, name, _ in calls]
    for k, name in enumerate(results):
        match = next((c for c in open_calls if c[1] == name), None)
        if match is None:
            chain.warn(block.line, f"[Tool result] {name} answers no [Tool call] of its "
                       "block; kept unpaired")
            cid = f"{block.line:08x}:r{k}"
        else:
            open_calls.remove(match)
            cid = match[0]
        chain.add("message", f"{cid}:result", message=text_message(
            "toolResult", "", tool_call_id=cid, tool_name=name), extra={
                "content": "not recorded"}, **span)


def _txt(data: bytes, path: Path) -> ParsedFile:
    chain = Chain(path, "cursor-txt")
    diags: list[Diagnostic] = []
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        diags.append(Diagnostic(str(path), data.count(b"\n", 0, exc.start) + 1,
                                "not valid UTF-8; bad bytes read as U+FFFD", "warning"))
    blocks: list[_TxtBlock] = []
    for line_no, start, stop in iter_lines(data):
        raw = data[start:stop].decode("utf-8", "replace")
        role = _HEADERS.get(raw.strip()) if raw == raw.strip() else None
        if role is not None:
            blocks.append(_TxtBlock(role, line_no, start))
        elif blocks:
            blocks[-1].lines.append(raw)
        elif raw.strip():
            diags.append(Diagnostic(str(path), line_no, "text before the first 'user:' or "
                                    "'assistant:' line; skipped"))
        if blocks:
            blocks[-1].end = stop
    for block in blocks:
        _txt_message(block, chain)
    gaps = FormatGaps("Cursor", _GAPS, ("a [Tool result] line says a call returned, "
                                        "not what it returned",))
    return chain.parsed(_header(path, "cursor-txt"), gaps, diags)


def parse(data: bytes, path: Path, *, on_progress: Callable[[int, int], None] | None = None,
          cancel: Callable[[], bool] | None = None) -> ParsedFile:
    """Read a Cursor transcript (either shape); never raises for a bad line."""
    path = Path(path)
    head = data.lstrip(b"\xef\xbb\xbf \t\r\n")[:20]
    if head.startswith(b"{"):
        return _jsonl(data, path, on_progress, cancel)
    parsed = _txt(data, path)
    if on_progress is not None:
        on_progress(len(data), len(data))
    return parsed
