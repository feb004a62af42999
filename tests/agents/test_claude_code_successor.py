"""A successor SessionLens writes for a Claude Code session is one Claude Code resumes: run
the real binary on it, and the request it sends on the next turn starts from SessionLens's
summary (text equal) followed by exactly the kept messages; nothing summarized reappears."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.drivers.claude_code import claude_binary, driver, run_session
from agents.drivers.claude_code_compare import context_texts, request_texts
from sessionlens.engine.cli import main
from sessionlens.engine.load.reader import load_transcript

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(claude_binary() is None, reason="Claude Code not installed")]


def _compact(path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, dict]:
    code = main(["compact", str(path), "--provider", "offline", "--instructions",
                 "Focus on the vault layout", "--write", "successor", "--json", *extra])
    out = capsys.readouterr().out
    return code, json.loads(out[out.index("{"):])


@pytest.mark.parametrize("manual", [False, True], ids=["fresh", "after-its-own-compaction"])
def test_claude_code_resumes_the_successor_from_sessionlenss_summary(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], manual: bool) -> None:
    with driver(tmp_path) as d:
        run = run_session(d, auto=False, manual=manual)
        original = run.session_file.read_bytes()
        code, out = _compact(run.session_file, capsys)
        if code == 3:  # the offline summary failed its audit: gated like a pi/OpenClaw write
            assert out["written"] == [] and out["refused"] and not manual
            assert sorted(run.folder.glob("*.jsonl")) == [run.session_file]
            code, out = _compact(run.session_file, capsys, "--accept-failed-audit")
        assert code == 0
        new = Path(out["written"][0])
        assert out["write_plan"]["files"][0]["path"] == str(new)   # the dry run named it
        assert new.parent == run.folder and new.stem != run.session_id
        successor = load_transcript(new)
        mine = context_texts(successor)
        turn = d.turn("Next, after SessionLens compacted", resume=new.stem)
        assert turn.returncode == 0
    assert run.session_file.read_bytes() == original            # never touched
    sent = request_texts(d.server.requests[turn.requests[0]].messages())
    assert sent == [*mine, "Next, after SessionLens compacted"]
    assert out["summary"].strip() in sent[0] and sent[0].startswith("This session is being")
    kept = [e for e in successor.entries if e.type == "message"]
    assert kept and len(sent) == 2 + len(kept)
    # nothing summarized comes back: the first prompts are only inside the summary message
    assert not any("Read the notes" in t for t in sent[1:])
