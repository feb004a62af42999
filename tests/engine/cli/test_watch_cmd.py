"""``sessionlens watch --json``: events as JSON lines while a session is appended to."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fixtures.factories import TranscriptBuilder
from fixtures.openclaw_store import ALPHA_LEAF, append_events, unpack_store
from fixtures.openclaw_store import assistant_event as assistant
from fixtures.openclaw_store import compaction_event as compaction
from fixtures.openclaw_store import user_event as user


@pytest.mark.slow
def test_watch_prints_context_and_compaction_events(tmp_path: Path) -> None:
    b = TranscriptBuilder(tmp_path / "s.jsonl")
    b.user("deploy to staging.example.com:8443")
    b.assistant("deployed", usage=2_000)
    path = b.write(tmp_path / "s.jsonl")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.Popen([sys.executable, "-m", "sessionlens.engine.cli", "watch", str(path),
                             "--json", "--for", "8"], stdout=subprocess.PIPE, text=True,
                            env=env)
    assert proc.stdout is not None
    first = json.loads(proc.stdout.readline())
    assert first["event"] == "watching" and first["context_tokens"] == 2_000
    time.sleep(0.5)  # the watcher is set up after the first line
    more = TranscriptBuilder.continuing(path, first_id=10)
    more.user("now check staging.example.com:8443/health")
    more.assistant("healthy", usage=3_000)
    more.append_to(path)
    context = json.loads(proc.stdout.readline())
    assert context["event"] == "context" and context["context_tokens"] == 3_000
    kept = more.user("and then prod")
    more.compaction("## Goal\n- deploy\n", first_kept=kept.id, tokens_before=3_000)
    more.append_to(path)
    lines = [json.loads(proc.stdout.readline()) for _ in range(2)]
    seen = [e for e in lines if e["event"] == "compaction"]
    assert seen and seen[0]["verdict"].startswith("lost ")
    assert "staging.example.com:8443" in " ".join(seen[0]["dropped"])
    proc.wait(timeout=20)
    assert proc.returncode == 0


@pytest.mark.slow
def test_watch_follows_the_sessions_of_an_openclaw_store(tmp_path: Path) -> None:
    db = unpack_store(tmp_path)
    writer = sqlite3.connect(db)  # held open as OpenClaw's gateway does: rows go to the -wal
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.Popen([sys.executable, "-m", "sessionlens.engine.cli", "watch", str(db),
                             "--json", "--for", "8"], stdout=subprocess.PIPE, text=True,
                            env=env)
    assert proc.stdout is not None
    started = [json.loads(proc.stdout.readline()) for _ in range(2)]
    assert sorted((e["event"], e["session_id"], e["agent"]) for e in started) == [
        ("watching", "alpha", "openclaw"), ("watching", "beta", "openclaw")]
    assert {e["path"] for e in started} == {f"{db}/alpha", f"{db}/beta"}
    time.sleep(0.5)  # the watcher is set up after the first lines
    append_events(writer, "alpha", [user("u1", ALPHA_LEAF, "deploy to staging.example.com:8443"),
                                    assistant("a1", "u1", "deployed", 12_000)])
    context = json.loads(proc.stdout.readline())
    assert (context["event"], context["session_id"]) == ("context", "alpha")
    assert context["context_tokens"] == 12_000 and context["threshold"] == 24_000
    append_events(writer, "alpha", [user("u2", "a1", "and then prod"),
                                    compaction("c1", "u2", "u2")], compress=True)
    lines = [json.loads(proc.stdout.readline()) for _ in range(2)]
    seen = [e for e in lines if e["event"] == "compaction"]
    assert seen and seen[0]["compaction_id"] == "c1" and seen[0]["verdict"].startswith("lost ")
    assert "staging.example.com:8443" in " ".join(seen[0]["dropped"])
    proc.wait(timeout=20)
    writer.close()
    assert proc.returncode == 0
