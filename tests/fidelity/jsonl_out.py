"""Write a ``TranscriptBuilder`` transcript as the v3 JSONL file pi and OpenClaw read.

The differential tests hand the same bytes to the agents' own code (in Node) and to
SessionLens's loader, so both sides read one file. This is the inverse of the loader for the
fields the builder sets, nothing more; message timestamps default to the entry's time, as
the agents write them.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from sessionlens.engine.model import (
    Entry,
    ImageBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    Transcript,
)

__all__ = ["write_jsonl"]


def _ms(timestamp: str | None) -> int:
    assert timestamp is not None
    return int(datetime.fromisoformat(timestamp.replace("Z", "+00:00")).timestamp() * 1000)


def _block(b: Any) -> dict[str, Any]:
    if isinstance(b, TextBlock):
        return {"type": "text", "text": b.text}
    if isinstance(b, ThinkingBlock):
        return {"type": "thinking", "thinking": b.thinking}
    if isinstance(b, ToolCallBlock):
        return {"type": "toolCall", "id": b.id, "name": b.name, "arguments": b.arguments}
    assert isinstance(b, ImageBlock)
    return {"type": "image", "data": b.data, "mimeType": b.mime_type}


def _content(blocks: tuple[Any, ...], as_string: bool) -> Any:
    if as_string and len(blocks) == 1 and isinstance(blocks[0], TextBlock):
        return blocks[0].text
    return [_block(b) for b in blocks]


def _message(msg: Message, ts: int) -> dict[str, Any]:
    out: dict[str, Any] = {"role": msg.role}
    stamp = msg.timestamp_ms if msg.timestamp_ms is not None else ts
    if msg.role == "bashExecution":
        out.update(command=msg.command or "", output=msg.output or "", exitCode=msg.exit_code,
                   cancelled=msg.cancelled, truncated=msg.truncated, timestamp=stamp)
        if msg.exclude_from_context:
            out["excludeFromContext"] = True
        return out
    out["content"] = _content(msg.content, msg.content_is_string)
    if msg.role == "assistant":
        out.update(api=msg.api, provider=msg.provider, model=msg.model)
        if msg.usage is not None:
            u = msg.usage
            usage: dict[str, Any] = {"input": u.input, "output": u.output,
                                     "cacheRead": u.cache_read, "cacheWrite": u.cache_write,
                                     "totalTokens": u.total_tokens,
                                     "cost": {"input": 0, "output": 0, "cacheRead": 0,
                                              "cacheWrite": 0, "total": 0}}
            if u.context_usage is not None:
                usage["contextUsage"] = {"state": "available", "totalTokens": u.context_usage}
            out["usage"] = usage
        out["stopReason"] = msg.stop_reason
        if msg.error_message:
            out["errorMessage"] = msg.error_message
    elif msg.role == "toolResult":
        out.update(toolCallId=msg.tool_call_id, toolName=msg.tool_name, isError=msg.is_error)
    elif msg.role == "custom":
        out.update(customType=msg.custom_type or "ext", display=msg.display)
    out["timestamp"] = stamp
    return out


def _entry(e: Entry) -> dict[str, Any]:
    out: dict[str, Any] = {"type": e.type, "id": e.id, "parentId": e.parent_id,
                           "timestamp": e.timestamp}
    if e.type == "message":
        assert e.message is not None
        out["message"] = _message(e.message, _ms(e.timestamp))
    elif e.type == "compaction":
        ops = e.file_ops
        out.update(summary=e.summary or "", firstKeptEntryId=e.first_kept_entry_id,
                   tokensBefore=e.tokens_before or 0,
                   details={"readFiles": list(ops.read_files) if ops else [],
                            "modifiedFiles": list(ops.modified_files) if ops else []})
        if e.from_hook:
            out["fromHook"] = True
    elif e.type == "branch_summary":
        out.update(fromId=e.from_id or "root", summary=e.summary or "")
    elif e.type == "custom_message":
        out.update(customType=e.custom_type or "ext", content=_content(e.content, False),
                   display=e.display)
    elif e.type == "model_change":
        out.update(provider=e.provider, modelId=e.model_id)
    elif e.type == "thinking_level_change":
        out["thinkingLevel"] = e.thinking_level
    elif e.type == "label":
        out.update(targetId=e.target_id, label=e.label)
    elif e.type == "reset":
        out["reason"] = e.reason or "reset"
        if e.first_kept_entry_id is not None:
            out["firstKeptEntryId"] = e.first_kept_entry_id
    elif e.type == "custom":
        out.update(customType=e.custom_type or "ext", data=e.data)
    return out


def write_jsonl(transcript: Transcript, path: Path, *, session_id: str = "",
                cwd: str = "/work") -> Path:
    """Write ``transcript`` (file order) as a v3 file at ``path``."""
    header = {"type": "session", "version": 3,
              "id": session_id or "00000000-0000-4000-8000-000000000000",
              "timestamp": "2026-01-01T00:00:00.000Z", "cwd": cwd}
    lines = [json.dumps(header)] + [json.dumps(_entry(e), ensure_ascii=False)
                                    for e in transcript.entries]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
