"""``sessionlens compact``: offline end to end, provider faults, writing and not writing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fixtures.factories import TranscriptBuilder
from fixtures.llm_wire import Act, FakeSleep, WireServer, policy
from fixtures.written import listing, read_rows
from sessionlens.engine.cli import compact_cmd, main
from sessionlens.engine.contract.templates import REQUIRED_SECTIONS
from sessionlens.engine.load.reader import load_transcript

KEYS = {"summary", "audit", "first_kept_entry_id", "tokens_before", "tokens_after", "written"}


def session(tmp_path: Path) -> Path:
    b = TranscriptBuilder()
    b.user("Please make the importer accept CSV files from /data/inbox; never drop rows.")
    read = b.call("read", path="src/importer.py")
    b.assistant("Reading the importer.", read)
    b.result(read, "def load(path): ...\n" * 40)
    run = b.call("bash", command="pytest tests/test_importer.py")
    b.assistant("We'll use the csv module instead of pandas.", run)
    b.result(run, "E   ValueError: bad header at row 17", is_error=True)
    b.user("Fix the header bug and rerun pytest on port 5433 database.")
    b.assistant("Fixing the header parsing now.")
    b.user("Then ship it.")
    b.assistant("Shipping.")
    return b.write(tmp_path / "session.jsonl")


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, object]]:
    code = main(["compact", *argv, "--json"])
    out = capsys.readouterr().out
    return code, (json.loads(out) if out.strip() else {})


def test_offline_json_has_the_contract_keys(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    path = session(tmp_path)
    before = listing(tmp_path)
    code, out = run_json(capsys, str(path), "--keep-recent", "20")
    assert code == 0 and KEYS <= set(out)
    summary = str(out["summary"])
    assert all(h in summary.splitlines() for h in REQUIRED_SECTIONS["structured"])
    assert "/data/inbox" in summary and "ValueError: bad header at row 17" in summary
    audit = out["audit"]
    assert isinstance(audit, dict) and {c["name"] for c in audit["checks"]} >= {"sections"}
    assert all(set(c) == {"name", "passed", "detail", "reasons"} for c in audit["checks"])
    assert all(c["reasons"] == [] for c in audit["checks"] if c["passed"])
    assert audit["kept_attempt"] == 1 and audit["attempts"] == 1
    assert out["written"] == [] and listing(tmp_path) == before
    assert int(out["tokens_after"]) > 0  # type: ignore[call-overload]


def test_safeguard_template_and_text_output(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    path = session(tmp_path)
    assert main(["compact", str(path), "--keep-recent", "20", "--template", "safeguard"]) == 0
    text = capsys.readouterr().out
    assert "## Pending user asks" in text and "written: nothing (--write none)" in text


def test_write_successor_creates_a_loadable_file(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    path = session(tmp_path)
    original = path.read_bytes()
    code, out = run_json(capsys, str(path), "--keep-recent", "20", "--write", "successor")
    written = [Path(p) for p in out["written"]]  # type: ignore[union-attr]
    assert code == 0 and written and all(p.exists() for p in written)
    assert path.read_bytes() == original
    successor = next(p for p in written if ".checkpoint." not in p.name)
    loaded = load_transcript(successor)
    comps = [e for e in loaded.entries if e.type == "compaction"]
    assert comps and comps[-1].summary == out["summary"]


@pytest.mark.parametrize("act", [
    Act("status", status=500, body="down"),
    Act("status", status=429, headers={"retry-after": "0"}),
    Act("malformed", text="a b"),
    Act("cut", text="a b c d e f g h i"),
    Act("stream", text=" "),
    Act("stall", seconds=5.0),
])
def test_provider_failure_exits_1_and_writes_nothing(tmp_path: Path, wire: WireServer, act: Act,
                                                     capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    sleep = FakeSleep()
    monkeypatch.setattr(compact_cmd, "RETRY_POLICY", policy(sleep))
    wire.default = act
    path = session(tmp_path)
    before = listing(tmp_path)
    code = main(["compact", str(path), "--keep-recent", "20", "--provider", "openai",
                 "--base-url", wire.url + "/v1", "--model", "m", "--write", "successor",
                 "--timeout", "0.3"])
    err = capsys.readouterr().err
    assert code == 1 and "sessionlens compact: error:" in err
    assert listing(tmp_path) == before and len(wire.seen) == 3 and len(sleep.waits) == 2


def test_fallback_offline_saves_the_run(tmp_path: Path, wire: WireServer,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    wire.default = Act("status", status=401, body='{"error":{"message":"bad key"}}')
    path = session(tmp_path)
    code, out = run_json(capsys, str(path), "--keep-recent", "20", "--provider", "openai",
                         "--base-url", wire.url + "/v1", "--fallback-offline")
    assert code == 0 and out["provider"] == "offline" and len(wire.seen) == 1
    assert any("fell back to offline" in w for w in out["warnings"])  # type: ignore[union-attr]


def test_openai_wire_success(tmp_path: Path, wire: WireServer,
                             capsys: pytest.CaptureFixture[str]) -> None:
    wire.default = Act("stream", text="## Goal\n- importer accepts CSV", usage=(900, 12))
    path = session(tmp_path)
    code, out = run_json(capsys, str(path), "--keep-recent", "20", "--provider", "openai",
                         "--base-url", wire.url + "/v1", "--model", "tiny")
    assert code == 0 and str(out["summary"]).startswith("## Goal\n- importer accepts CSV")
    assert out["usage"] == {"input_tokens": 900, "output_tokens": 12, "cost": None}
    assert out["audit"]["passed"] is False  # type: ignore[index]
    assert "authorization" not in wire.seen[0].headers


def test_missing_key_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    path = session(tmp_path)
    assert main(["compact", str(path), "--keep-recent", "20", "--provider", "anthropic"]) == 1
    assert "ANTHROPIC_API_KEY" in capsys.readouterr().err


def test_subprocess_run(tmp_path: Path) -> None:
    path = session(tmp_path)
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    proc = subprocess.run([sys.executable, "-m", "sessionlens.engine.cli", "compact", str(path),
                           "--keep-recent", "20", "--json"], capture_output=True, text=True,
                          env=env, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert KEYS <= set(json.loads(proc.stdout))


def test_progress_bar_on_a_terminal(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    path = session(tmp_path)
    assert main(["compact", str(path), "--keep-recent", "20", "--json"]) == 0
    captured = capsys.readouterr()
    assert "\r[" in captured.err and "chunk 1/1" in captured.err and "received" in captured.err
    assert json.loads(captured.out)["written"] == []  # stdout stays one JSON object


def test_write_append_adds_the_compaction_to_the_file(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    path = session(tmp_path)
    lines_before = path.read_text(encoding="utf-8").splitlines()
    code, out = run_json(capsys, str(path), "--keep-recent", "20", "--write", "append")
    assert code == 0 and str(path) in out["written"]  # type: ignore[operator]
    lines_after = path.read_text(encoding="utf-8").splitlines()
    assert lines_after[: len(lines_before)] == lines_before
    added = [json.loads(line) for line in lines_after[len(lines_before):]]
    comp = next(x for x in added if x["type"] == "compaction")
    assert comp["summary"] == out["summary"]
    assert comp["firstKeptEntryId"] == out["first_kept_entry_id"]


def test_a_compaction_that_saves_nothing_is_flagged(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """QA: on a tiny transcript ``compact`` reported "tokens: 14 -> about 72" as if all were
    well; the summary template alone outweighs what it replaces."""
    b = TranscriptBuilder()
    b.user("hi")
    b.assistant("ok")
    b.user("bye")
    path = b.write(tmp_path / "tiny.jsonl")
    code = main(["compact", str(path), "--json", "--keep-recent", "0"])
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert code == 0 and out["tokens_after"] >= out["tokens_before"]
    assert any("saves nothing" in w for w in out["warnings"])
    assert "warning: this compaction saves nothing" in captured.err
    big = session(tmp_path)
    code = main(["compact", str(big), "--json", "--keep-recent", "0"])
    out = json.loads(capsys.readouterr().out)
    assert out["tokens_after"] < out["tokens_before"] or any(
        "saves nothing" in w for w in out["warnings"])


def test_quality_retries_and_early_lock_refusal(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    """--quality-retries reaches the loop; a held lock is refused before any model call."""
    path = session(tmp_path)
    assert main(["compact", str(path), "--quality-retries", "2", "--json",
                 "--keep-recent", "0"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert 1 <= out["audit"]["attempts"] <= 3
    assert 1 <= out["audit"]["kept_attempt"] <= out["audit"]["attempts"]
    with pytest.raises(SystemExit):
        main(["compact", str(path), "--quality-retries", "4"])
    capsys.readouterr()
    lock = path.with_name(path.name + ".lock")
    lock.write_text(str(os.getpid()))
    before = sorted(p.name for p in tmp_path.iterdir())
    assert main(["compact", str(path), "--write", "successor", "--provider", "openai",
                 "--base-url", "http://127.0.0.1:9/v1"]) == 1
    err = capsys.readouterr().err
    assert "locked by process" in err and "127.0.0.1" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def _storm_session(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """Old work to summarize, then a prompt sent twice 15 s apart: the first copy failed."""
    b = TranscriptBuilder(plain_users=True)
    ids = {"old": b.user("the old part of the session " * 300).id,
           "a0": b.assistant("noted").id}
    ask = "please summarise the quarterly report for the board"
    ids["u1"] = b.user("next: the quarterly report " * 10).id
    ids["a1"] = b.assistant("ready when you are " * 10).id
    ids["c1"] = b.message({"role": "user", "content": ask, "timestamp": 1_000}).id
    ids["e1"] = b.message({"role": "assistant", "content": [], "api": "x", "provider": "p",
                           "model": "m", "stopReason": "error", "errorMessage": "503 overloaded",
                           "timestamp": 1_100}).id
    ids["c2"] = b.message({"role": "user", "content": ask, "timestamp": 16_000}).id
    ids["a2"] = b.assistant("Here is the summary of the quarterly report.").id
    return b.write(tmp_path / "storm.jsonl"), ids


def test_compact_json_lists_the_retry_copies_it_left_out(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, ids = _storm_session(tmp_path)
    code, out = run_json(capsys, str(path), "--keep-recent", "120", "--write", "successor")
    # the cut is u1; the successor keeps the last summarized assistant turn back, so the
    # file's firstKeptEntryId (what --json reports once written) is a0
    assert code == 0 and out["cut_entry_id"] == ids["u1"]
    assert out["first_kept_entry_id"] == ids["a0"]
    (copy,) = out["dropped_retry_copies"]  # type: ignore[misc]
    assert (copy["entry_id"], copy["kept_entry_id"], copy["reply_entry_ids"],
            copy["outcome"], copy["gap_ms"]) == (ids["c1"], ids["c2"], [ids["e1"]], "error",
                                                 15_000)
    successor = next(Path(p) for p in out["written"]  # type: ignore[attr-defined]
                     if Path(p).name != path.name and ".checkpoint." not in p)
    kept = {r.get("id") for r in read_rows(successor)}
    assert ids["c1"] not in kept and ids["e1"] not in kept and ids["c2"] in kept


def test_keep_retry_copies_and_the_preview_without_writing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, ids = _storm_session(tmp_path)
    code, preview = run_json(capsys, str(path), "--keep-recent", "120")
    assert code == 0 and preview["written"] == []
    assert [c["entry_id"] for c in preview["dropped_retry_copies"]] == [ids["c1"]]  # type: ignore[attr-defined]
    code, kept = run_json(capsys, str(path), "--keep-recent", "120", "--keep-retry-copies",
                          "--write", "successor")
    assert code == 0 and kept["dropped_retry_copies"] == []
    successor = next(Path(p) for p in kept["written"]  # type: ignore[attr-defined]
                     if ".checkpoint." not in p and Path(p).name != path.name)
    assert ids["c1"] in {r.get("id") for r in read_rows(successor)}
    assert main(["compact", str(path), "--keep-recent", "120"]) == 0
    assert "a successor would leave out 1 unanswered copy" in capsys.readouterr().out


def test_predicted_kept_part_is_the_successors_on_a_retry_storm(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The plan's kept tokens already leave the storm copies out and the kept-back turn in:
    tokens after = kept tokens + the summary, exactly, as measured on the written file."""
    from sessionlens.engine.opened import Overrides, open_transcript, summary_tokens
    from sessionlens.engine.settings import DEFAULT_SETTINGS

    path, _ids = _storm_session(tmp_path)
    opened = open_transcript(path, Overrides(keep_recent_tokens=120), config=DEFAULT_SETTINGS)
    figures = opened.figures(opened.plan())
    code, out = run_json(capsys, str(path), "--keep-recent", "120", "--write", "successor")
    assert code == 0 and out["dropped_retry_copies"]
    assert out["tokens_after"] == figures.kept_tokens + summary_tokens(out["summary"])


def test_a_truncated_last_line_is_said_with_the_write(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """``inspect`` reported the truncated line; ``compact --write successor`` wrote without a
    word about it."""
    path = session(tmp_path)
    path.write_bytes(path.read_bytes() + b'{"type":"message","id":"cut-sh')
    code, out = run_json(capsys, str(path), "--keep-recent", "20", "--write", "successor")
    assert code == 0 and out["written"]
    [said] = [w for w in out["warnings"] if "truncated last line" in w]
    assert "not part of the plan or the summary" in said and "successor leaves it out" in said
    code = main(["compact", str(path), "--keep-recent", "20"])
    assert "warning: session.jsonl line " in capsys.readouterr().err


def test_text_output_gives_the_rule_and_the_losses_apart(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    path = session(tmp_path)
    main(["compact", str(path), "--keep-recent", "20"])
    out = capsys.readouterr().out.splitlines()
    at = out.index("audit:")
    assert out[at + 1].startswith("  OpenClaw's rule: would ")
    assert out[at + 2].startswith("  SessionLens: ")
    assert out[at + 3].startswith("  SessionLens checks: ")
    assert not any(line.startswith("audit: passed") for line in out)
    code, data = run_json(capsys, str(path), "--keep-recent", "20")
    assert data["audit"]["headline"]["losses"] == out[at + 2].strip()  # type: ignore[index]
