"""``sessionlens chain FILE [--json]``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fixtures.factories import SESSION_ID, TranscriptBuilder
from fixtures.scenarios import rich_session
from sessionlens.engine.cli import main
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.persist.record import CompactionRecord
from sessionlens.engine.persist.writer import write_compaction


def _compacted(tmp_path: Path) -> tuple[Path, Path, Path]:
    src, ids = rich_session(tmp_path)
    (tmp_path / "sessions.json").write_text(json.dumps({"k": {"sessionId": SESSION_ID}}))
    rec = CompactionRecord("s", ids["u2"], 10, summarized_entry_ids=(ids["u1"],))
    res = write_compaction(load_transcript(src), rec)
    assert res.successor_path is not None and res.checkpoint_path is not None
    return src, res.successor_path, res.checkpoint_path


def test_chain_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src, succ, cp = _compacted(tmp_path)
    assert main(["chain", str(src), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [c["path"] for c in out["chain"]] == [str(src), str(succ)]
    assert out["chain"][0]["parent"] is None and out["chain"][1]["parent"] == str(src)
    assert out["chain"][0]["session_id"] == SESSION_ID
    assert [c["compactions"] for c in out["chain"]] == [0, 1]
    assert [c["path"] for c in out["checkpoints"]] == [str(cp)]
    assert out["checkpoints"][0]["in_store"] is True


def test_chain_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src, succ, cp = _compacted(tmp_path)
    assert main(["chain", str(succ)]) == 0
    text = capsys.readouterr().out
    assert str(src) in text and str(succ) in text and str(cp) in text


def test_chain_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["chain", str(tmp_path / "nope.jsonl")]) == 1
    assert "no such file" in capsys.readouterr().err


@pytest.mark.parametrize(("name", "content", "reason"), [
    ("folder", None, "is a directory"),
    ("empty.jsonl", b"", "empty file"),
    ("binary.jsonl", bytes(range(256)) * 4, "not a session transcript"),
    ("config.json", b'{"gateway": {"port": 1}}\n', "not a session transcript"),
])
def test_chain_refuses_what_is_not_a_transcript(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                name: str, content: bytes | None,
                                                reason: str) -> None:
    """QA: a folder was reported as "no such file"; an empty, binary or non-transcript JSON
    file was listed as a chain of one session ``?`` with exit 0."""
    target = tmp_path / name
    if content is None:
        target.mkdir()
    else:
        target.write_bytes(content)
    assert main(["chain", str(target)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    err = captured.err.strip()
    assert len(err.splitlines()) == 1 and name in err and reason in err


def test_chain_subprocess(tmp_path: Path) -> None:
    b = TranscriptBuilder(session_id="root")
    b.user("x")
    root = b.write(tmp_path / "root.jsonl")
    kid = TranscriptBuilder(session_id="kid", parent_session=f"C:\\Users\\me\\{root.name}")
    kid.user("y")
    child = kid.write(tmp_path / "kid.jsonl")
    proc = subprocess.run([sys.executable, "-m", "sessionlens.engine.cli", "chain", str(child),
                           "--json"], capture_output=True, text=True, check=True,
                          env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    out = json.loads(proc.stdout)
    assert [c["session_id"] for c in out["chain"]] == ["root", "kid"]
    assert out["checkpoints"] == []
