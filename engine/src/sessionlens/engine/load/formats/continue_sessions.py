"""Continue sessions (``~/.continue/sessions/<id>.json``, or ``$CONTINUE_GLOBAL_DIR/sessions``).

One object: ``sessionId``, ``title``, ``workspaceDirectory`` and ``history``, a list of
``{message, contextItems, toolCallStates, promptLogs, reasoning}`` items. Mapping decisions:

- ``user`` messages carry their text and images, then the context items attached to them
  (files, selections: Continue sends their content with the message, so they count).
- ``assistant`` messages: text and ``toolCalls``; the older chat mode's ``reasoning.text``
  is a thinking block, and the agent mode's separate ``thinking`` messages are assistant
  messages holding one thinking block. The model is the ``modelTitle`` of the item's
  ``promptLogs`` (else the session's ``chatModelTitle``), as Continue names it.
- ``tool`` messages are tool results; the ``toolCallStates`` status of their call says
  whether they failed (``errored``, ``canceled``).

Continue records no times (only when a reasoning block started), no token usage and no
compaction marker. It counts tokens with its own tokenizers (tiktoken / llama) rather than
a character rule, so the exact count is the one to use.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from sessionlens.engine.model import (
    ContentBlock,
    Diagnostic,
    FormatGaps,
    ImageBlock,
    Message,
    SessionHeader,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
)

from . import ParsedFile
from .entry_chain import (
    Chain,
    arguments_of,
    as_dict,
    as_list,
    as_str,
    epoch_ms,
    freeze,
    iso_from_ms,
    json_text,
    path_of_uri,
)
from .field_errors import read_guarded
from .jsondoc import Record, read_document

__all__ = ["parse"]

GAPS = FormatGaps("Continue", ("timestamps", "usage"), (
    "attached context items count as part of the user message they came with",))
_FAILED = frozenset({"errored", "canceled", "cancelled"})


def _user_blocks(content: Any, items: Any) -> list[ContentBlock]:
    blocks: list[ContentBlock] = []
    parts = content if isinstance(content, list) else [{"type": "text", "text": content}]
    for p in parts:
        if not isinstance(p, dict):
            continue
        if p.get("type") == "text" and isinstance(p.get("text"), str):
            blocks.append(TextBlock(p["text"]))
        elif p.get("type") == "imageUrl":
            url = (p.get("imageUrl") or {}).get("url") if isinstance(p.get("imageUrl"),
                                                                      dict) else None
            if isinstance(url, str) and url.startswith("data:") and "," in url:
                head, data = url.split(",", 1)
                blocks.append(ImageBlock(head[5:].split(";", 1)[0], data))
            else:
                blocks.append(TextBlock("[image]"))
    for item in as_list(items):
        if isinstance(item, dict) and isinstance(item.get("content"), str) and item["content"]:
            blocks.append(TextBlock(f"[context: {item.get('name') or ''}]\n{item['content']}"))
    return blocks


class _Session:
    def __init__(self, path: Path, default_model: str | None) -> None:
        self.chain = Chain(path, "continue")
        self.default_model = default_model
        self.states: dict[str, str] = {}

    def item(self, rec: Record) -> None:
        it = rec.value
        msg = it.get("message") if isinstance(it, dict) else None
        if not isinstance(msg, dict):
            self.chain.error(rec.line, f"history[{rec.index}] has no 'message' object; skipped")
            return
        assert isinstance(it, dict)
        role = msg.get("role")
        eid = str(msg.get("id") or f"h{rec.index}")
        span: dict[str, Any] = {"line": rec.line, "offset": rec.offset, "length": rec.length}
        for st in as_list(it.get("toolCallStates")):
            if isinstance(st, dict) and isinstance(st.get("toolCallId"), str):
                self.states[st["toolCallId"]] = str(st.get("status") or "")
        logs = [p for p in as_list(it.get("promptLogs")) if isinstance(p, dict)]
        model = next((str(p["modelTitle"]) for p in logs if p.get("modelTitle")),
                     self.default_model)
        content = msg.get("content")
        text = content if isinstance(content, str) else ""
        if role == "user":
            self.chain.add("message", eid, message=Message(
                "user", tuple(_user_blocks(content, it.get("contextItems")))), **span)
        elif role in ("assistant", "thinking"):
            blocks: list[ContentBlock] = []
            reasoning = it.get("reasoning")
            ms = None
            if isinstance(reasoning, dict) and isinstance(reasoning.get("text"), str):
                blocks.append(ThinkingBlock(reasoning["text"]))
                ms = epoch_ms(reasoning.get("startAt"))
            if role == "thinking":
                blocks.append(ThinkingBlock(text))
            elif text.strip():
                blocks.append(TextBlock(text))
            calls = [c for c in as_list(msg.get("toolCalls")) if isinstance(c, dict)]
            for c in calls:
                fn = as_dict(c.get("function"))
                args, partial = arguments_of(fn.get("arguments"))
                blocks.append(ToolCallBlock(str(c.get("id") or ""), str(fn.get("name") or ""),
                                            args, partial))
            self.chain.add("message", eid, timestamp=iso_from_ms(ms), message=Message(
                "assistant", tuple(blocks), timestamp_ms=ms, model=model,
                stop_reason="toolUse" if calls else "stop"),
                extra={"continue_role": role, "prompt_logs": len(logs)}, **span)
        elif role == "tool":
            call_id = str(msg.get("toolCallId") or "")
            body = text or (json_text(content) if content else "")
            self.chain.add("message", eid, message=Message(
                "toolResult", (TextBlock(body),) if body else (), tool_call_id=call_id,
                is_error=self.states.get(call_id) in _FAILED),
                extra={"status": self.states.get(call_id)}, **span)
        else:
            self.chain.warn(rec.line, f"history[{rec.index}] has unknown role {role!r}; "
                            "kept as a custom message")
            self.chain.add("message", eid, message=Message(
                "custom", (TextBlock(text),) if text else (), custom_type=f"continue.{role}"),
                **span)


def parse(data: bytes, path: Path, *, on_progress: Callable[[int, int], None] | None = None,
          cancel: Callable[[], bool] | None = None) -> ParsedFile:
    """Read a Continue session; never raises for a bad record."""
    path = Path(path)
    diags: list[Diagnostic] = []
    doc = read_document(data, path, diags, arrays=("history",))
    top = doc.top or {}
    default = as_str(top.get("chatModelTitle"))
    session = _Session(path, default)
    if isinstance(top.get("title"), str) and top["title"]:
        session.chain.add("session_info", "title", line=1, name=top["title"])
    for rec in doc.arrays.get("history", []):
        read_guarded(session.chain.diags, str(path), rec.line, session.item, rec)
    if on_progress is not None:
        on_progress(len(data), len(data))
    workspace = top.get("workspaceDirectory")
    cwd = path_of_uri(workspace)
    model = next((e.message.model for e in session.chain.entries
                  if e.message is not None and e.message.model), None)
    header = SessionHeader(id=str(top.get("sessionId") or path.stem), version=0, cwd=cwd,
                           model_id=model, line=1, extra=freeze(
                               {"agent": "continue", "mode": top.get("mode")}))
    return session.chain.parsed(header, GAPS, diags)
