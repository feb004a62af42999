"""Codex ``response_item`` payloads (OpenAI Responses items) mapped onto the shared model.

Kept apart from the line loop in ``codex.py``. Role decisions:

- ``developer`` messages (sandbox rules, collaboration mode) and the user-role messages Codex
  injects itself (``<environment_context>``, AGENTS.md instructions, ``<turn_aborted>``)
  become ``custom`` messages (``custom_type`` ``codex.developer`` / ``codex.context``): the
  model sees them, but they are not the user's asks, so audits looking for the latest user
  request do not mistake them for one.
- ``reasoning`` is an assistant message with one ThinkingBlock (summary text, plus raw
  reasoning text when present); reasoning Codex keeps only encrypted is ``redacted``.
- ``function_call`` / ``custom_tool_call`` / ``local_shell_call`` are assistant tool calls;
  their ``*_output`` items are ``toolResult`` messages paired by ``call_id``.
- ``web_search_call`` runs on OpenAI's side and has no output item, so it is an assistant
  text (``[web_search] query``), not a tool call that would stay unanswered.
"""

from __future__ import annotations

from typing import Any

import orjson

from sessionlens.engine.load.formats.jsonl import usage_count
from sessionlens.engine.model import (
    ContentBlock,
    ImageBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
)

__all__ = [
    "CONTEXT_PREFIXES", "CALL_TYPES", "OUTPUT_TYPES", "item_message", "usage_parts",
]

#: User-role texts Codex writes itself (not typed by the user).
CONTEXT_PREFIXES = (
    "<environment_context>", "<user_instructions>", "# AGENTS.md instructions",
    "<turn_aborted>",
)
CALL_TYPES = frozenset({"function_call", "custom_tool_call", "local_shell_call"})
OUTPUT_TYPES = frozenset({"function_call_output", "custom_tool_call_output",
                          "local_shell_call_output"})
API = "openai-responses"


def _content_blocks(content: Any) -> tuple[ContentBlock, ...]:
    """``input_text`` / ``output_text`` / ``input_image`` parts -> model blocks."""
    if isinstance(content, str):
        return (TextBlock(content),)
    if not isinstance(content, list):
        return ()
    out: list[ContentBlock] = []
    for part in content:
        if not isinstance(part, dict):
            continue
        ptype = part.get("type")
        if ptype in ("input_text", "output_text", "text", "summary_text", "reasoning_text"):
            out.append(TextBlock(str(part.get("text") or "")))
        elif ptype == "input_image":
            url = part.get("image_url")
            if isinstance(url, str) and url.startswith("data:") and "," in url:
                head, data = url.split(",", 1)
                out.append(ImageBlock(head[5:].split(";", 1)[0], data))
            else:
                out.append(TextBlock(f"[image: {url}]" if url else "[image]"))
        elif ptype == "refusal":
            out.append(TextBlock(str(part.get("refusal") or "")))
    return tuple(out)


def _output_blocks(output: Any) -> tuple[ContentBlock, ...]:
    """A tool output: a string, a list of content parts, or ``{content, success}``."""
    if isinstance(output, str):
        return (TextBlock(output),)
    if isinstance(output, dict):
        inner = output.get("content")
        if inner is not None:
            return _output_blocks(inner)
        return (TextBlock(orjson.dumps(output).decode()),)
    if isinstance(output, list):
        return _content_blocks(output)
    return ()


def _arguments(raw: Any) -> tuple[Any, str | None]:
    """Parsed arguments, and the raw text when it is not a JSON object."""
    if not isinstance(raw, str):
        return (raw if raw is not None else {}), None
    try:
        return orjson.loads(raw), None
    except orjson.JSONDecodeError:
        return raw, raw


def _thinking(payload: dict[str, Any]) -> ThinkingBlock:
    parts = [b.text for b in _content_blocks(payload.get("summary"))
             if isinstance(b, TextBlock)]
    parts += [b.text for b in _content_blocks(payload.get("content"))
              if isinstance(b, TextBlock)]
    text = "\n\n".join(p for p in parts if p)
    return ThinkingBlock(text, redacted=not text and bool(payload.get("encrypted_content")))


def item_message(payload: dict[str, Any], ms: int | None, tool_names: dict[str, str],
                 model: str | None, provider: str | None) -> Message | None:
    """The message one response item stands for, or None for item types that are not one."""
    ptype = payload.get("type")
    if not isinstance(ptype, str):
        return None

    def said(*blocks: ContentBlock) -> Message:
        return Message("assistant", blocks, api=API, provider=provider, model=model,
                       timestamp_ms=ms)

    if ptype == "message":
        role = payload.get("role")
        blocks = _content_blocks(payload.get("content"))
        if role == "assistant":
            return said(*blocks)
        if role == "developer" or role == "system":
            return Message("custom", blocks, custom_type=f"codex.{role}", timestamp_ms=ms)
        first = next((b.text for b in blocks if isinstance(b, TextBlock)), "")
        if first.lstrip().startswith(CONTEXT_PREFIXES):
            return Message("custom", blocks, custom_type="codex.context", timestamp_ms=ms)
        return Message("user", blocks, timestamp_ms=ms)
    if ptype == "reasoning":
        return said(_thinking(payload))
    if ptype in CALL_TYPES:
        call_id = str(payload.get("call_id") or payload.get("id") or "")
        name = str(payload.get("name") or ("local_shell" if ptype == "local_shell_call" else ""))
        if ptype == "function_call":
            args, partial = _arguments(payload.get("arguments"))
        elif ptype == "custom_tool_call":
            args, partial = {"input": payload.get("input")}, None
        else:
            args, partial = payload.get("action") or {}, None
        tool_names[call_id] = name
        return said(ToolCallBlock(call_id, name, args, partial))
    if ptype in OUTPUT_TYPES:
        call_id = str(payload.get("call_id") or "")
        output = payload.get("output")
        failed = isinstance(output, dict) and output.get("success") is False
        return Message("toolResult", _output_blocks(output), tool_call_id=call_id,
                       tool_name=tool_names.get(call_id), is_error=failed, timestamp_ms=ms)
    if ptype == "web_search_call":
        action = payload.get("action")
        query = action.get("query") if isinstance(action, dict) else None
        text = f"[web_search] {query}" if isinstance(query, str) and query else (
            "[web_search] " + orjson.dumps(action).decode() if action else "[web_search]")
        return said(TextBlock(text))
    return None


def usage_parts(raw: Any) -> dict[str, int] | None:
    """OpenAI usage (``input_tokens`` includes the cached part) split the way Usage wants."""
    if not isinstance(raw, dict):
        return None

    inp, cached, out = (usage_count(raw.get(k)) for k in
                        ("input_tokens", "cached_input_tokens", "output_tokens"))
    total = usage_count(raw.get("total_tokens")) or inp + out
    return {"input": max(inp - cached, 0), "cache_read": cached, "output": out,
            "total_tokens": total}
