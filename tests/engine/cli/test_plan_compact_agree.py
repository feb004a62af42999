"""One truth on the command line: plan and compact agree, and compact reports what it wrote."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from fixtures.factories import TranscriptBuilder, text_of
from fixtures.samples import sample_path
from sessionlens.engine.cli import main
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.opened import agent_model


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any]:
    code = main(list(argv))
    return code, json.loads(capsys.readouterr().out)


def _generated(folder: Path, turns: int, *, chunk: int = 3_000) -> Path:
    b = TranscriptBuilder(plain_users=True)
    for k in range(turns):
        b.user(f"turn {k}: please handle /src/mod{k}.py " + text_of(chunk))
        call = b.call("read", call_id=f"c{k}", path=f"/src/mod{k}.py")
        b.assistant("reading", call, usage=15)
        b.result(call, text_of(chunk * 2))
        b.assistant(f"done with mod{k} " + text_of(chunk // 3), usage=15)
    return b.write(folder / f"gen{turns}.jsonl")


def _agree(capsys: pytest.CaptureFixture[str], path: Path, *extra: str) -> None:
    code_p, plan = _json(capsys, "plan", str(path), "--json", *extra)
    code_c, comp = _json(capsys, "compact", str(path), "--json", "--write", "none", *extra)
    assert code_p == 0 and code_c == 0
    if plan.get("nothing_to_compact"):
        assert comp.get("nothing_to_compact") is True and comp["reason"] == plan["reason"]
        return
    assert comp["first_kept_entry_id"] == plan["first_kept_entry_id"]
    assert comp["cut_entry_id"] == plan["first_kept_entry_id"]
    assert comp["tokens_before"] == plan["tokens_before"]
    assert comp["entries_summarized"] == plan["entries_summarized"]
    assert comp["settings"] == plan["settings"]


@pytest.mark.parametrize("turns", [3, 12, 40])
def test_plan_and_compact_agree_on_generated_files(tmp_path: Path, turns: int,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    path = _generated(tmp_path, turns)
    _agree(capsys, path)
    _agree(capsys, path, "--keep-recent", "0")
    _agree(capsys, path, "--keep-recent", "5000", "--context-window", "64000")


@pytest.mark.samples
@pytest.mark.parametrize("prefix", ["01_", "03_", "04_", "07_", "09_"])
def test_plan_and_compact_agree_on_the_samples(samples_dir: Path, prefix: str,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    path = sample_path(samples_dir, prefix)
    _agree(capsys, path)
    _agree(capsys, path, "--keep-recent", "0")


def _successor_check(capsys: pytest.CaptureFixture[str], path: Path, *extra: str) -> None:
    code, out = _json(capsys, "compact", str(path), "--json", "--write", "successor",
                      "--accept-failed-audit", *extra)
    assert code == 0, out
    successor = Path(next(p for p in out["written"] if p.endswith(".jsonl")
                          and ".checkpoint." not in p))
    assert successor.parent == path.parent
    written = load_transcript(successor)
    comp = written.entries[-1]
    assert comp.type == "compaction"
    assert out["first_kept_entry_id"] == comp.first_kept_entry_id  # what the file holds
    assert set(out["written"]) == {f["path"] for f in out["write_plan"]["files"]}
    code, inspected = _json(capsys, "inspect", str(successor), "--json")
    estimate = inspected["tokens"]["estimate"]
    assert abs(estimate - out["tokens_after"]) <= 0.10 * out["tokens_after"]
    assert estimate == out["tokens_after"]  # the same estimator on the same file
    original = load_transcript(path)
    if "--keep-recent" not in extra:  # a kept assistant turn carries the model on
        assert agent_model(written)[1] == agent_model(original)[1]  # type: ignore[index]


def test_compact_writes_what_it_reports_on_generated_files(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    _successor_check(capsys, _generated(tmp_path, 40))


@pytest.mark.samples
@pytest.mark.parametrize("prefix", ["01_", "04_"])
def test_compact_writes_what_it_reports_on_the_samples(samples_dir: Path, prefix: str,
                                                       tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    src = sample_path(samples_dir, prefix)
    copy = tmp_path / src.name
    shutil.copyfile(src, copy)
    code, plan = _json(capsys, "plan", str(copy), "--json")
    extra = ("--keep-recent", "4000") if plan.get("nothing_to_compact") else ()
    _successor_check(capsys, copy, *extra)


def test_a_failed_audit_refuses_the_write_with_exit_3(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    path = _generated(tmp_path, 2, chunk=50)
    before = set(tmp_path.iterdir())
    code = main(["compact", str(path), "--json", "--write", "successor", "--keep-recent", "0",
                 "--template", "safeguard", "--identifier-policy", "custom",
                 "--identifier-instructions", "keep every id", "--identifier",
                 "THIS-ID-IS-NOWHERE-9f3a"])
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert out["audit"]["passed"] is False
    assert code == 3 and out["written"] == [] and out["refused"]
    assert set(tmp_path.iterdir()) == before
    assert "nothing was written" in captured.err
