"""Anthropic Messages API shapes (as Claude Code stores them) mapped onto the shared model.

Kept apart from the line loop in ``claude_code.py``: this part knows content blocks, usage
and stop reasons; the loop knows lines, ids and the tree. Unknown block types are kept as a
short text marker rather than dropped, so a reader sees that something was there and token
estimates do not silently shrink.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import orjson

from sessionlens.engine.model import (
    ContentBlock,
    ImageBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    Usage,
)

from .jsonl import usage_count

__all__ = [
    "STOP_REASONS", "iso_to_ms", "map_block", "map_blocks", "map_usage",
    "text_of", "tool_result_blocks",
]

#: Anthropic ``stop_reason`` -> the pi / OpenClaw ``stopReason`` vocabulary.
STOP_REASONS: dict[str, str] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "toolUse",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "pause_turn": "stop",
    "refusal": "stop",
}

#: Block fields too large (or too opaque) to repeat inside a text marker.
_BULKY = frozenset({"data", "source", "content", "signature", "encrypted_content"})


def iso_to_ms(value: Any) -> int | None:
    """Epoch milliseconds of an ISO-8601 timestamp, or None when it does not parse."""
    if not isinstance(value, str) or not value:
        return None
    try:
        return int(datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp() * 1000)
    except ValueError:
        return None


def map_usage(raw: Any) -> Usage | None:
    """Anthropic usage -> Usage; ``input_tokens`` excludes cache reads and writes there."""
    if not isinstance(raw, dict):
        return None
    inp = usage_count(raw.get("input_tokens"))
    out = usage_count(raw.get("output_tokens"))
    c_read = usage_count(raw.get("cache_read_input_tokens"))
    c_write = usage_count(raw.get("cache_creation_input_tokens"))
    return Usage(input=inp, output=out, cache_read=c_read, cache_write=c_write,
                 total_tokens=inp + out + c_read + c_write)


def _marker(block: dict[str, Any]) -> TextBlock:
    """A readable stand-in for a block type the model has no class for."""
    btype = block.get("type")
    rest = {k: v for k, v in block.items() if k != "type" and k not in _BULKY}
    body = orjson.dumps(rest).decode() if rest else ""
    return TextBlock(f"[{btype}] {body}".rstrip())


def _image(block: dict[str, Any]) -> ContentBlock:
    source = block.get("source")
    if isinstance(source, dict):
        if source.get("type") == "base64" and isinstance(source.get("data"), str):
            return ImageBlock(str(source.get("media_type") or ""), source["data"])
        if isinstance(source.get("url"), str):
            return TextBlock(f"[image: {source['url']}]")
    return TextBlock("[image]")


def map_block(block: Any) -> ContentBlock | None:
    """One Anthropic content block (not ``tool_result``) -> a model block."""
    if isinstance(block, str):
        return TextBlock(block)
    if not isinstance(block, dict):
        return None
    btype = block.get("type")
    if btype == "text":
        return TextBlock(str(block.get("text") or ""))
    if btype == "thinking":
        sig = block.get("signature")
        return ThinkingBlock(str(block.get("thinking") or ""),
                             signature=sig if isinstance(sig, str) and sig else None)
    if btype == "redacted_thinking":
        return ThinkingBlock("", redacted=True)
    if btype == "tool_use":
        args = block.get("input")
        return ToolCallBlock(id=str(block.get("id") or ""), name=str(block.get("name") or ""),
                             arguments=args if args is not None else {})
    if btype == "image":
        return _image(block)
    if btype == "tool_reference":
        return TextBlock(f"[tool_reference: {block.get('tool_name') or ''}]")
    return _marker(block)


def map_blocks(blocks: Any) -> tuple[ContentBlock, ...]:
    """A list of blocks (or a plain string) -> model blocks, in order."""
    if isinstance(blocks, str):
        return (TextBlock(blocks),)
    if not isinstance(blocks, list):
        return ()
    out: list[ContentBlock] = []
    for b in blocks:
        mapped = map_block(b)
        if mapped is not None:
            out.append(mapped)
    return tuple(out)


def tool_result_blocks(block: dict[str, Any]) -> tuple[ContentBlock, ...]:
    """The content of a ``tool_result`` block (a string or text / image blocks)."""
    content = block.get("content")
    if content is None:
        return ()
    return map_blocks(content)


def text_of(content: Any) -> str:
    """Plain text of a message ``content`` (string, or the text blocks joined)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(b.get("text") or "") for b in content
                         if isinstance(b, dict) and b.get("type") == "text")
    return ""
