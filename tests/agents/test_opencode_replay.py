"""OpenCode 1.18.33's replay: SessionLens's replayed context of each prefix of the session
equals the messages OpenCode sent its model next, before and after its compaction.

The scenario (``opencode.run_replay_scenario``: a ``read`` round trip, a refused turn, an
automatic compaction that keeps a tail, OpenCode's own "Continue" turn, a turn after it)
runs the binary once for the module (about a minute). After a compaction OpenCode sends the
compaction request as a user turn ("What did we do so far?"), the summary as the
assistant's answer, then the tail it kept and what followed (``filterCompacted`` and
``toModelMessages``). The system prompt is OpenCode's and not in the database: only the
messages are compared. @ai-sdk/anthropic sends consecutive user messages as one: both sides
are compared with consecutive user items joined.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agents.drivers import opencode
from fixtures.scripted_model import Request
from sessionlens.engine.lineage.forensics import analyze_compactions
from sessionlens.engine.load.context_text import ContextText, context_texts
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.load.tree import build_transcript
from sessionlens.engine.model import Transcript
from sessionlens.engine.opened import resolve_settings

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not opencode.available(), reason="opencode not installed")]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, list[Request]]]:
    session, requests = opencode.run_replay_scenario(tmp_path_factory.mktemp("opencode"))
    codes = [done.returncode for done in session.outputs]
    # the refused turn (the second) fails; every other one answers
    assert codes[1] != 0 and codes[:1] + codes[2:] == [0] * 4, \
        [done.stderr[-500:] for done in session.outputs]
    yield session.db, requests


def _conversation(requests: list[Request]) -> list[Request]:
    """The requests of the session's own turns (not the title or the summary)."""
    return [r for r in requests if "title generator" not in r.system_text()[:300]
            and not opencode.is_summary_request(r)]


def _block_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in content or [] if isinstance(b, dict))


def _wire(request: Request) -> list[ContextText]:
    """The Anthropic messages OpenCode sent as ``{role, text}`` items (context_text's terms)."""
    out: list[ContextText] = []
    for m in request.messages():
        texts: list[str] = []
        items: list[ContextText] = []
        for b in m["content"] if isinstance(m["content"], list) else [
                {"type": "text", "text": m["content"]}]:
            if b["type"] == "text":
                texts.append(b["text"])
            elif b["type"] == "tool_use":
                items.append({"role": "tool_call", "text": f"{b['name']} " + json.dumps(
                    b["input"], sort_keys=True, separators=(",", ":"))})
            elif b["type"] == "tool_result":
                items.append({"role": "tool_result", "text": _block_text(b.get("content"))})
        if texts:
            items.insert(0, {"role": m["role"], "text": "\n".join(texts)})
        out += items
    return _joined(out)


def _joined(items: list[ContextText]) -> list[ContextText]:
    out: list[ContextText] = []
    for item in items:
        if out and item["role"] == "user" and out[-1]["role"] == "user":
            out[-1] = {"role": "user", "text": out[-1]["text"] + "\n" + item["text"]}
        else:
            out.append(dict(item))  # type: ignore[arg-type]
    return out


def _prefixes(t: Transcript) -> list[Transcript]:
    """The session up to each assistant message of its own turns (one per model call)."""
    ends = [i for i, e in enumerate(t.entries) if e.role == "assistant"]
    return [build_transcript(t.path, t.format, t.header, t.entries[:i], ()) for i in ends]


def test_replay_is_what_opencode_sent_on_every_turn(run: tuple[Path, list[Request]]) -> None:
    db, requests = run
    t = load_transcript(db)
    assert not t.diagnostics
    sent = _conversation(requests)
    prefixes = _prefixes(t)
    assert len(sent) == len(prefixes) == 7
    for n, (request, prefix) in enumerate(zip(sent, prefixes, strict=True)):
        assert _joined(context_texts(prefix)) == _wire(request), f"request {n}"


def test_after_the_compaction_the_summary_answers_opencodes_question(
        run: tuple[Path, list[Request]]) -> None:
    db, requests = run
    t = load_transcript(db)
    (comp,) = t.compactions
    after = [r for r in _conversation(requests) if "What did we do so far?" in r.all_text()]
    assert len(after) == 2  # OpenCode's own "Continue" turn, and the turn after it
    for request in after:
        wire = _wire(request)
        assert wire[:3] == [{"role": "user", "text": "What did we do so far?"},
                            {"role": "assistant", "text": opencode.SUMMARY},
                            {"role": "user", "text": '"a turn the model refuses"\n'
                                                     '"second turn"'}]
    # the tail OpenCode kept starts at the refused turn, and SessionLens keeps the same
    assert comp.first_kept_entry_id == next(e.id for e in t.entries if e.role == "user"
                                            and "refuses" in (e.message.text if e.message
                                                              else ""))
    mine = context_texts(t)
    assert mine[:2] == _wire(after[-1])[:2]


def test_trigger_and_window_of_the_replay_scenario(run: tuple[Path, list[Request]]) -> None:
    db, _ = run
    t = load_transcript(db)
    resolved = resolve_settings(t)
    assert resolved.window == opencode.WINDOW
    (found,) = analyze_compactions(t, resolved.settings)
    assert found.trigger == "threshold" and found.context_window == opencode.WINDOW
    assert t.compactions[0].extra["trigger"] == "auto"
