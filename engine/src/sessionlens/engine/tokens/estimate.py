"""Per-message character estimates (pi and OpenClaw rules) and the text exact counts use.

Pure, no I/O. Two estimators, because they disagree and both matter (transcript-format.md §3.2):

* ``pi`` is what pi decides with (pi-coding-agent 0.58.3, ``core/compaction/compaction.js``
  ``estimateTokens``): ``ceil(chars / 4)``; user images are free, tool-result/custom images
  cost 4800 chars.
* ``openclaw`` is OpenClaw's (openclaw 2026.9.6, agent-core ``compaction.ts``
  ``estimateTokens``, chunk ``compaction-CAzwgOuQ.mjs``): characters are weighed by
  ``estimateStringChars`` (``normalization-core/cjk-chars.ts``), every image (user ones too)
  costs 2000 tokens, content blocks are joined with a newline, an omission marker is charged
  for images, and ``excludeFromContext`` costs 0.

Lengths are UTF-16 code units, because that is what JavaScript's ``.length`` counts: an
emoji is 2 chars to pi, 1 to Python. The persisted-sender suffix OpenClaw charges on user
messages that carry ``__openclaw`` sender metadata is not modelled (the loader keeps no such
metadata; none of the samples has it).
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any, Literal

import orjson

from sessionlens.engine.model import (
    Entry,
    ImageBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    Transcript,
)

__all__ = [
    "CHARS_PER_TOKEN", "EXACT_IMAGE_TOKENS", "OPENCLAW_IMAGE_TOKENS", "PI_IMAGE_CHARS",
    "EstimateRules", "entry_count_text", "entry_image_count", "estimate_entry_tokens",
    "estimate_message_chars", "estimate_string_chars", "estimate_tokens_from_chars",
    "known_pi_estimates", "measure_entry", "pi_entry_chars", "pi_entry_tokens", "pi_estimate",
    "system_parts", "tool_arguments_json", "tool_arguments_length", "utf16_len",
]

EstimateRules = Literal["pi", "openclaw"]

#: Both estimators divide characters by this and round up.
CHARS_PER_TOKEN = 4
#: pi charges an image in a toolResult or custom message as 4800 chars (1200 tokens).
PI_IMAGE_CHARS = 4800
#: Newest OpenClaw charges every image block as 2000 tokens (``IMAGE_BLOCK_TOKENS``).
OPENCLAW_IMAGE_TOKENS = 2000
#: An image has no text to tokenize; exact counts charge each one this many tokens (pi's
#: 4800 chars / 4). Real image cost depends on the provider and the image size.
EXACT_IMAGE_TOKENS = 1200

_OPENCLAW_IMAGE_CHARS = OPENCLAW_IMAGE_TOKENS * CHARS_PER_TOKEN
# What newest OpenClaw's summary serializer puts in place of an image, plus the largest
# role label it might be wrapped in; both are charged when a message holds an image.
_IMAGE_OMISSION = "[image data omitted from summary input]"
_OMISSION_WRAPPER = "\n\n[Tool result]: "

# OpenClaw 2026.9.6 ``estimateStringChars``: each code point in these ranges adds the given
# number of chars on top of its UTF-16 length (common CJK and Hangul +3, rare BMP ideographs
# and Yi +11, spacing/width forms +7, two supplementary blocks +10 and +14; the astral ones
# already count 2 UTF-16 units). Ranges and weights are the package's WEIGHTED_CJK_RANGES.
_CJK_WEIGHTS: tuple[tuple[int, tuple[tuple[int, int], ...]], ...] = (
    (3, ((0xB7, 0xB7), (0x3000, 0x319F), (0x4E00, 0x9FA5), (0xAC00, 0xD7AF),
         (0xFF01, 0xFF60))),
    (11, ((0x1100, 0x11FF), (0x2E80, 0x2FFF), (0x31A0, 0x4DFF), (0x9FA6, 0x9FFF),
          (0xA000, 0xA4FF), (0xA700, 0xA707), (0xA960, 0xA97F), (0xD7B0, 0xD7FF),
          (0xF900, 0xFAFF))),
    (7, ((0x2C7, 0x2C7), (0x2C9, 0x2CB), (0x2D9, 0x2D9), (0x2EA, 0x2EB), (0x305, 0x305),
         (0x323, 0x323), (0xFE10, 0xFE4F), (0xFF61, 0xFFDC), (0xFFE0, 0xFFE6))),
    (10, ((0x1D360, 0x1D371),)),
    (14, ((0x16FE0, 0x16FFF), (0x1AFF0, 0x1AFFF), (0x1B000, 0x1B16F), (0x1F200, 0x1F2FF),
          (0x20000, 0x2FA1F), (0x30000, 0x3344F))),
)

def _char_class(ranges: tuple[tuple[int, int], ...]) -> str:
    return "[" + "".join(f"{chr(a)}-{chr(b)}" for a, b in ranges) + "]"


_WEIGHTED = tuple((extra, re.compile(_char_class(ranges))) for extra, ranges in _CJK_WEIGHTS)
_ANY_WEIGHTED = re.compile(_char_class(tuple(r for _, ranges in _CJK_WEIGHTS for r in ranges)))


#: The size of a str's object less its characters, for one stored 4 bytes a character.
_UCS4_HEADER = sys.getsizeof("\U00010000") - 8


def utf16_len(text: str) -> int:
    """JavaScript's ``text.length``: code points above U+FFFF count twice."""
    if text.isascii():
        return len(text)
    n = len(text)
    # CPython stores a str holding any code point above U+FFFF at 4 bytes a character, so
    # one whose object is smaller than that holds none: its length is its UTF-16 length.
    # (A size check instead of encoding the text to UTF-16: a 100 MB session's estimate
    # spent a sixth of its time there.)
    if sys.getsizeof(text) < _UCS4_HEADER + 4 * (n + 1):
        return n
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def tool_arguments_length(arguments: Any) -> int:
    """``JSON.stringify(arguments).length``, without decoding the JSON when it is ASCII."""
    try:
        raw = orjson.dumps(arguments)
    except (TypeError, orjson.JSONEncodeError):
        return utf16_len(tool_arguments_json(arguments))
    return len(raw) if raw.isascii() else utf16_len(raw.decode())


def estimate_string_chars(text: str) -> int:
    """OpenClaw's ``estimateStringChars``: UTF-16 length plus the CJK weights above."""
    if not text:
        return 0
    if text.isascii():
        return len(text)
    chars = utf16_len(text)
    if _ANY_WEIGHTED.search(text) is None:
        return chars
    for extra, pattern in _WEIGHTED:
        found = pattern.findall(text)
        if found:
            chars += extra * len(found)
    return chars


def estimate_tokens_from_chars(chars: int) -> int:
    """``ceil(chars / 4)``, never negative (integer arithmetic: it runs once per entry)."""
    return -(-chars // CHARS_PER_TOKEN) if chars > 0 else 0


def tool_arguments_json(arguments: Any) -> str:
    """``JSON.stringify(arguments)``: compact separators, non-ASCII kept as is."""
    try:
        return orjson.dumps(arguments).decode()
    except (TypeError, orjson.JSONEncodeError):  # big ints, odd types
        return json.dumps(arguments, ensure_ascii=False, separators=(",", ":"), default=str)


def _content_texts(blocks: tuple[Any, ...]) -> list[str]:
    return [b.text for b in blocks if isinstance(b, TextBlock) and b.text]


def _image_count(blocks: tuple[Any, ...]) -> int:
    return sum(1 for b in blocks if isinstance(b, ImageBlock))


def _assistant_parts(blocks: tuple[Any, ...]) -> list[str]:
    parts: list[str] = []
    for b in blocks:
        if isinstance(b, TextBlock):
            parts.append(b.text)
        elif isinstance(b, ThinkingBlock):
            parts.append(b.thinking)
        elif isinstance(b, ToolCallBlock):
            parts.append(b.name)
            parts.append(tool_arguments_json(b.arguments))
    return parts


def _joined_chars(parts: list[str]) -> int:
    """OpenClaw chars of ``"\n".join(parts)`` (the weighting is additive over pieces)."""
    return sum(estimate_string_chars(p) for p in parts) + max(0, len(parts) - 1)


def _measure_message(msg: Message) -> tuple[str, int, int, int]:
    """(count text, pi chars, OpenClaw chars, images) of one message, in one pass."""
    role = msg.role
    if role == "assistant":
        parts = _assistant_parts(msg.content)
        oc = sum(estimate_string_chars(p) for p in parts)
        return "\n".join(parts), sum(utf16_len(p) for p in parts), oc, 0
    if role in ("user", "toolResult", "custom"):
        texts = _content_texts(msg.content)
        images = _image_count(msg.content)
        pi = sum(utf16_len(p) for p in texts)
        if role != "user":
            pi += PI_IMAGE_CHARS * images
        oc = _joined_chars(texts) + images * _OPENCLAW_IMAGE_CHARS
        if images:
            oc += len(_IMAGE_OMISSION) + len(_OMISSION_WRAPPER)
        return "\n".join(texts), pi, oc, images
    if role == "bashExecution":
        cmd, out = msg.command or "", msg.output or ""
        return (f"{cmd}\n{out}", utf16_len(cmd) + utf16_len(out),
                estimate_string_chars(cmd) + estimate_string_chars(out), 0)
    if role == "system":
        # counted exactly (the prompt the model reads), but neither pi 0.58 nor OpenClaw
        # estimates a system message (pi 1.6's own estimate lives in agents/pi/rule_1_6)
        return "\n".join(system_parts(msg)), 0, 0, _image_count(msg.content)
    return "", 0, 0, 0


def system_parts(msg: Message) -> list[str]:
    """What pi 1.6 ``estimateTokens`` measures of a stored system message: its text, each
    section that is not null, and ``JSON.stringify(toolsAdded)`` when it adds tools (images
    in its content are charged by the caller)."""
    parts = _content_texts(msg.content)
    parts += [v for v in (msg.sections or {}).values() if v]
    if msg.tools_added:
        parts.append(tool_arguments_json(list(msg.tools_added)))
    return parts


def measure_entry(entry: Entry) -> tuple[str, int, int, int]:
    """(count text, pi chars, OpenClaw chars, image count) for one entry, computed together.

    ``count_tokens`` calls this once per entry so tool arguments are serialized only once;
    the single-purpose functions below are views of it. Excluded bash runs cost 0 OpenClaw
    chars; compaction and branch summaries count their summary; ``custom_message`` entries
    count as the ``custom`` message they replay as; every other entry is empty.
    """
    msg = entry.message
    if msg is not None:
        text, pi, oc, images = _measure_message(msg)
        if msg.exclude_from_context:
            oc = 0
        return text, pi, oc, images
    if entry.type in ("compaction", "branch_summary"):
        summary = entry.summary or ""
        if entry.system_message is not None:  # pi 1.6: the context starts with it
            text, _, _, images = _measure_message(entry.system_message)
            return (f"{text}\n{summary}", utf16_len(summary), estimate_string_chars(summary),
                    images)
        return summary, utf16_len(summary), estimate_string_chars(summary), 0
    if entry.type == "custom_message":
        return _measure_message(Message(role="custom", content=entry.content))
    return "", 0, 0, 0


def estimate_message_chars(message: Message, rules: EstimateRules = "pi") -> int:
    """Characters the chosen estimator charges for one message (before dividing by 4)."""
    _, pi, oc, _ = _measure_message(message)
    if rules == "pi":
        return pi
    if rules == "openclaw":
        return 0 if message.exclude_from_context else oc
    raise ValueError(f"unknown estimate rules {rules!r}")


def _pi_message_chars(msg: Message) -> int:
    """pi chars of one message alone: ``_measure_message``'s second figure, without building
    the count text or weighing OpenClaw's rules (the chart and the planner want only this)."""
    role = msg.role
    n = 0
    if role == "assistant":
        for b in msg.content:
            if isinstance(b, TextBlock):
                n += utf16_len(b.text)
            elif isinstance(b, ThinkingBlock):
                n += utf16_len(b.thinking)
            elif isinstance(b, ToolCallBlock):
                n += utf16_len(b.name) + tool_arguments_length(b.arguments)
        return n
    if role in ("user", "toolResult", "custom"):
        images = 0
        for b in msg.content:
            if isinstance(b, TextBlock):
                n += utf16_len(b.text)
            elif isinstance(b, ImageBlock):
                images += 1
        return n if role == "user" else n + PI_IMAGE_CHARS * images
    if role == "bashExecution":
        return utf16_len(msg.command or "") + utf16_len(msg.output or "")
    return 0


def pi_entry_chars(entry: Entry) -> int:
    """pi chars of one entry, equal to ``measure_entry(entry)[1]`` at a fraction of its cost."""
    msg = entry.message
    if msg is not None:
        return _pi_message_chars(msg)
    if entry.type in ("compaction", "branch_summary"):
        return utf16_len(entry.summary or "")
    if entry.type == "custom_message":
        return _pi_message_chars(Message(role="custom", content=entry.content))
    return 0


def pi_entry_tokens(entry: Entry) -> int:
    """pi's estimate of one entry in tokens (``estimate_entry_tokens(entry, "pi")``)."""
    return estimate_tokens_from_chars(pi_entry_chars(entry))


def estimate_entry_tokens(entry: Entry, rules: EstimateRules = "pi") -> int:
    """Estimated tokens for one entry: messages by role, summaries by length, others 0."""
    if rules == "pi":
        return pi_entry_tokens(entry)
    if rules != "openclaw":
        raise ValueError(f"unknown estimate rules {rules!r}")
    return estimate_tokens_from_chars(measure_entry(entry)[2])


def known_pi_estimates(transcript: Transcript) -> dict[str, int]:
    """The transcript's pi estimates worked out so far, entry id -> tokens (``pi_estimate``
    fills it; a caller walking many entries looks it up once, not once per entry)."""
    return transcript.derive("pi_estimates", dict)


def pi_estimate(transcript: Transcript, entry: Entry,
                known: dict[str, int] | None = None) -> int:
    """``estimate_entry_tokens(entry, "pi")`` for an entry of ``transcript``, worked out once
    per transcript: ``inspect`` ran three analyses that each estimated all 28,000 entries of
    a 100 MB session (a second and a half of its answer). ``known`` is
    ``known_pi_estimates(transcript)``, when the caller already holds it."""
    if known is None:
        known = known_pi_estimates(transcript)
    value = known.get(entry.id)
    if value is None:
        value = known[entry.id] = pi_entry_tokens(entry)
    return value


def entry_image_count(entry: Entry) -> int:
    """Image blocks in the entry (each one charged ``EXACT_IMAGE_TOKENS`` in exact counts)."""
    return measure_entry(entry)[3]


def entry_count_text(entry: Entry) -> str:
    """The text an exact count is taken over: what pi's estimator measures, joined by newlines.

    Text and thinking, tool name plus JSON arguments, tool-result and custom text, bash command
    and output, compaction and branch summaries. Images are not text (see
    ``EXACT_IMAGE_TOKENS``); entries the model never sees give "".
    """
    return measure_entry(entry)[0]
