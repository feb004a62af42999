"""A client for OpenAI-compatible ``/v1/embeddings`` (OpenAI, Ollama, llama.cpp, vLLM).

Only used when the user configures an endpoint: the default search is BM25 with no network
at all. The endpoint is a ``ProviderProfile`` like the summarizer's, so its key comes from
the environment at call time and is never stored. Secrets found in chunk text (keys,
tokens, passwords in URLs) are redacted before anything is sent, as they are for
summaries. Vectors are stored as little-endian float32 BLOBs (``pack``/``unpack``).
"""

from __future__ import annotations

import json
import math
import struct
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from sessionlens.engine.errors import (
    ConfigError,
    ProviderAuthError,
    ProviderError,
    ProviderTimeoutError,
    ProviderUnavailableError,
)
from sessionlens.engine.secrets import find_secrets, redact
from sessionlens.engine.summarize.providers.base import ProviderProfile

if TYPE_CHECKING:
    import httpx

__all__ = ["EmbeddingsClient", "cosine", "pack", "unpack"]

#: Texts per request (OpenAI allows 2048 inputs; local servers prefer small batches).
DEFAULT_BATCH = 32


def pack(vector: Sequence[float]) -> bytes:
    return struct.pack(f"<{len(vector)}f", *vector)


def unpack(blob: bytes) -> tuple[float, ...]:
    return struct.unpack(f"<{len(blob) // 4}f", blob)


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """Cosine similarity (0 when either vector is all zeros)."""
    dot = math.fsum(x * y for x, y in zip(a, b, strict=True))
    na = math.sqrt(math.fsum(x * x for x in a))
    nb = math.sqrt(math.fsum(y * y for y in b))
    return dot / (na * nb) if na and nb else 0.0


class EmbeddingsClient:
    """Turns texts into vectors through one endpoint; ``transport`` is injectable for tests."""

    def __init__(self, profile: ProviderProfile, *, batch_size: int = DEFAULT_BATCH,
                 transport: httpx.BaseTransport | None = None) -> None:
        if profile.kind not in ("openai", "local"):
            raise ConfigError(f"{profile.name}: embeddings need an OpenAI-compatible "
                              f"endpoint, not a {profile.kind!r} profile")
        if not profile.base_url:
            raise ConfigError(f"{profile.name}: no base URL for the embeddings endpoint")
        if not profile.model:
            raise ConfigError(f"{profile.name}: no embeddings model named")
        import httpx  # imported on first use, so importing the engine stays cheap

        from sessionlens.engine.summarize.providers.openai import openai_api_url

        self.profile = profile
        self.batch_size = max(1, batch_size)
        self.url = openai_api_url(profile.base_url, "embeddings")
        self._client = httpx.Client(transport=transport, timeout=profile.timeout_s)

    @property
    def model_key(self) -> str:
        """What the index files vectors under: vectors of two models never mix."""
        return f"{self.profile.model}@{self.url}"

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> EmbeddingsClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def embed(self, texts: Sequence[str]) -> list[tuple[float, ...]]:
        """One vector per text, in order (several requests when there are many texts)."""
        out: list[tuple[float, ...]] = []
        for i in range(0, len(texts), self.batch_size):
            out.extend(self._request(texts[i:i + self.batch_size]))
        return out

    def _headers(self) -> dict[str, str]:
        p = self.profile
        key = p.read_key()
        if p.key_env and key is None:
            raise ProviderAuthError(f"{p.name}: no API key: set the environment variable "
                                    f"{p.key_env}", provider=p.name, model=p.model)
        return {"authorization": f"Bearer {key}"} if key else {}

    def _fail(self, message: str, *, retryable: bool = False) -> ProviderError:
        p = self.profile
        return ProviderError(f"{p.name} ({p.model}): {message}", provider=p.name,
                             model=p.model, retryable=retryable)

    def _request(self, texts: Sequence[str]) -> list[tuple[float, ...]]:
        import httpx

        from sessionlens.engine.summarize.providers.http import error_for_status

        p = self.profile
        body = {"model": p.model, "input": [redact(t, find_secrets(t)) or " " for t in texts],
                "encoding_format": "float"}
        try:
            response = self._client.post(self.url, json=body, headers=self._headers())
        except httpx.TimeoutException:
            raise ProviderTimeoutError(f"{p.name} ({p.model}): no answer within "
                                       f"{p.timeout_s:g}s", provider=p.name, model=p.model,
                                       retryable=True) from None
        except httpx.TransportError as exc:
            raise ProviderUnavailableError(f"{p.name} ({p.model}): cannot reach {self.url} "
                                           f"({type(exc).__name__})", provider=p.name,
                                           model=p.model) from None
        if response.status_code >= 400:
            raise error_for_status(response.status_code, response.text, response.headers, p)
        try:
            payload: Any = json.loads(response.content)
        except ValueError:
            raise self._fail("the embeddings answer is not JSON", retryable=True) from None
        return self._vectors(payload, len(texts))

    def _vectors(self, payload: Any, expected: int) -> list[tuple[float, ...]]:
        data = payload.get("data") if isinstance(payload, dict) else None
        if not isinstance(data, list) or len(data) != expected:
            raise self._fail(f"expected {expected} embeddings in 'data', got "
                             f"{len(data) if isinstance(data, list) else 'none'}")
        by_index: dict[int, tuple[float, ...]] = {}
        for pos, item in enumerate(data):
            vec = item.get("embedding") if isinstance(item, dict) else None
            index = item.get("index", pos) if isinstance(item, dict) else pos
            if not isinstance(vec, list) or not vec or not all(
                    isinstance(x, int | float) and not isinstance(x, bool) for x in vec):
                raise self._fail("an embedding is not a list of numbers (is "
                                 "encoding_format 'float' supported?)")
            by_index[int(index)] = tuple(float(x) for x in vec)
        if sorted(by_index) != list(range(expected)):
            raise self._fail("the embeddings' 'index' fields do not cover the inputs")
        dims = {len(v) for v in by_index.values()}
        if len(dims) != 1:
            raise self._fail(f"embeddings of different lengths: {sorted(dims)}")
        return [by_index[i] for i in range(expected)]
