"""``sessionlens inspect`` and ``sessionlens sessions``: keys, counting rules, errors."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from fixtures.factories import jsonl, write_rows
from fixtures.samples import sample_path
from sessionlens.engine.cli import main

HEADER = {"type": "session", "version": 3, "id": "sid-1", "timestamp": "t", "cwd": "/p"}


def row(type: str, id: str, parent: str | None, **f: Any) -> dict[str, Any]:
    return {"type": type, "id": id, "parentId": parent, "timestamp": "t", **f}


def msg(id: str, parent: str | None, role: str, **f: Any) -> dict[str, Any]:
    return row("message", id, parent, message={"role": role, "content": f.pop("content", "x"),
                                               **f})


@pytest.fixture
def session_file(tmp_path: Path) -> Path:
    rows = [HEADER,
            msg("u1", None, "user"),
            msg("a1", "u1", "assistant", content=[{"type": "text", "text": "hello there"}],
                usage={"input": 40, "output": 2, "totalTokens": 42}, stopReason="stop"),
            msg("side", "u1", "assistant", content=[]),              # off-path sibling
            row("compaction", "c1", "a1", summary="sum", firstKeptEntryId="a1"),
            msg("u2", "c1", "user"),
            row("custom", "x1", "u2", customType="state")]
    p = tmp_path / "s.jsonl"
    p.write_bytes(jsonl(*rows) + b"{broken\n")
    return p


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main([*argv, "--json"]) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


def test_inspect_json_keys_and_counting_rules(session_file: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    r = run_json(capsys, "inspect", str(session_file))
    assert r["format"] == "openclaw-v3"
    assert r["entries"]["total"] == 6  # header and the broken line are not entries
    assert r["entries"]["by_type"] == {"compaction": 1, "custom": 1, "message": 4}
    assert r["messages"]["by_role"] == {"assistant": 2, "user": 2}  # every branch
    assert r["compactions"] == 1
    assert r["leaf_id"] == "x1"
    assert r["active_path_length"] == 5  # u1 a1 c1 u2 x1
    assert r["context_messages"] == 3  # summary, a1, u2
    assert r["context"] == [
        {"role": "compactionSummary", "text": "sum", "entry_id": "c1"},
        {"role": "assistant", "text": "hello there", "entry_id": "a1"},
        {"role": "user", "text": "x", "entry_id": "u2"}]
    assert set(r["tokens"]) >= {"reported_context", "exact", "estimate"}
    assert r["tokens"]["exact"] > 0 and r["tokens"]["estimate"] > 0
    assert r["diagnostics"] == [{"line": 8, "reason": r["diagnostics"][0]["reason"],
                                 "severity": "error"}]
    assert "truncated" not in r["diagnostics"][0]["reason"]


def test_inspect_json_context_has_the_system_message_and_hides_edited_turns(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """pi 1.6: the compaction's systemMessage leads, a context_edit with a null replacement
    hides its target (a failed turn), one with content swaps a tool result's text."""
    system = {"role": "system", "content": "", "sections": {"base": "You are pi."},
              "timestamp": 1}
    rows = [HEADER,
            msg("u1", None, "user", content="read a"),
            msg("a1", "u1", "assistant", stopReason="toolUse",
                content=[{"type": "toolCall", "id": "t1", "name": "read", "arguments": {}}]),
            msg("r1", "a1", "toolResult", toolCallId="t1", toolName="read",
                content=[{"type": "text", "text": "long output"}]),
            row("context_edit", "e1", "r1", targetId="r1",
                replacement={"content": [{"type": "text", "text": "[trimmed]"}]}),
            row("compaction", "c1", "e1", summary="sum", firstKeptEntryId="u1",
                systemMessage=system, usage={"input": 5, "output": 1, "totalTokens": 6}),
            msg("u2", "c1", "user", content="again"),
            msg("a2", "u2", "assistant", stopReason="error", errorMessage="500", content=[]),
            row("context_edit", "e2", "a2", targetId="a2", replacement=None),
            row("usage", "g1", "e2", kind="compaction", provider="p", model="m",
                usage={"input": 1, "output": 1, "totalTokens": 2})]
    p = tmp_path / "s.jsonl"
    p.write_bytes(jsonl(*rows))
    r = run_json(capsys, "inspect", str(p))
    assert [(c["role"], c["text"]) for c in r["context"]] == [
        ("system", "You are pi."), ("compactionSummary", "sum"), ("user", "read a"),
        ("assistant", ""), ("toolResult", "[trimmed]"), ("user", "again")]
    assert r["context"][3]["calls"] == ["read"]
    assert r["context_messages"] == 6
    assert not [d for d in r["diagnostics"] if "unknown" in d["reason"]]


def test_inspect_human_output_is_readable(session_file: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inspect", str(session_file)]) == 0
    out = capsys.readouterr().out
    assert "openclaw-v3" in out and "sid-1" in out
    assert "3 messages after replay" in out
    assert "line 8" in out


def test_inspect_errors_go_to_stderr(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "e.jsonl").write_bytes(b"")
    assert main(["inspect", str(tmp_path / "e.jsonl"), "--json"]) == 1
    io = capsys.readouterr()
    assert io.out == "" and "empty file" in io.err


@pytest.mark.samples
def test_inspect_sample_counts_match_the_raw_lines(samples_dir: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    path = sample_path(samples_dir, "04_")
    objs = [json.loads(x) for x in path.read_text().splitlines() if x.strip()][1:]
    r = run_json(capsys, "inspect", str(path))
    assert r["entries"]["total"] == len(objs)
    assert r["entries"]["by_type"] == dict(Counter(o["type"] for o in objs))
    assert r["messages"]["by_role"] == dict(Counter(o["message"]["role"] for o in objs
                                                    if o["type"] == "message"))
    assert r["compactions"] == sum(o["type"] == "compaction" for o in objs)


def test_sessions_lists_a_folder(session_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (session_file.parent / "s.jsonl.lock").write_text("1")
    r = run_json(capsys, "sessions", str(session_file.parent))
    [s] = r["sessions"]
    assert s["path"] == str(session_file)
    # the quick scan counts lines after the header, the broken one too
    assert (s["session_id"], s["entries"], s["compactions"]) == ("sid-1", 7, 1)
    assert {"agent", "modified"} <= set(s)
    assert main(["sessions", str(session_file.parent)]) == 0
    assert "1 session(s)" in capsys.readouterr().out
    assert main(["sessions", str(session_file.parent / "nope")]) == 1


def test_cli_runs_as_a_module(session_file: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "sessionlens.engine.cli", "inspect",
                           str(session_file), "--json"], capture_output=True, text=True,
                          timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["active_path_length"] == 5


def test_inspect_human_output_has_no_python_reprs(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """QA: a header-only file printed ``leaf None`` and ``messages 0`` with trailing blanks;
    a session name was shown as a Python repr."""
    p = tmp_path / "header-only.jsonl"
    write_rows(p, [HEADER, row("session_info", "n1", None, name="it's \"mine\"")])
    header_only = write_rows(tmp_path / "empty-session.jsonl", [HEADER])
    assert main(["inspect", str(header_only)]) == 0
    out = capsys.readouterr().out
    assert "None" not in out and "leaf          (none)" in out
    assert all(line == line.rstrip() for line in out.splitlines())
    assert main(["inspect", str(p)]) == 0
    out = capsys.readouterr().out
    assert 'name "it\'s \\"mine\\""' in out


def test_inspect_human_totals_are_aligned(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    rows = [HEADER, msg("u1", None, "user")]
    rows += [row("custom", f"x{i}", "u1" if i == 0 else f"x{i - 1}", customType="s")
             for i in range(12)]
    p = tmp_path / "wide.jsonl"
    write_rows(p, rows)
    assert main(["inspect", str(p)]) == 0
    lines = capsys.readouterr().out.splitlines()
    entries = next(x for x in lines if x.lstrip().startswith("entries"))
    messages = next(x for x in lines if x.lstrip().startswith("messages"))
    assert entries.index("   custom") == messages.index("   user")


@pytest.mark.parametrize(("content", "reason"), [
    (b"", "empty file"),
    (b"\x7fELF\x02\x01\x01\x00" * 64, "not a session transcript"),
    (b'{"name": "pkg", "version": "1.0"}\n', "not a session transcript"),
])
def test_sessions_on_a_named_file_that_is_no_transcript(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str],
                                                       content: bytes, reason: str) -> None:
    """QA: ``sessions FILE`` on an empty, binary or unrelated JSON file said "no sessions found"
    and exited 0, as if the file were a folder without sessions."""
    target = tmp_path / "thing.jsonl"
    target.write_bytes(content)
    assert main(["sessions", str(target)]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and "thing.jsonl" in captured.err and reason in captured.err


def test_inspect_lists_diagnostics_in_file_order(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """QA: a parent cycle found on line 3 was listed after a bad line 5 (tree checks run
    after the parse), so the list jumped back and forth through the file."""
    rows = [HEADER, msg("c1", "c2", "user"), msg("c2", "c1", "user"), msg("u", None, "user")]
    p = tmp_path / "order.jsonl"
    p.write_bytes(jsonl(*rows) + b"[1]\n{bad\n")
    r = run_json(capsys, "inspect", str(p))
    lines = [d["line"] for d in r["diagnostics"]]
    assert len(lines) == 3 and lines == sorted(lines)


# ------------------------------------------------------------------ tokens: context first, cached

def test_inspect_counts_the_context_and_says_the_file_was_not(
        session_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from sessionlens.engine.load.reader import load_transcript
    from sessionlens.engine.tokens.count_cache import CountCache
    from sessionlens.engine.tokens.counts import count_tokens

    base = ["--basedir", str(tmp_path / "b")]
    tok = run_json(capsys, "inspect", str(session_file), *base)["tokens"]
    full = count_tokens(load_transcript(session_file), cache=CountCache())
    assert tok["scope"] == "context" and tok["exact"] == full.exact_context
    assert tok["file"] == {"counted": False, "exact": None, "by_role": None, "by_type": None,
                           "pending_entries": 6 - 3}
    assert tok["cache"]["persistent"] and tok["tokenized_texts"] == 3
    assert "not counted" in (main(["inspect", str(session_file), *base]) == 0
                             and capsys.readouterr().out)
    whole = run_json(capsys, "inspect", str(session_file), "--file-tokens", *base)["tokens"]
    assert whole["exact"] == tok["exact"] and whole["estimate"] == tok["estimate"]
    assert whole["file"]["counted"] and whole["file"]["exact"] == full.exact_total
    assert whole["file"]["by_role"] == dict(full.by_role or {})
    # the first run remembered the context's texts; the rest repeats them (u1 is u2's "x")
    assert (whole["tokenized_texts"], whole["cached_texts"]) == (0, full.tokenized) == (0, 3)
    again = run_json(capsys, "inspect", str(session_file), "--file-tokens", *base)["tokens"]
    assert again["tokenized_texts"] == 0 and again["file"] == whole["file"]


def test_inspect_works_where_the_cache_folder_cannot_be_written(
        session_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    normal = run_json(capsys, "inspect", str(session_file), "--basedir", str(tmp_path / "ok"))
    ro = run_json(capsys, "inspect", str(session_file), "--basedir", str(blocker))
    assert ro["tokens"]["cache"]["persistent"] is False and ro["tokens"]["cache"]["note"]
    assert ro["tokens"]["exact"] == normal["tokens"]["exact"] > 0
    assert not blocker.is_dir()


def test_a_read_only_inspect_process_seeds_the_tokenizer_elsewhere(
        session_file: Path, tmp_path: Path) -> None:
    """No tokenizer cache yet and no writable cache folder: the data goes to a temp folder."""
    import os

    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    env = {k: v for k, v in os.environ.items() if k != "TIKTOKEN_CACHE_DIR"}
    env.update(XDG_CACHE_HOME=str(blocker / "xdg"), TMPDIR=str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    proc = subprocess.run([sys.executable, "-m", "sessionlens.engine.cli", "inspect", "--json",
                           str(session_file), "--basedir", str(blocker / "b")],
                          capture_output=True, text=True, timeout=120, env=env, check=False)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["tokens"]["exact"] > 0
    assert any((tmp_path / "tmp").rglob("fb374d419588a4632f3f557e76b4b70aebbca790"))
