"""Token estimates by an agent's own rule, for the agents that estimate at all.

``load.formats.catalog`` names each format's rule (``FormatEntry.token_rule``):

- ``pi``: pi / OpenClaw's ``ceil(chars / 4)`` (``estimate.py``; the report's
  ``estimate_context`` already is this).
- ``gemini``: Gemini CLI's ``estimateTokenCountSync``: 0.25 tokens per ASCII character and
  1.3 per other code point of text and thought parts; a part that is not text
  (``functionCall``, ``functionResponse``) costs its JSON length / 4; an image 3000; the sum
  rounded down per message.
- ``chars4``: OpenCode's ``Token.estimate``: ``round(length / 4)`` over the message's text,
  with tool arguments as their JSON.

No rule (None) means the agent does not estimate; the exact count is the number to use, and
the report says so instead of offering one.
"""

from __future__ import annotations

import math

from sessionlens.engine.model import Entry, ImageBlock, TextBlock, ThinkingBlock, ToolCallBlock

from .estimate import entry_count_text, estimate_entry_tokens, tool_arguments_json, utf16_len

__all__ = ["AGENT_RULES", "GEMINI_IMAGE_TOKENS", "agent_entry_tokens"]

AGENT_RULES = ("pi", "gemini", "chars4")
#: Gemini CLI's fixed estimate for an image.
GEMINI_IMAGE_TOKENS = 3000


def _gemini_text(text: str) -> float:
    if text.isascii():
        return len(text) * 0.25
    ascii_chars = sum(1 for ch in text if ord(ch) <= 127)
    return ascii_chars * 0.25 + (len(text) - ascii_chars) * 1.3


def _gemini(entry: Entry) -> int:
    msg = entry.message
    if msg is None:
        return math.floor(_gemini_text(entry.summary or "")) if entry.type in (
            "compaction", "branch_summary") else 0
    total = 0.0
    if msg.role == "toolResult":
        body = "".join(b.text for b in msg.content if isinstance(b, TextBlock))
        response = tool_arguments_json({"functionResponse": {
            "id": msg.tool_call_id or "", "name": msg.tool_name or "",
            "response": {"output": body}}})
        return math.floor(utf16_len(response) / 4)
    for b in msg.content:
        if isinstance(b, TextBlock):
            total += _gemini_text(b.text)
        elif isinstance(b, ThinkingBlock):
            total += _gemini_text(b.thinking)
        elif isinstance(b, ToolCallBlock):
            call = tool_arguments_json({"functionCall": {"name": b.name, "args": b.arguments}})
            total += utf16_len(call) / 4
        elif isinstance(b, ImageBlock):
            total += GEMINI_IMAGE_TOKENS
    return math.floor(total)


def agent_entry_tokens(entry: Entry, rule: str) -> int:
    """Tokens ``rule`` charges for one entry (0 for entries the model never sees)."""
    if rule == "pi":
        return estimate_entry_tokens(entry, "pi")
    if rule == "gemini":
        return _gemini(entry)
    if rule == "chars4":
        text = entry_count_text(entry)
        return max(0, math.floor(utf16_len(text) / 4 + 0.5))
    raise ValueError(f"unknown agent token rule {rule!r}")
