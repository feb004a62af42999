"""Gemini CLI message records mapped onto the shared model (the log replay is ``gemini.py``).

- ``user`` records are user messages (``text`` parts; images from ``inlineData``).
- ``gemini`` records are assistant messages: ``thoughts`` become thinking blocks, then the
  text, then one tool call per ``toolCalls`` item. Each tool call's ``result`` (the
  ``functionResponse`` Gemini sent back) is a ``toolResult`` entry right after it, an error
  when the call's status is ``error`` or ``cancelled``.
- ``tokens`` is Gemini's usage metadata: ``input`` counts the cached part too, so it is split
  into input and cache read; thoughts count as output; ``total`` is the context size.
- ``error`` records (failed requests: quota, network) are assistant messages with stop
  reason ``error``, which is how pi records a failed turn.
- ``info`` and ``warning`` records are notices the user saw; the model never did.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from sessionlens.engine.load.formats.claude_code_blocks import iso_to_ms
from sessionlens.engine.load.formats.entry_chain import as_list, as_str, json_text
from sessionlens.engine.load.formats.jsonl import usage_count
from sessionlens.engine.model import (
    ContentBlock,
    ImageBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    Usage,
)

__all__ = ["COMPRESSED", "Piece", "record_pieces", "usage_of"]

#: The notice Gemini CLI shows after compressing the chat ("Context compressed from 68% to 3%.").
COMPRESSED = re.compile(r"Context compressed from (\d+)% to (\d+)%")
API = "google-gemini"


@dataclass(frozen=True, slots=True)
class Piece:
    """One entry a record contributes: its type, id suffix, and message or notice text."""

    etype: str
    suffix: str
    message: Message | None = None
    notice: str | None = None


def _parts(content: Any) -> tuple[ContentBlock, ...]:
    """Gemini ``Part`` objects (or a plain string) -> model blocks."""
    if isinstance(content, str):
        return (TextBlock(content),) if content else ()
    if isinstance(content, dict):
        content = [content]
    if not isinstance(content, list):
        return ()
    out: list[ContentBlock] = []
    for part in content:
        if isinstance(part, str):
            out.append(TextBlock(part))
        elif not isinstance(part, dict):
            continue
        elif isinstance(part.get("text"), str):
            out.append(TextBlock(part["text"]))
        elif isinstance(part.get("inlineData"), dict):
            data = part["inlineData"]
            mime = str(data.get("mimeType") or "")
            if mime.startswith("image/") and isinstance(data.get("data"), str):
                out.append(ImageBlock(mime, data["data"]))
            else:
                out.append(TextBlock(f"[inline data: {mime or 'unknown type'}]"))
        elif isinstance(part.get("fileData"), dict):
            out.append(TextBlock(f"[file: {part['fileData'].get('fileUri') or ''}]"))
        elif part:
            key = next(iter(part))
            out.append(TextBlock(f"[{key}] {json_text(part[key])[:200]}"))
    return tuple(out)


def usage_of(tokens: Any) -> Usage | None:
    """Gemini's ``{input, output, cached, thoughts, tool, total}`` -> Usage."""
    if not isinstance(tokens, dict):
        return None
    inp, cached = usage_count(tokens.get("input")), usage_count(tokens.get("cached"))
    out = usage_count(tokens.get("output")) + usage_count(tokens.get("thoughts"))
    total = usage_count(tokens.get("total")) or inp + out + usage_count(tokens.get("tool"))
    return Usage(input=max(inp - cached, 0), output=out, cache_read=cached, total_tokens=total)


def _thinking(thoughts: Any) -> list[ContentBlock]:
    out: list[ContentBlock] = []
    if not isinstance(thoughts, list):
        return out
    for t in thoughts:
        if isinstance(t, dict):
            subject, text = str(t.get("subject") or ""), str(t.get("description") or "")
            out.append(ThinkingBlock(f"{subject}\n{text}".strip()))
    return out


def _result(call: dict[str, Any], call_id: str, ms: int | None) -> Message | None:
    """The ``toolResult`` message of one tool call, or None when Gemini recorded none."""
    result = call.get("result")
    if not isinstance(result, list) or not result:
        return None
    blocks: list[ContentBlock] = []
    for part in result:
        response = part.get("functionResponse") if isinstance(part, dict) else None
        if isinstance(response, dict):
            body = response.get("response")
            if isinstance(body, dict) and isinstance(body.get("output"), str):
                blocks.append(TextBlock(body["output"]))
            elif isinstance(body, dict) and isinstance(body.get("error"), str):
                blocks.append(TextBlock(body["error"]))
            else:
                blocks.append(TextBlock(json_text(body)))
        else:
            blocks.extend(_parts(part))
    status = call.get("status")
    return Message("toolResult", tuple(blocks), timestamp_ms=iso_to_ms(call.get("timestamp"))
                   or ms, tool_call_id=call_id, tool_name=str(call.get("name") or ""),
                   is_error=status in ("error", "cancelled"))


def record_pieces(rec: dict[str, Any], rtype: str) -> Iterator[Piece]:
    """The entries one message record stands for, in order."""
    ms = iso_to_ms(rec.get("timestamp"))
    content = rec.get("content")
    if rtype == "user":
        yield Piece("message", "", Message("user", _parts(content),
                                           content_is_string=isinstance(content, str),
                                           timestamp_ms=ms))
        return
    if rtype == "error":
        text = content if isinstance(content, str) else json_text(content)
        yield Piece("message", "", Message("assistant", (), timestamp_ms=ms, api=API,
                                           provider="google", stop_reason="error",
                                           error_message=text))
        return
    if rtype != "gemini":
        text = content if isinstance(content, str) else json_text(content)
        yield Piece("notice", "", notice=text)
        return
    blocks: list[ContentBlock] = _thinking(rec.get("thoughts"))
    blocks.extend(_parts(content))
    calls = [c for c in as_list(rec.get("toolCalls")) if isinstance(c, dict)]
    ids: list[str] = []
    for k, call in enumerate(calls):
        call_id = str(call.get("id") or f"call-{k}")
        ids.append(call_id)
        blocks.append(ToolCallBlock(call_id, str(call.get("name") or ""),
                                    call.get("args") if call.get("args") is not None else {}))
    model = as_str(rec.get("model"))
    yield Piece("message", "", Message(
        "assistant", tuple(blocks), timestamp_ms=ms, api=API, provider="google", model=model,
        usage=usage_of(rec.get("tokens")), stop_reason="toolUse" if calls else "stop"))
    for call, call_id in zip(calls, ids, strict=True):
        msg = _result(call, call_id, ms)
        if msg is not None:
            yield Piece("message", f":{call_id}", msg)
