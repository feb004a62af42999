"""Anthropic Messages API over HTTP, streamed.

Events: ``message_start`` (input usage, model), ``content_block_delta`` (``text_delta``),
``message_delta`` (stop reason, output usage), ``message_stop`` (the end), ``error``
(e.g. ``overloaded_error``, mapped to HTTP 529 semantics). A stream that ends without
``message_stop`` was cut and is retried.
"""

from __future__ import annotations

import json
from contextlib import aclosing
from typing import Any

import httpx

from .base import Completion, CompletionRequest, CompletionUsage, DeltaCallback
from .http import HttpProvider, error_for_status, iter_sse

__all__ = ["ANTHROPIC_VERSION", "AnthropicProvider", "messages_url"]

ANTHROPIC_VERSION = "2023-06-01"
_ERROR_STATUS = {"overloaded_error": 529, "rate_limit_error": 429, "api_error": 500,
                 "authentication_error": 401, "permission_error": 403,
                 "request_too_large": 413, "invalid_request_error": 400, "not_found_error": 404}


def messages_url(base_url: str) -> str:
    base = (base_url or "https://api.anthropic.com").rstrip("/")
    if base.endswith("/messages"):
        return base
    return base + ("/messages" if base.endswith("/v1") else "/v1/messages")


class AnthropicProvider(HttpProvider):
    """A ``Provider`` for the Anthropic Messages API."""

    async def complete(self, request: CompletionRequest, *,
                       on_delta: DeltaCallback | None = None) -> Completion:
        p = self.profile
        key = self._require_key()
        headers = {"content-type": "application/json", "accept": "text/event-stream",
                   "anthropic-version": ANTHROPIC_VERSION}
        if key:
            headers["x-api-key"] = key
        body: dict[str, Any] = {
            "model": p.model, "system": request.system, "stream": True,
            "max_tokens": max(1, min(request.max_tokens, p.max_output_tokens)),
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
        }
        temperature = request.temperature if request.temperature is not None else p.temperature
        if temperature is not None:
            body["temperature"] = temperature

        async def consume(response: httpx.Response) -> Completion:
            return await self._streamed(response, on_delta)

        result: Completion = await self._stream(messages_url(p.base_url), headers, body, consume)
        return result

    async def _streamed(self, response: httpx.Response,
                        on_delta: DeltaCallback | None) -> Completion:
        parts: list[str] = []
        usage: dict[str, int] = {}
        model, stop, done = "", None, False
        async with aclosing(iter_sse(response)) as events:
            async for event, data in events:
                payload = self._stream_object(data, "event")
                kind = payload.get("type") or event
                if kind == "message_start":
                    message = payload.get("message") or {}
                    model = str(message.get("model") or "")
                    usage.update({k: int(v) for k, v in (message.get("usage") or {}).items()
                                  if isinstance(v, int)})
                elif kind == "content_block_delta":
                    delta = payload.get("delta") or {}
                    if delta.get("type") == "text_delta" and delta.get("text"):
                        parts.append(delta["text"])
                        if on_delta is not None:
                            on_delta(delta["text"])
                elif kind == "message_delta":
                    stop = (payload.get("delta") or {}).get("stop_reason") or stop
                    usage.update({k: int(v) for k, v in (payload.get("usage") or {}).items()
                                  if isinstance(v, int)})
                elif kind == "message_stop":
                    done = True
                    break
                elif kind == "error":
                    err = payload.get("error") or {}
                    status = _ERROR_STATUS.get(str(err.get("type")), 500)
                    raise error_for_status(status, json.dumps(payload), {}, self.profile)
        if not done:
            raise self._fail(f"the stream was cut after {sum(map(len, parts))} characters "
                             "(no message_stop)", retryable=True)
        text = "".join(parts)
        if not text.strip():
            raise self._fail(f"empty completion (stop_reason={stop})", retryable=True)
        return Completion(text, CompletionUsage(
            input_tokens=usage.get("input_tokens", 0), output_tokens=usage.get("output_tokens", 0),
            cache_read_tokens=usage.get("cache_read_input_tokens", 0),
            cache_write_tokens=usage.get("cache_creation_input_tokens", 0)),
            self.profile.name, model or self.profile.model, stop)
