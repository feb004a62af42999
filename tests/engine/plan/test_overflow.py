"""Overflow detection (§3.7) and error classes for retry decisions (§3.8)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fixtures.samples import sample_path
from sessionlens.engine.model import Message, Usage
from sessionlens.engine.plan.overflow import (
    OVERFLOW_PATTERNS,
    classify_error,
    is_context_overflow,
    is_overflow_text,
    overflow_reason,
)


def error(text: str) -> Message:
    return Message(role="assistant", stop_reason="error", error_message=text, usage=Usage())


# Real provider wordings, one per pattern family (from the providers' documented messages).
OVERFLOW_TEXTS = [
    "prompt is too long: 213462 tokens > 200000 maximum",
    '413 {"error":{"type":"request_too_large","message":"Request exceeds the maximum size"}}',
    "Input is too long for requested model.",
    "Your input exceeds the context window of this model",
    "Requested token count exceeds the model's maximum context length of 131072 tokens",
    "Input length (265330) exceeds model's maximum context length (262144).",
    "The input token count (1196265) exceeds the maximum number of tokens allowed (1048575)",
    "This model's maximum prompt length is 131072 but the request contains 537812 tokens",
    "Please reduce the length of the messages or completion",
    "This endpoint's maximum context length is 8192 tokens. However, you requested about 9000",
    "Input length 9000 exceeds the maximum allowed input length of 8,192 tokens.",
    "The input (9000 tokens) is longer than the model's context length (8192 tokens).",
    "prompt token count of 130000 exceeds the limit of 128000",
    "the request exceeds the available context size, try increasing it",
    "tokens to keep from the initial prompt is greater than the context length",
    "invalid params, context window exceeds limit",
    "Your request exceeded model token limit: 262144 (requested: 300000)",
    "Prompt contains 140000 tokens and 0 draft tokens, too large for model with 131072 maximum context length",
    "model_context_window_exceeded",
    "prompt too long; exceeded max context length by 1200 tokens",
    "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens",
    "Your request was rejected: token limit exceeded",
    "Bedrock: too many tokens in the request",
    "you requested 4096 output tokens and your prompt contains at least 130000 input tokens, "
    "for a total of at least 134096 tokens",
    "context_length_exceeded",
    "413 status code (no body)",
    "400 (no body)",
    "<400> InternalError.Algo.InvalidParameter: Range of input length should be [1, 6000]",
    "Prompt has 32769 tokens, but the configured context size is 32768 tokens",
]


@pytest.mark.parametrize("text", OVERFLOW_TEXTS)
def test_provider_overflow_messages(text: str) -> None:
    assert is_context_overflow(error(text))
    assert classify_error(text) == "overflow"


def test_every_pi_pattern_is_exercised() -> None:
    unmatched = [p.pattern for p in OVERFLOW_PATTERNS
                 if not any(p.search(t) for t in OVERFLOW_TEXTS)]
    assert unmatched == []


@pytest.mark.parametrize(("text", "kind"), [
    ("Throttling error: Too many tokens, please wait", "rate_limit"),
    ("Service unavailable: too many tokens", "retryable"),
    ("Rate limit reached: too many tokens per minute", "rate_limit"),
    ("429 Too Many Requests: token limit exceeded", "rate_limit"),
])
def test_vetoed_messages_are_not_overflows(text: str, kind: str) -> None:
    assert not is_context_overflow(error(text))
    assert classify_error(text) == kind


@pytest.mark.parametrize("text", [
    "上下文过长，请压缩上下文",
    "Error: exceeds model context window",
    "HTTP 413: payload too large",
    "request size exceeds the context window limit",
])
def test_openclaw_substring_checks(text: str) -> None:
    assert is_overflow_text(text)
    assert overflow_reason(error(text)) is not None


def test_openclaw_exclusions() -> None:
    assert not is_overflow_text("context window too small: minimum is 16000 tokens")
    assert not is_overflow_text("")
    assert not is_overflow_text(None)


def test_error_text_only_counts_on_error_stops() -> None:
    text = "prompt is too long"
    ok = Message(role="assistant", stop_reason="stop", error_message=text, usage=Usage())
    assert not is_context_overflow(ok)
    assert not is_context_overflow(Message(role="user", error_message=text))


def test_silent_overflow_needs_a_window() -> None:
    msg = Message(role="assistant", stop_reason="stop", usage=Usage(input=150_000, cache_read=60_000))
    assert not is_context_overflow(msg)
    assert not is_context_overflow(msg, 210_000)
    assert is_context_overflow(msg, 200_000)
    assert "silent" in (overflow_reason(msg, 200_000) or "")


def test_length_stop_with_full_window() -> None:
    full = Message(role="assistant", stop_reason="length", usage=Usage(input=99_000, output=0))
    assert is_context_overflow(full, 100_000)
    assert not is_context_overflow(full, 101_000)  # 99000 < 0.99 * 101000
    wrote = Message(role="assistant", stop_reason="length", usage=Usage(input=99_500, output=1))
    assert not is_context_overflow(wrote, 100_000)


@pytest.mark.parametrize(("text", "kind"), [
    ("529 overloaded_error: Overloaded", "retryable"),
    ("fetch failed", "retryable"),
    ("502 Bad Gateway", "retryable"),
    ("upstream connect error or disconnect/reset before headers", "retryable"),
    ("429 rate_limit_error: Number of request tokens has exceeded your per-minute rate limit",
     "rate_limit"),
    ("401 invalid x-api-key", "auth"),
    ("403 Forbidden", "auth"),
    ("You exceeded your current quota, please check your plan and billing details", "other"),
    ("400 messages: roles must alternate", "other"),
    ("", "other"),
])
def test_classify_error(text: str, kind: str) -> None:
    assert classify_error(text) == kind


@pytest.mark.samples
def test_real_error_turns(samples_dir: Path) -> None:
    """Sample 03's two error turns are a DashScope and a MiniMax overflow (OpenClaw compacted
    right after the second); sample 01's error is a tool-pairing 400, not an overflow."""
    def errors(prefix: str) -> list[str]:
        rows = [json.loads(line) for line in sample_path(samples_dir, prefix).read_text(
            encoding="utf-8").splitlines() if line.strip()]
        return [r["message"]["errorMessage"] for r in rows
                if isinstance(r.get("message"), dict)
                and r["message"].get("stopReason") == "error"]

    overflow = errors("03_")
    assert len(overflow) == 2
    assert [classify_error(t) for t in overflow] == ["overflow", "overflow"]
    assert all(is_context_overflow(error(t)) for t in overflow)
    other = errors("01_")
    assert other and all(classify_error(t) == "other" for t in other)
