"""Writing a Claude Code successor: a new session beside the original, in Claude Code's own
compaction records; refused up front when it cannot be done."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from fixtures.agents_paths import CLAUDE_CODE_FIXTURES
from sessionlens.engine.cli import main
from sessionlens.engine.errors import PersistError
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.persist.undo import plan_undo

SUMMARY = "## Goal\n- keep the vault layout a/b/c\n"


@pytest.fixture
def session(tmp_path: Path) -> Path:
    src = next((CLAUDE_CODE_FIXTURES / "long").glob("*-*.jsonl"))
    dest = tmp_path / "-home-u-project" / src.name
    dest.parent.mkdir()
    shutil.copyfile(src, dest)
    return dest


def _write(path: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path,
           *extra: str) -> tuple[int, str, str]:
    summary = tmp_path / "summary.md"
    summary.write_text(SUMMARY)
    code = main(["compact", str(path), "--summary-file", str(summary), "--json",
                 "--accept-failed-audit", *extra])
    got = capsys.readouterr()
    return code, got.out, got.err


def test_successor_is_a_new_claude_code_session_with_its_own_compaction_records(
        session: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    before = session.read_bytes()
    code, out, _ = _write(session, capsys, tmp_path, "--write", "successor")
    assert code == 0
    report = json.loads(out[out.index("{"):])
    new = Path(report["written"][0])
    assert report["written"] == [f["path"] for f in report["write_plan"]["files"]]
    assert new.parent == session.parent and new.name == f"{new.stem}.jsonl"
    assert session.read_bytes() == before
    rows = [json.loads(line) for line in new.read_text().splitlines()]
    assert {r["sessionId"] for r in rows} == {new.stem}
    *kept, boundary, summary = rows
    assert [r["type"] for r in kept] == ["assistant"]        # the newest round only
    meta = boundary["compactMetadata"]
    assert boundary["subtype"] == "compact_boundary" and boundary["parentUuid"] is None
    assert boundary["logicalParentUuid"] == kept[-1]["uuid"]
    assert meta["preservedMessages"]["uuids"] == [r["uuid"] for r in kept]
    assert meta["preservedSegment"]["anchorUuid"] == summary["uuid"]
    assert meta["trigger"] == "manual" and meta["postTokens"] < meta["preTokens"]
    assert summary["isCompactSummary"] and summary["isVisibleInTranscriptOnly"]
    assert summary["parentUuid"] == boundary["uuid"]
    text = summary["message"]["content"]
    assert SUMMARY.strip() in text and str(session.absolute()) in text
    assert kept[0]["parentUuid"] is None
    t = load_transcript(new)
    assert [i.kind for i in t.context] == ["compaction_summary", "message"]
    assert t.diagnostics == ()
    with pytest.raises(PersistError, match="was never changed: to go back, resume"):
        plan_undo(t)


def test_a_write_that_cannot_be_done_is_refused_before_summarizing_with_one_message(
        session: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code = main(["compact", str(session), "--provider", "offline", "--write", "append"])
    got = capsys.readouterr()
    assert code == 1 and got.out == ""               # no summary was made
    assert got.err.count(str(session)) == 1
    assert "new session beside the original (--write successor)" in got.err
    assert sorted(session.parent.iterdir()) == [session]
