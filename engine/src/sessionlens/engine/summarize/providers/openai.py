"""OpenAI Chat Completions over HTTP, streamed (OpenAI, OpenRouter, Ollama, vLLM, llama.cpp
server, LM Studio all speak it). Usage comes back in the last chunk when the request asks
for ``stream_options.include_usage``; servers that ignore ``stream`` and answer with one JSON
body are read too.
"""

from __future__ import annotations

import json
from contextlib import aclosing
from typing import Any
from urllib.parse import urlsplit

import httpx

from .base import Completion, CompletionRequest, CompletionUsage, DeltaCallback
from .http import HttpProvider, error_for_status, iter_sse

__all__ = ["OpenAIProvider", "chat_completions_url", "openai_api_url"]


def openai_api_url(base_url: str, route: str) -> str:
    """``…/v1`` gets ``/<route>``; a bare host gets ``/v1/<route>``; a full URL stays."""
    base = (base_url or "https://api.openai.com/v1").rstrip("/")
    if base.endswith("/" + route):
        return base
    last = urlsplit(base).path.rsplit("/", 1)[-1]
    if last[:1] == "v" and last[1:].isdigit():
        return f"{base}/{route}"
    return f"{base}/v1/{route}"


def chat_completions_url(base_url: str) -> str:
    """``…/v1`` gets ``/chat/completions``; a bare host gets ``/v1/chat/completions``."""
    return openai_api_url(base_url, "chat/completions")


def _usage(raw: Any) -> CompletionUsage:
    if not isinstance(raw, dict):
        return CompletionUsage()
    details = raw.get("prompt_tokens_details") or {}
    cost = raw.get("cost")
    return CompletionUsage(
        input_tokens=int(raw.get("prompt_tokens") or 0),
        output_tokens=int(raw.get("completion_tokens") or 0),
        cache_read_tokens=int(details.get("cached_tokens") or 0) if isinstance(details, dict)
        else 0,
        cost=float(cost) if isinstance(cost, (int, float)) else None)


class OpenAIProvider(HttpProvider):
    """A ``Provider`` for any Chat Completions endpoint."""

    async def complete(self, request: CompletionRequest, *,
                       on_delta: DeltaCallback | None = None) -> Completion:
        p = self.profile
        key = self._require_key()
        headers = {"content-type": "application/json", "accept": "text/event-stream"}
        if key:
            headers["authorization"] = f"Bearer {key}"
        body: dict[str, Any] = {
            "model": p.model or "default",
            "messages": [{"role": "system", "content": request.system}]
            + [{"role": m.role, "content": m.content} for m in request.messages],
            "max_tokens": max(1, min(request.max_tokens, p.max_output_tokens)),
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        temperature = request.temperature if request.temperature is not None else p.temperature
        if temperature is not None:
            body["temperature"] = temperature

        async def consume(response: httpx.Response) -> Completion:
            if "text/event-stream" not in response.headers.get("content-type", ""):
                return self._whole(await response.aread())
            return await self._streamed(response, on_delta)

        result: Completion = await self._stream(chat_completions_url(p.base_url), headers, body,
                                                consume)
        return result

    def _finish(self, parts: list[str], usage: CompletionUsage, model: str,
                finish: str | None) -> Completion:
        text = "".join(parts)
        if not text.strip():
            raise self._fail(f"empty completion (finish_reason={finish})", retryable=True)
        return Completion(text, usage, self.profile.name, model or self.profile.model, finish)

    def _whole(self, raw: bytes) -> Completion:
        try:
            data = json.loads(raw)
            choice = data["choices"][0]
            text = (choice.get("message") or {}).get("content") or ""
        except (ValueError, KeyError, IndexError, TypeError, AttributeError):
            raise self._fail("malformed JSON answer", retryable=True) from None
        return self._finish([text], _usage(data.get("usage")), str(data.get("model") or ""),
                            choice.get("finish_reason"))

    async def _streamed(self, response: httpx.Response,
                        on_delta: DeltaCallback | None) -> Completion:
        parts: list[str] = []
        usage = CompletionUsage()
        model, finish, done = "", None, False
        async with aclosing(iter_sse(response)) as events:
            async for _event, data in events:
                if data.strip() == "[DONE]":
                    done = True
                    break
                chunk = self._stream_object(data, "chunk")
                if chunk.get("error"):
                    err = chunk["error"]
                    code = err.get("code") if isinstance(err, dict) else None
                    raise error_for_status(code if isinstance(code, int) and code >= 400 else 500,
                                           json.dumps(chunk), {}, self.profile)
                model = str(chunk.get("model") or model)
                for choice in chunk.get("choices") or ():
                    piece = (choice.get("delta") or {}).get("content")
                    if piece:
                        parts.append(piece)
                        if on_delta is not None:
                            on_delta(piece)
                    finish = choice.get("finish_reason") or finish
                if chunk.get("usage"):
                    usage = _usage(chunk["usage"])
        if not done and finish is None:
            raise self._fail(f"the stream was cut after {sum(map(len, parts))} characters "
                             "(no finish_reason, no [DONE])", retryable=True)
        return self._finish(parts, usage, model, finish)
