"""What the HTTP providers share: one httpx client, SSE reading and status-to-error mapping.

Failures become typed ``ProviderError`` subclasses with ``retryable`` set the way the retry
policy needs it: 429/5xx/529, timeouts, dropped connections, cut streams, malformed bodies
and empty completions are worth another try; auth errors, other 4xx and context overflow are
not. Error texts never include request headers, and whatever a server echoes back is
scrubbed of the key (any length) and of any secret the detector knows.
"""

from __future__ import annotations

import contextlib
import email.utils
import json
import time
from collections.abc import AsyncGenerator, Mapping
from typing import Any

import httpx

from sessionlens.engine.errors import (
    ContextOverflowError,
    ProviderAuthError,
    ProviderError,
    ProviderTimeoutError,
    ProviderUnavailableError,
)
from sessionlens.engine.plan.overflow import classify_error
from sessionlens.engine.secrets import scrub

from .base import ProviderProfile

__all__ = ["HttpProvider", "error_for_status", "iter_sse", "parse_retry_after"]

def parse_retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds from ``retry-after-ms`` / ``retry-after`` (seconds or an HTTP date)."""
    raw_ms = headers.get("retry-after-ms")
    if raw_ms:
        with contextlib.suppress(ValueError):  # not a number: try ``retry-after``
            return max(0.0, float(raw_ms) / 1000.0)
    raw = headers.get("retry-after")
    if not raw:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        parsed = email.utils.parsedate_to_datetime(raw) if raw else None
        return None if parsed is None else max(0.0, parsed.timestamp() - time.time())


def _body_message(body: str) -> str:
    try:
        data = json.loads(body)
    except ValueError:
        return body.strip()[:500]
    err = data.get("error") if isinstance(data, dict) else None
    if isinstance(err, dict):
        return str(err.get("message") or err.get("type") or err)[:500]
    if isinstance(err, str):
        return err[:500]
    return body.strip()[:500]


def error_for_status(status: int, body: str, headers: Mapping[str, str],
                     profile: ProviderProfile) -> ProviderError:
    detail = _body_message(body) or httpx.codes.get_reason_phrase(status)
    name, model = profile.name, profile.model
    text = f"{profile.name} ({profile.model or 'default model'}): HTTP {status}: {detail}"
    kind = classify_error(detail)
    if status in (401, 403) or kind == "auth":
        return ProviderAuthError(text + _key_hint(profile), status=status, provider=name, model=model)
    if kind == "overflow" or status == 413:
        return ContextOverflowError(text, status=status, provider=name, model=model)
    if status in (429, 529) or status >= 500 or kind in ("rate_limit", "retryable"):
        return ProviderUnavailableError(text, status=status, provider=name, model=model,
                                        retry_after=parse_retry_after(headers))
    return ProviderError(text, status=status, provider=name, model=model)


def _key_hint(profile: ProviderProfile) -> str:
    return f" (key from ${profile.key_env})" if profile.key_env else ""


async def iter_sse(response: httpx.Response) -> AsyncGenerator[tuple[str | None, str], None]:
    """Yield (event name, data) per server-sent event; multi-line data is joined with \\n."""
    event: str | None = None
    data: list[str] = []
    async for line in response.aiter_lines():
        if line == "":
            if data:
                yield event, "\n".join(data)
            event, data = None, []
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "event":
            event = value
        elif name == "data":
            data.append(value)
    if data:
        yield event, "\n".join(data)


class HttpProvider:
    """Base for providers that POST JSON and read a (streamed) answer."""

    def __init__(self, profile: ProviderProfile, client: httpx.AsyncClient | None = None) -> None:
        self._profile = profile
        self._client = client

    @property
    def profile(self) -> ProviderProfile:
        return self._profile

    def __repr__(self) -> str:
        p = self._profile
        return f"{type(self).__name__}(name={p.name!r}, model={p.model!r}, base_url={p.base_url!r})"

    def _fail(self, message: str, *, retryable: bool) -> ProviderError:
        p = self._profile
        return ProviderError(f"{p.name} ({p.model or 'default model'}): {message}",
                             provider=p.name, model=p.model, retryable=retryable)

    def _stream_object(self, data: str, noun: str) -> dict[str, Any]:
        """One SSE ``data`` payload as a JSON object; anything else is a retryable failure."""
        try:
            payload = json.loads(data)
        except ValueError:
            raise self._fail("malformed JSON in the stream", retryable=True) from None
        if not isinstance(payload, dict):
            raise self._fail(f"malformed {noun} in the stream", retryable=True)
        return payload

    def _require_key(self) -> str | None:
        key = self._profile.read_key()
        if self._profile.key_env and key is None:
            raise ProviderAuthError(
                f"{self._profile.name}: no API key: set the environment variable "
                f"{self._profile.key_env}", provider=self._profile.name,
                model=self._profile.model)
        return key

    async def _stream(self, url: str, headers: dict[str, str], body: dict[str, Any],
                      consume: Any) -> Any:
        """POST ``body`` and hand the open response to ``consume``; maps transport errors.

        ``timeout_s`` bounds each read and, as a deadline, the whole call: a server that
        drips a byte now and then cannot keep it alive past that.
        """
        import asyncio  # on first use: importing it (with ssl, sockets) costs every command

        client = self._client or httpx.AsyncClient()
        p = self._profile
        timeout = httpx.Timeout(p.timeout_s)
        keys = [v for v in (headers.get("x-api-key"), headers.get("authorization")) if v]
        keys += [v.removeprefix("Bearer ") for v in keys]
        try:
            async with asyncio.timeout(p.timeout_s):
                return await self._post(client, url, headers, body, consume, timeout)
        except TimeoutError:
            raise ProviderTimeoutError(
                f"{p.name} ({p.model or 'default model'}): no answer within "
                f"{p.timeout_s:g}s (the deadline for the whole call)", provider=p.name,
                model=p.model, retryable=True) from None
        except ProviderError as exc:  # a server may echo the key (or other secrets) back
            exc.args = tuple(scrub(str(a), keys) for a in exc.args)
            raise
        finally:
            if self._client is None:
                await client.aclose()

    async def _post(self, client: httpx.AsyncClient, url: str, headers: dict[str, str],
                    body: dict[str, Any], consume: Any, timeout: httpx.Timeout) -> Any:
        p = self._profile
        try:
            async with client.stream("POST", url, headers=headers, json=body,
                                     timeout=timeout) as response:
                if response.status_code >= 400:
                    raw = (await response.aread()).decode("utf-8", "replace")
                    raise error_for_status(response.status_code, raw, response.headers, p)
                return await consume(response)
        except httpx.TimeoutException as exc:
            raise ProviderTimeoutError(
                f"{p.name} ({p.model or 'default model'}): no answer within {p.timeout_s:g}s "
                f"({type(exc).__name__})", provider=p.name, model=p.model,
                retryable=True) from None
        except (httpx.RemoteProtocolError, httpx.ReadError) as exc:
            raise self._fail(f"connection dropped mid-answer ({type(exc).__name__})",
                             retryable=True) from None
        except httpx.TransportError as exc:
            raise self._fail(f"cannot reach {url} ({type(exc).__name__}: {exc})",
                             retryable=True) from None
