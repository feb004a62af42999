"""``sessionlens watch --json``: events as JSON lines while a session is appended to."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fixtures.factories import TranscriptBuilder


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
