"""Files pi 1.6.0 wrote (``tests/fixtures/agents/pi-1.6.0``), read without running pi: the
replayed context after each compaction is what pi sent its model next (the recorded
requests), triggers are inferred from the usage before each compaction, and the file reads
as pi's (no memory flush verdict)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fixtures.scripted_model import Request
from sessionlens.engine.lineage.forensics import analyze_compactions
from sessionlens.engine.lineage.memory_flush import analyze_memory_flush
from sessionlens.engine.load.context_messages import context_messages
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.load.tree import build_transcript
from sessionlens.engine.model import Transcript
from sessionlens.engine.plan.rules import file_agent, pi_evidence
from sessionlens.engine.settings import CompactionSettings

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "agents" / "pi-1.6.0"
#: The driver's pi settings (models.json window, settings.json reserve and keep).
PI = CompactionSettings(context_window=8_000, reserve_tokens=2_000, reserve_tokens_floor=0,
                        keep_recent_tokens=300)
PREFIX = "The conversation history before this point was compacted into the following summary:"


def _requests(name: str) -> tuple[list[int], list[Request]]:
    rows: list[dict[str, Any]] = [json.loads(line) for line in
                                  (HERE / f"{name}.requests.jsonl").read_text().splitlines()]
    return rows[0]["after_compaction"], [
        Request("openai-chat", r["path"], {}, r["body"], 0.0) for r in rows[1:]]


def _sent(t: Transcript) -> list[tuple[str, str]]:
    out = []
    for m in context_messages(t):
        msg = t.entry(m.entry_id).message
        if m.role == "assistant" and msg is not None and msg.stop_reason in ("error", "aborted"):
            continue  # pi-ai's transformMessages skips failed turns
        out.append(({"compactionSummary": "user", "toolResult": "tool"}.get(m.role, m.role),
                    m.text))
    return out


def _wire(r: Request) -> list[tuple[str, str]]:
    from fixtures.scripted_model import _text_of

    return [(m["role"], _text_of(m.get("content"))) for m in r.messages()]


def _prefix(t: Transcript, request: Request, comp: int) -> Transcript:
    """The file as it was when pi sent ``request``: up to the compaction, plus the user
    message the request ends with when it is a new turn (an overflow retry has none)."""
    end = comp
    last = _wire(request)[-1]
    for i in range(comp + 1, len(t.entries)):
        e = t.entries[i]
        if e.role == "user" and e.message is not None and e.message.text == last[1]:
            end = i
            break
    return build_transcript(t.path, t.format, t.header, t.entries[:end + 1], ())


@pytest.mark.parametrize(("name", "triggers"), [("scenario", ["manual", "threshold"]),
                                                ("overflow", ["overflow-retry"])])
def test_replay_after_each_compaction_is_the_recorded_request(name: str,
                                                              triggers: list[str]) -> None:
    t = load_transcript(HERE / f"{name}.jsonl")
    after, requests = _requests(name)
    comps = [i for i, e in enumerate(t.entries) if e.type == "compaction"]
    assert len(comps) == len(triggers)
    for comp, index in zip(comps, after, strict=False):
        sent = _wire(requests[index])
        mine = _sent(_prefix(t, requests[index], comp))
        assert [r for r, _ in mine] == [r for r, _ in sent]
        for (_, text), (_, theirs) in zip(mine, sent, strict=True):
            assert (text in theirs and theirs.startswith(PREFIX)) or text == theirs
    assert [f.trigger for f in analyze_compactions(t, PI)] == triggers


def test_the_files_read_as_pis() -> None:
    for name in ("scenario", "overflow"):
        t = load_transcript(HERE / f"{name}.jsonl")
        assert file_agent(t).agent == "pi" and pi_evidence(t) is not None
        assert not [d for d in t.diagnostics if d.severity == "error"]
        flush = analyze_memory_flush(t, PI)
        assert all(c.reason == "not-openclaw" for c in flush.cycles)
