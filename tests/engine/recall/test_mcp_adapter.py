"""``sessionlens mcp`` over stdio, driven by the ``mcp`` SDK's own client: every tool on the
samples (sample 03's fact lost at compaction 2, and its original text), the scope refusing
a path outside it, and a planted secret absent from every answer."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from fixtures.samples import sample_path
from fixtures.secret_fixtures import PLANTED, compacted_secret_session
from sessionlens.engine.load.reader import load_transcript

mcp = pytest.importorskip("mcp")
import anyio  # noqa: E402  (after the skip: anyio comes with the SDK)
from mcp import Client, StdioServerParameters  # noqa: E402
from mcp.types import CallToolResult, Tool  # noqa: E402

ENGINE_SRC = Path(__file__).resolve().parents[3] / "engine" / "src"
TOOLS = {"search_sessions", "list_sessions", "session_overview", "trace_fact",
         "compaction_dropped", "original_text"}
Script = Callable[[Client], Awaitable[None]]


def serve(root: Path, basedir: Path, script: Script) -> None:
    """Start ``python -m sessionlens.engine.cli mcp --root ROOT`` and run ``script`` on it."""
    env = {"PYTHONPATH": os.pathsep.join([str(ENGINE_SRC), os.environ.get("PYTHONPATH", "")])}
    if "TIKTOKEN_CACHE_DIR" in os.environ:
        env["TIKTOKEN_CACHE_DIR"] = os.environ["TIKTOKEN_CACHE_DIR"]
    params = StdioServerParameters(command=sys.executable, env=env, args=[
        "-m", "sessionlens.engine.cli", "mcp", "--root", str(root), "--basedir", str(basedir)])

    async def run() -> None:
        async with Client(params) as client:
            await script(client)

    anyio.run(run)


def data(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.content
    assert isinstance(result.structured_content, dict)
    return result.structured_content


@pytest.fixture(scope="module")
def on_samples(samples_dir: Path, tmp_path_factory: pytest.TempPathFactory
               ) -> dict[str, Any]:
    """One server over the samples; every answer the tests look at, by name."""
    s03 = str(sample_path(samples_dir, "03_").resolve())
    got: dict[str, Any] = {"s03": s03}

    async def script(c: Client) -> None:
        got["tools"] = (await c.list_tools()).tools
        got["sessions"] = data(await c.call_tool("list_sessions", {"limit": 50}))
        got["search"] = data(await c.call_tool("search_sessions",
                                               {"query": "missing_brave_api_key"}))
        got["overview"] = data(await c.call_tool("session_overview", {"session": s03}))
        got["trace"] = data(await c.call_tool(
            "trace_fact", {"session": s03, "text": "missing_brave_api_key"}))
        lost = got["trace"]["lost_at_compaction_id"]
        got["dropped"] = data(await c.call_tool(
            "compaction_dropped", {"session": s03, "compaction_id": lost}))
        fact = next(d for d in got["dropped"]["dropped"] if d["value"] == "missing_brave_api_key")
        got["original"] = data(await c.call_tool(
            "original_text", {"session": s03, "entry_ids": fact["entry_ids"]}))
        got["outside"] = await c.call_tool("session_overview", {"session": "/etc/hostname"})
        got["too_long"] = await c.call_tool(
            "original_text", {"session": s03, "entry_ids": ["x"], "max_chars": 10 ** 6})

    serve(samples_dir, tmp_path_factory.mktemp("mcp-base"), script)
    return got


def test_tools_are_listed_read_only_with_schemas(on_samples: dict[str, Any]) -> None:
    tools: list[Tool] = on_samples["tools"]
    assert {t.name for t in tools} == TOOLS
    for t in tools:
        assert t.annotations is not None and t.annotations.read_only_hint is True
        assert t.description and len(t.description) > 80
        assert t.output_schema is not None and "path" in json.dumps(t.output_schema)


def test_search_over_stdio_says_what_compaction_did(on_samples: dict[str, Any]) -> None:
    hits = on_samples["search"]["hits"]
    by_id = {h["entry_id"]: h for h in hits}
    assert by_id["d9e47ccd"]["path"] == on_samples["s03"]
    assert by_id["d9e47ccd"]["fate"]["text"].startswith("lost at compaction 578fa8c6")
    assert by_id["c87501e6"]["fate"]["text"] == "not compacted yet"


def test_overview_and_listing_over_stdio(on_samples: dict[str, Any],
                                         samples_dir: Path) -> None:
    o = on_samples["overview"]
    assert (o["path"], o["model"], o["compaction_count"]) == (
        on_samples["s03"], "MiniMax-M2.1", 5)
    assert o["memory_health"] == "critical" and len(o["compactions"]) == 5
    listed = on_samples["sessions"]
    assert listed["roots"] == [str(samples_dir.resolve())]
    assert on_samples["s03"] in [s["path"] for s in listed["sessions"]]


def test_a_fact_lost_at_compaction_2_and_its_original_text(
        on_samples: dict[str, Any]) -> None:
    trace = on_samples["trace"]
    assert trace["lost_at"] == "compaction 2 (578fa8c6)" and trace["path"] == on_samples["s03"]
    dropped = on_samples["dropped"]
    assert (dropped["number"], dropped["dropped_total"], dropped["total_loss"]) == (2, 3, True)
    original = on_samples["original"]
    assert original["path"] == on_samples["s03"]
    assert [e["entry_id"] for e in original["entries"]] == ["d9e47ccd"]
    assert '"error": "missing_brave_api_key"' in original["text"]
    assert "BRAVE_API_KEY in the Gateway environment" in original["text"]


def test_refusals_are_tool_errors(on_samples: dict[str, Any]) -> None:
    outside: CallToolResult = on_samples["outside"]
    assert outside.is_error and "outside the folders" in outside.content[0].text  # type: ignore[union-attr]
    assert on_samples["too_long"].is_error  # max_chars above the cap fails the schema


def test_a_planted_secret_is_in_no_answer(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    root.mkdir()
    path = compacted_secret_session(root / "secrets.jsonl")
    ids = [e.id for e in load_transcript(path).entries]
    before = {p: (p.stat().st_size, p.stat().st_mtime_ns) for p in root.rglob("*")}
    answers: list[CallToolResult] = []

    async def script(c: Client) -> None:
        calls: list[tuple[str, dict[str, Any]]] = [
            ("list_sessions", {}), ("session_overview", {"session": str(path)}),
            ("compaction_dropped", {"session": str(path)}),
            ("trace_fact", {"session": str(path), "text": "ci/env.sh"}),
            ("trace_fact", {"session": str(path), "text": PLANTED["github_token"]}),
            ("original_text", {"session": str(path), "entry_ids": ids, "max_chars": 20_000})]
        for words in ("AWS", "GitHub", "Bearer", "export", "password", "KEY", "deploy",
                      "postgres", "session", "stripe", PLANTED["openai_key"]):
            calls.append(("search_sessions", {"query": words, "limit": 20}))
        for name, args in calls:
            answers.append(await c.call_tool(name, args))
        offset: int | None = 0
        while offset is not None:  # small pages: a cut never shows part of a secret
            page = await c.call_tool("original_text", {"session": str(path), "entry_ids": ids,
                                                       "offset": offset, "max_chars": 37})
            answers.append(page)
            offset = data(page)["next_offset"]

    serve(root, tmp_path / "base", script)
    assert {p: (p.stat().st_size, p.stat().st_mtime_ns) for p in root.rglob("*")} == before
    wire = [json.dumps(a.structured_content) + json.dumps([b.model_dump() for b in a.content])
            for a in answers]
    leaked = {kind: i for i, text in enumerate(wire) for kind, value in PLANTED.items()
              if value in text or value[:12] in text}
    assert leaked == {}
    assert sum(not a.is_error for a in answers) == len(answers)
    whole = data(answers[5])["text"]
    assert whole.count("[REDACTED:") >= 10  # there was something to hide, and it was hidden
    hits = [h for a in answers[6:17] for h in data(a)["hits"]]
    assert len(hits) >= 8 and "[REDACTED:" in json.dumps(hits)
