"""OpenClaw 2026.9.6 itself, run headless against the scripted model: what it writes.

One scenario (``drivers.openclaw.scenario``): two sessions; turns, a ``read`` tool call round
trip, a refused turn, automatic compactions (the window is 32,000 and OpenClaw's own system
prompt is ~13,000 tokens), a manual ``/compact Focus on ...`` through a loopback gateway, an
overflow that OpenClaw compacts and retries, and a turn after each compaction. It takes
minutes on a shared machine, so it runs once per test session (``slow``).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
import zstandard

from agents.drivers import openclaw as oc
from fixtures.scripted_model import ScriptedModel

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not oc.available(), reason="Node 24 / openclaw not installed")]


@pytest.fixture(scope="module")
def driven(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[oc.OpenClawRun,
                                                                        ScriptedModel]]:
    home = tmp_path_factory.mktemp("openclaw-home")
    with ScriptedModel(oc.Responder()) as model:
        run = oc.scenario(home, model)
        yield run, model


def _events(store: Path, session: str) -> list[dict[str, object]]:
    db = sqlite3.connect(f"{store.as_uri()}?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT event_json, event_zstd, event_utf8_bytes FROM "
                          "transcript_events WHERE session_id = ? ORDER BY seq",
                          (session,)).fetchall()
    finally:
        db.close()
    out = []
    for text, blob, size in rows:
        raw = text if blob is None else zstandard.ZstdDecompressor().decompress(
            blob, max_output_size=size).decode()
        out.append(json.loads(raw))
    return out


def test_openclaw_writes_only_its_store(driven: tuple[oc.OpenClawRun, ScriptedModel]) -> None:
    run, _model = driven
    assert run.store.is_file(), "\n".join(run.log)
    agent_dir = run.home / ".openclaw" / "agents" / "main"
    assert not list(agent_dir.rglob("*.jsonl")), "2026.9 writes no JSONL transcript"
    db = sqlite3.connect(f"{run.store.as_uri()}?mode=ro", uri=True)
    try:
        version = db.execute("SELECT schema_version FROM schema_meta").fetchone()[0]
        windows = dict(db.execute("SELECT session_id, session_key FROM session_windows"))
    finally:
        db.close()
    assert version == 23
    assert windows == {"alpha": "agent:main:explicit:alpha", "beta": "agent:main:explicit:beta"}


def test_the_scenario_ran_every_step(driven: tuple[oc.OpenClawRun, ScriptedModel]) -> None:
    run, model = driven
    events = _events(run.store, "alpha")
    assert events[0]["type"] == "session" and events[0]["version"] == 4
    messages = [e["message"] for e in events if e["type"] == "message"]
    roles = [m["role"] for m in messages]  # type: ignore[index]
    assert "toolResult" in roles
    assert any(m.get("stopReason") == "error" for m in messages)  # type: ignore[union-attr]
    compactions = [i for i, e in enumerate(events) if e["type"] == "compaction"]
    assert len(compactions) >= 3, [e["type"] for e in events]
    for at in compactions:  # a turn after each compaction
        assert any(e["type"] == "message" and e["message"]["role"] == "user"  # type: ignore[index]
                   for e in events[at + 1:])
    summarizer = [r for r in model.requests if not r.tool_names()]
    assert any("Focus on the meeting time and room" in r.all_text() for r in summarizer)
    assert len(_events(run.store, "beta")) > 3
