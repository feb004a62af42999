"""Claude Code 2.1.332 with ``sessionlens mcp`` registered, through the real binary (issue 38).

The server is registered for the run as ``--mcp-config FILE`` (the ``claude-code`` snippet
``sessionlens mcp --print-config claude-code`` prints, from ``registration_for``) with its
tools allowed by ``--allowedTools``. It answers about a temporary folder holding a copy of
sample 03 and a session built with the factories whose planted secrets a compaction dropped.
The scripted model calls ``search_sessions`` twice (the sample's fact, then the secrets'
turns) and then answers; each tool answer must be in the next request Claude Code sends,
and no planted secret in anything it sends. Twice: as Claude Code runs by default (MCP tools
deferred: the model first loads the schema with ``ToolSearch`` ``select:``) and with
``ENABLE_TOOL_SEARCH=false`` (the schemas in the first request). About 3 s a run.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from agents.drivers.claude_code import claude_binary, driver
from agents.drivers.sessionlens_side import PYTHONPATH
from fixtures.samples import sample_path
from fixtures.scripted_model import Reply, Request, Script, ToolCall
from fixtures.secret_fixtures import PLANTED, compacted_secret_session
from sessionlens.engine.recall.registration import registration_for

pytest.importorskip("mcp")
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(claude_binary() is None, reason="Claude Code not installed")]

TOOL = "mcp__sessionlens__search_sessions"
FACT = "missing_brave_api_key"   # sample 03: lost at a compaction, still live later on
SECRETS_QUERY = "deploy key"     # the secret session's turns its compaction dropped
#: By default 2.1.332 defers MCP tools behind its ToolSearch tool (the first request lists
#: them only by name); off, their schemas are in the request and the model calls them.
NO_TOOL_SEARCH = {"ENABLE_TOOL_SEARCH": "false"}


def mcp_config(root: Path, basedir: Path, dest: Path) -> Path:
    """The registration ``--print-config claude-code`` prints, as a file for
    ``--mcp-config``; the env carries this tree's engine (and the offline tiktoken cache)."""
    env = {"PYTHONPATH": PYTHONPATH}
    if "TIKTOKEN_CACHE_DIR" in os.environ:
        env["TIKTOKEN_CACHE_DIR"] = os.environ["TIKTOKEN_CACHE_DIR"]
    reg = registration_for("claude-code", [root], basedir, env=env)
    dest.write_text(reg.snippet, encoding="utf-8")
    return dest


def tool_results(request: Request) -> list[dict[str, Any]]:
    """The tool_result blocks of a request's last user message."""
    last = request.messages()[-1]
    content = last.get("content")
    return [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"] \
        if last.get("role") == "user" and isinstance(content, list) else []


def text_of(block: dict[str, Any]) -> str:
    content = block.get("content")
    if isinstance(content, str):
        return content
    return "\n".join(str(c.get("text", "")) for c in content or [] if isinstance(c, dict))


@pytest.fixture(scope="module", params=["tool-search", "direct"])
def run(request: pytest.FixtureRequest, samples_dir: Path,
        tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One ``claude -p`` turn: (ToolSearch,) search, search, answer; the requests, the
    paths, and ``first``: the index of the request that answers the first search. With
    "tool-search" (Claude Code's default) the model loads the schema first, as it is told
    to; with "direct" the schemas are in the first request."""
    base = tmp_path_factory.mktemp("claude-mcp")
    root = base / "sessions"
    root.mkdir()
    s03 = root / sample_path(samples_dir, "03_").name
    shutil.copyfile(sample_path(samples_dir, "03_"), s03)
    secrets = compacted_secret_session(root / "secrets.jsonl")
    before = {p: (p.stat().st_size, p.stat().st_mtime_ns) for p in root.rglob("*")}
    config = mcp_config(root, base / "sessionlens", base / "mcp.json")
    load = [Reply("", (ToolCall("ToolSearch", {"query": f"select:{TOOL}"}, "toolu_load"),))]
    search_first = request.param == "tool-search"
    script = Script.of([
        *(load if search_first else []),
        Reply("", (ToolCall(TOOL, {"query": FACT, "limit": 5}, "toolu_fact"),)),
        Reply("", (ToolCall(TOOL, {"query": SECRETS_QUERY, "limit": 5}, "toolu_secrets"),)),
        Reply("The key was lost at a compaction; the original text is in sample 03."),
    ], fallback=Reply("Noted."))  # distinct ids: a repeated tool_use id interrupts the turn
    env = {} if search_first else NO_TOOL_SEARCH
    with driver(base / "run", responder=script, env=env) as d:
        turn = d.turn("What happened to the Brave API key, and to the deploy keys?",
                      tools=f"Bash,Read,{TOOL}",
                      flags=[f"--mcp-config={config}", "--strict-mcp-config"])
        requests = list(d.server.requests)
    after = {p: (p.stat().st_size, p.stat().st_mtime_ns) for p in root.rglob("*")}
    return {"mode": request.param, "turn": turn, "requests": requests,
            "first": 2 if search_first else 1, "s03": str(s03.resolve()),
            "secrets": str(secrets.resolve()), "unchanged": before == after}


def test_claude_code_offers_the_recall_tools(run: dict[str, Any]) -> None:
    assert run["turn"].returncode == 0, run["turn"].result
    first: Request = run["requests"][0]
    if run["mode"] == "direct":
        assert TOOL in first.tool_names() and "mcp__sessionlens__trace_fact" in first.tool_names()
        return
    assert TOOL not in first.tool_names()           # deferred: listed by name only
    assert f"\n{TOOL}\n" in json.dumps(first.body).replace("\\n", "\n")
    after: Request = run["requests"][1]              # ToolSearch answered with a reference
    assert tool_results(after) == [{"type": "tool_result", "tool_use_id": "toolu_load",
                                    "content": [{"type": "tool_reference", "tool_name": TOOL}]}]
    schema = next(t for t in after.body["tools"] if t["name"] == TOOL)  # and the schema sent
    assert schema.get("defer_loading") is True and "compaction" in schema["description"]


def test_the_search_answer_is_in_the_next_request(run: dict[str, Any]) -> None:
    requests: list[Request] = run["requests"]
    n = run["first"]
    assert len(requests) == n + 2, [r.last_user_text()[:80] for r in requests]
    fact = answer(requests[n], "toolu_fact")
    assert fact["query"] == FACT
    hit = next(h for h in fact["hits"] if h["entry_id"] == "d9e47ccd")
    assert hit["path"] == run["s03"]                  # which session the answer came from
    assert hit["fate"]["text"].startswith("lost at compaction 578fa8c6")  # compaction 2
    dropped = answer(requests[n + 1], "toolu_secrets")
    assert dropped["hits"] and {h["path"] for h in dropped["hits"]} == {run["secrets"]}
    assert all(h["fate"]["text"].startswith("lost at compaction 00000065")
               for h in dropped["hits"])
    assert "[REDACTED:" in json.dumps(dropped)       # the hits held secrets, masked
    assert run["turn"].result.get("result", "").startswith("The key was lost")


def answer(request: Request, call_id: str) -> dict[str, Any]:
    """The one tool_result of ``request``'s last message, for ``call_id``, as JSON."""
    blocks = tool_results(request)
    assert [b["tool_use_id"] for b in blocks] == [call_id] and not blocks[0].get("is_error")
    value = json.loads(text_of(blocks[0]))
    assert isinstance(value, dict)
    return value


def test_no_planted_secret_reaches_the_model_and_nothing_is_written(
        run: dict[str, Any]) -> None:
    wire = [json.dumps(r.body, ensure_ascii=False) for r in run["requests"]]
    leaked = {kind: i for i, body in enumerate(wire) for kind, value in PLANTED.items()
              if value in body}
    assert leaked == {}
    assert run["unchanged"]
