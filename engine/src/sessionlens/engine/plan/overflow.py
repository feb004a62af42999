"""Was it a context overflow? Error classification as pi and OpenClaw do it (§3.7, §3.8).

Overflow forensics must explain why a compaction fired, and the summarizer must know which
provider errors are worth a retry. Both rest on the same text rules, kept here:

* pi's ``OVERFLOW_PATTERNS`` (March 2026 list plus the newest additions, with the Cerebras
  "400/413 (no body)" rule), vetoed by ``NON_OVERFLOW_PATTERNS`` (throttling, rate limits);
* OpenClaw's own substring checks, minus what it excludes (TPM rate limits, "context window
  too small", billing and reasoning-constraint errors);
* the two silent cases: a successful ``stop`` whose input exceeds the window (z.ai) and a
  ``length`` stop with no output and a full window (Xiaomi MiMo).

Pure functions, no I/O.
"""

from __future__ import annotations

import re
from typing import Literal

from sessionlens.engine.model import Message

__all__ = [
    "ErrorClass", "NON_OVERFLOW_PATTERNS", "OVERFLOW_PATTERNS", "RETRYABLE_PATTERN",
    "classify_error", "is_context_overflow", "is_overflow_text", "overflow_reason",
    "stated_window",
]

ErrorClass = Literal["overflow", "rate_limit", "retryable", "auth", "other"]

_I = re.IGNORECASE

#: pi ``OVERFLOW_PATTERNS`` (PM 2026-03 list plus the EP additions), provider in the comment.
OVERFLOW_PATTERNS: tuple[re.Pattern[str], ...] = tuple(re.compile(p, _I) for p in (
    r"prompt is too long",                                   # Anthropic
    r"request_too_large",                                    # Anthropic 413 (bytes)
    r"input is too long for requested model",                # Amazon Bedrock
    r"exceeds the context window",                           # OpenAI
    r"exceeds (?:the )?(?:model'?s )?maximum context length(?: of [\d,]+ tokens?|\s*\([\d,]+\))",
    r"input token count.*exceeds the maximum",               # Google Gemini
    r"maximum prompt length is \d+",                         # xAI
    r"reduce the length of the messages",                    # Groq
    r"maximum context length is \d+ tokens",                 # OpenRouter
    r"exceeds (?:the )?maximum allowed input length of [\d,]+ tokens?",  # Poolside
    r"input \(\d+ tokens\) is longer than the model'?s context length \(\d+ tokens\)",  # Together
    r"exceeds the limit of \d+",                             # GitHub Copilot
    r"exceeds the available context size",                   # llama.cpp
    r"greater than the context length",                      # LM Studio
    r"context window exceeds limit",                         # MiniMax
    r"exceeded model token limit",                           # Kimi
    r"too large for model with \d+ maximum context length",  # Mistral
    r"model_context_window_exceeded",                        # z.ai
    r"prompt too long; exceeded (?:max )?context length",    # Ollama
    r"this model.?s maximum context length is \d+",          # vLLM
    r"requested \d+ output tokens",                          # vLLM
    r"prompt contains.*\d+ input tokens",                    # vLLM
    r"for a total of.*\d+ tokens",                           # vLLM
    r"context[_ ]length[_ ]exceeded",
    r"too many tokens",
    r"token limit exceeded",
    r"^4(?:00|13)\s*(?:status code)?\s*\(no body\)",         # Cerebras
    # In newer pi-derived lists than the EP commit checked; both are unambiguous overflows
    # (the DashScope one appears in a real OpenClaw overflow chain, sample 03).
    r"range of input length should be",                      # Alibaba DashScope (Qwen)
    r"prompt has [\d,]+ tokens?, but the configured context size is [\d,]+ tokens?",
))

#: Errors that look like overflows but are not (Bedrock throttling, rate limits).
NON_OVERFLOW_PATTERNS: tuple[re.Pattern[str], ...] = tuple(re.compile(p, _I) for p in (
    r"^(?:Throttling error|Service unavailable):",
    r"rate limit",
    r"too many requests",
))

#: pi's retryable-error test (``_isRetryableError``); applies only to non-overflow errors.
RETRYABLE_PATTERN = re.compile(
    r"overloaded|rate.?limit|too many requests|429|500|502|503|504|service.?unavailable|"
    r"server.?error|internal.?error|connection.?error|connection.?refused|other side closed|"
    r"fetch failed|upstream.?connect|reset before headers|terminated|retry delay", _I)

# OpenClaw's substring checks (lower-cased text).
_OPENCLAW_SUBSTRINGS = (
    "request_too_large", "request exceeds the maximum size", "context length exceeded",
    "maximum context length", "prompt is too long", "prompt too long",
    "exceeds model context window", "model token limit", "context_window_exceeded",
    "context window exceeded", "context overflow",
)
_OPENCLAW_CJK = ("上下文过长", "上下文超出", "上下文长度超", "超出最大上下文", "请压缩上下文")
# What OpenClaw refuses to call an overflow even when a phrase above matches.
_OPENCLAW_EXCLUDED = re.compile(
    r"tokens per minute|\btpm\b|context window.*(?:too small|minimum is)|rate[_ ]?limit|"
    r"too many requests|\b402\b|payment required|insufficient (?:credits|balance)|"
    r"credit balance|billing|reasoning.{0,40}(?:required|mandatory|cannot be disabled)", _I)

_RATE_LIMIT = re.compile(
    r"rate[_ .-]?limit|too many requests|\b429\b|throttl|resource[_ ]exhausted|"
    r"resource has been exhausted|tokens per minute|\btpm\b|requests per minute", _I)
_BILLING = re.compile(
    r"\b402\b|payment required|insufficient[_ ](?:quota|credits|balance)|credit balance|"
    r"exceeded your current quota|billing|out of credits", _I)
_AUTH = re.compile(
    r"\b401\b|\b403\b|invalid[_ ]?(?:api[_ ]?key|x-api-key)|incorrect api key|unauthori[sz]ed|"
    r"authentication|forbidden|permission denied|access denied|no api key|api key (?:is )?missing|"
    r"invalid token|token has expired", _I)


def _pi_overflow_text(text: str) -> bool:
    if any(p.search(text) for p in NON_OVERFLOW_PATTERNS):
        return False
    return any(p.search(text) for p in OVERFLOW_PATTERNS)


def _openclaw_overflow_text(text: str) -> bool:
    if _OPENCLAW_EXCLUDED.search(text):
        return False
    lower = text.lower()
    if any(s in lower for s in _OPENCLAW_SUBSTRINGS) or any(s in text for s in _OPENCLAW_CJK):
        return True
    if "request size exceeds" in lower and ("context window" in lower or "context length" in lower):
        return True
    return "413" in lower and "too large" in lower


def is_overflow_text(text: str | None) -> bool:
    """True if an error text says the input did not fit (pi's rules or OpenClaw's)."""
    if not text:
        return False
    return _pi_overflow_text(text) or _openclaw_overflow_text(text)


def overflow_reason(message: Message, context_window: int | None = None) -> str | None:
    """Why ``message`` counts as a context overflow (a short phrase), or None if it does not."""
    if message.role != "assistant":
        return None
    if message.stop_reason == "error" and message.error_message:
        if _pi_overflow_text(message.error_message):
            return "error message matches pi's overflow patterns"
        if _openclaw_overflow_text(message.error_message):
            return "error message matches OpenClaw's overflow checks"
    usage = message.usage
    if usage is None or not context_window or context_window <= 0:
        return None
    prompt = usage.input + usage.cache_read
    if message.stop_reason == "stop" and prompt > context_window:
        return f"silent overflow: input {prompt} > window {context_window}"
    if message.stop_reason == "length" and usage.output == 0 and prompt >= 0.99 * context_window:
        return f"length stop with no output and a full window ({prompt} of {context_window})"
    return None


def is_context_overflow(message: Message, context_window: int | None = None) -> bool:
    """pi ``isContextOverflow`` (all three cases) plus OpenClaw's substring checks."""
    return overflow_reason(message, context_window) is not None


def classify_error(text: str | None) -> ErrorClass:
    """Sort a provider error text for retry decisions.

    ``overflow`` (compact, don't retry as is), ``rate_limit`` (retry after a pause), ``auth``
    (a key problem: never retry), ``retryable`` (pi's transient-error regex), else ``other``.
    Billing and quota errors are ``other``: retrying cannot fix them.
    """
    if not text:
        return "other"
    if is_overflow_text(text):
        return "overflow"
    if _BILLING.search(text):
        return "other"
    if _RATE_LIMIT.search(text):
        return "rate_limit"
    if _AUTH.search(text):
        return "auth"
    if RETRYABLE_PATTERN.search(text):
        return "retryable"
    return "other"


#: Phrasings in which a provider states the model's window in an error (the number is the
#: window, never the prompt size): OpenAI/OpenRouter/vLLM "maximum context length is N",
#: LiteLLM "(of N tokens)", Together "context length (N tokens)", Mistral "with N maximum
#: context length", Alibaba/DashScope "Range of input length should be [1, N]".
_WINDOW_STATEMENTS: tuple[re.Pattern[str], ...] = tuple(re.compile(p, _I) for p in (
    r"maximum context length is ([\d,]+)",
    r"maximum context length of ([\d,]+) tokens",
    r"context length \(([\d,]+) tokens\)",
    r"with ([\d,]+) maximum context length",
    r"range of input length should be \[\s*\d+\s*,\s*([\d,]+)\s*\]",
    r"maximum allowed input length of ([\d,]+) tokens",
    r"exceeds the context window of ([\d,]+)",
))


def stated_window(text: str | None) -> int | None:
    """The context window an overflow error states, if it states one (else None)."""
    if not text:
        return None
    for pattern in _WINDOW_STATEMENTS:
        m = pattern.search(text)
        if m is not None:
            value = int(m.group(1).replace(",", ""))
            if 1_000 <= value <= 100_000_000:
                return value
    return None
