"""``sessionlens restore CHECKPOINT [--json]``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from fixtures.scenarios import rich_session
from fixtures.written import assert_strict_v3, read_rows
from sessionlens.engine.cli import main
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.persist.record import CompactionRecord
from sessionlens.engine.persist.writer import write_compaction


def _checkpoint(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    src, ids = rich_session(tmp_path)
    rec = CompactionRecord("s", ids["u2"], 10, summarized_entry_ids=(ids["u1"],))
    res = write_compaction(load_transcript(src), rec)
    assert res.checkpoint_path is not None
    return res.checkpoint_path, ids


def test_restore_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cp, ids = _checkpoint(tmp_path)
    before = set(tmp_path.iterdir())
    assert main(["restore", str(cp), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    (written,) = out["written"]
    assert set(tmp_path.iterdir()) - before == {Path(written)}
    assert Path(written).is_absolute()
    assert read_rows(Path(written))[0]["parentSession"] == str(cp)
    assert_strict_v3(Path(written))
    assert load_transcript(Path(written)).leaf_id == ids["a6"]


def test_restore_refuses_non_transcript(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "x.jsonl"
    bad.write_text('{"hello": 1}\n')
    assert main(["restore", str(bad)]) == 1
    assert capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.jsonl"]


def test_restore_subprocess(tmp_path: Path) -> None:
    cp, _ = _checkpoint(tmp_path)
    proc = subprocess.run([sys.executable, "-m", "sessionlens.engine.cli", "restore", str(cp),
                           "--json"], capture_output=True, text=True, check=True)
    (written,) = json.loads(proc.stdout)["written"]
    assert Path(written).parent == tmp_path and Path(written).is_file()
