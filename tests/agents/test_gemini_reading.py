"""Gemini CLI 0.61.0 as it writes today: a list rewrite is not a compaction, the compression
summary is the ``<state_snapshot>`` message of the rewritten list, and the replayed context is
what Gemini sent on its last turn (committed fixture; the slow test runs the CLI)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agents.drivers import gemini
from sessionlens.engine.lineage.forensics import analyze_compactions
from sessionlens.engine.load.context_text import context_texts
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.opened import open_transcript

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures/agents/gemini-cli-0.61.0/scenario"


def _merged(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Consecutive items of one role as one (Gemini sends consecutive user parts as one)."""
    out: list[dict[str, Any]] = []
    for item in items:
        if out and out[-1]["role"] == item["role"]:
            out[-1] = {"role": item["role"], "text": out[-1]["text"] + "\n" + item["text"]}
        else:
            out.append(dict(item))
    return out


def _snapshot_sets(path: Path) -> int:
    seen: set[str] = set()
    n = 0
    for raw in path.read_text().splitlines():
        obj = json.loads(raw)
        msgs = (obj.get("$set") or {}).get("messages") if isinstance(obj, dict) else None
        for m in msgs or []:
            text = "".join(p.get("text", "") for p in m.get("content") or [])
            if m["id"] not in seen and text.startswith("<state_snapshot>"):
                n += 1
            seen.add(m["id"])
        if isinstance(obj, dict) and isinstance(obj.get("id"), str):
            seen.add(obj["id"])
    return n


def _check(session: Path, last_request: list[dict[str, Any]]) -> None:
    t = load_transcript(session)
    assert len(t.compactions) == _snapshot_sets(session) >= 2
    assert all(c.summary == gemini.SNAPSHOT for c in t.compactions)
    mine = context_texts(t)
    assert mine[-1]["role"] == "assistant"           # the reply to the last request
    assert _merged([dict(i) for i in mine[:-1]]) == last_request


def test_the_committed_run_reads_as_gemini_sent_it() -> None:
    _check(FIXTURE / "session.jsonl", json.loads((FIXTURE / "last_request.json").read_text()))


@pytest.mark.slow
@pytest.mark.skipif(not gemini.available(), reason="gemini-cli or node not installed")
def test_a_fresh_run_reads_as_gemini_sent_it(tmp_path: Path) -> None:
    session, requests = gemini.run_scenario(tmp_path)
    assert sum(gemini.is_compression_request(r) for r in requests) >= 2
    chat = session.chats()[-1]
    _check(chat, gemini.contents_texts(requests[-1]))
    # every compression was automatic (compressionThreshold 0.0001 in the run's settings) and
    # a turn followed each; the window is Gemini's tokenLimit for the model
    opened = open_transcript(chat)
    found = analyze_compactions(opened.transcript, opened.resolved.settings)
    assert found and [f.trigger for f in found] == ["threshold"] * len(found)
    assert all(f.context_window == 1_048_576 for f in found)
    assert all("compressionThreshold in" in c.extra["trigger_source"]
               for c in opened.transcript.compactions)
    path = opened.transcript.path_entries()
    for at in [i for i, e in enumerate(path) if e.type == "compaction"]:
        assert any(e.role == "user" for e in path[at + 1:])


def test_the_committed_run_outside_a_gemini_home_gets_no_trigger() -> None:
    """Copied out of its Gemini home, the file does not say which settings Gemini read: no
    trigger is claimed from a default."""
    t = load_transcript(FIXTURE / "session.jsonl")
    assert t.compactions and all("trigger" not in c.extra for c in t.compactions)
