"""``inspect``'s kept answers: used again only when everything they came from is the same."""

from __future__ import annotations

import json
import os
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from fixtures.factories import TranscriptBuilder
from sessionlens.engine.cli import main, report_cache
from sessionlens.engine.cli.report_cache import FOLDER_NAME, ReportCache, engine_code_digest
from sessionlens.engine.persist.recovery import journal_path


def _session(folder: Path, name: str = "s.jsonl") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    b = TranscriptBuilder()
    b.user("deploy the billing service to staging")
    b.assistant("deploying now", usage=12_000)
    b.user("what did the health check say?")
    b.assistant("the health check returned HTTP 503 from /healthz", usage=12_400)
    return b.write(folder / name)


def _inspect(capsys: pytest.CaptureFixture[str], path: Path, base: Path, *extra: str
             ) -> dict[str, Any]:
    assert main(["inspect", str(path), "--json", "--basedir", str(base), *extra]) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


def _without_run_facts(answer: dict[str, Any]) -> dict[str, Any]:
    """The answer less what says how this run got it."""
    answer = json.loads(json.dumps(answer))
    answer.pop("report_cache")
    for key in ("tokenized_texts", "cached_texts"):
        answer["tokens"].pop(key)
    return answer


def test_an_unchanged_file_is_answered_from_the_kept_answer(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, base = _session(tmp_path / "s"), tmp_path / "base"
    first = _inspect(capsys, path, base)
    again = _inspect(capsys, path, base)
    assert (first["report_cache"]["hit"], again["report_cache"]["hit"]) == (False, True)
    assert _without_run_facts(again) == _without_run_facts(first)
    texts = first["tokens"]["tokenized_texts"]
    assert texts > 0 and (again["tokens"]["tokenized_texts"], again["tokens"]["cached_texts"]) \
        == (0, texts)
    assert len(list((base / "cache" / FOLDER_NAME).glob("*.json"))) == 1
    assert main(["inspect", str(path), "--basedir", str(base)]) == 0  # text: its own answer
    text = capsys.readouterr().out
    assert "memory flush" in text and "context" in text
    assert _inspect(capsys, path, base)["report_cache"]["hit"]


def test_changed_bytes_behind_the_same_size_and_mtime_are_not_answered_from_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, base = _session(tmp_path / "s"), tmp_path / "base"
    first = _inspect(capsys, path, base)
    st = path.stat()
    data = path.read_bytes()
    path.write_bytes(data.replace(b"HTTP 503", b"HTTP 502"))  # same length
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert path.stat().st_size == st.st_size
    again = _inspect(capsys, path, base)
    assert not again["report_cache"]["hit"] and again["tokens"]["tokenized_texts"] > 0
    assert again["file_size"] == first["file_size"]


def test_a_grown_file_options_and_fresh_each_work_it_out_again(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, base = _session(tmp_path / "s"), tmp_path / "base"
    _inspect(capsys, path, base)
    assert not _inspect(capsys, path, base, "--context-window", "64000")["report_cache"]["hit"]
    assert _inspect(capsys, path, base, "--context-window", "64000")["report_cache"]["hit"]
    assert not _inspect(capsys, path, base, "--fresh")["report_cache"]["hit"]
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines) + lines[-1].replace(b'"id":"', b'"id":"z'))
    grown = _inspect(capsys, path, base)
    assert not grown["report_cache"]["hit"]
    assert grown["file_size"] == path.stat().st_size


def test_the_settings_and_the_store_are_part_of_what_is_kept(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("OPENCLAW_STATE_DIR", raising=False)
    monkeypatch.delenv("OPENCLAW_CONFIG_PATH", raising=False)
    state = tmp_path / "state"
    path, base = _session(state / "agents" / "main" / "sessions"), tmp_path / "base"
    config = state / "openclaw.json"
    config.write_text(json.dumps({"agents": {"defaults": {"compaction": {
        "reserveTokens": 30_000}}}}))
    first = _inspect(capsys, path, base)
    assert _inspect(capsys, path, base)["report_cache"]["hit"]
    config.write_text(json.dumps({"agents": {"defaults": {"compaction": {
        "reserveTokens": 50_000}}}}))
    changed = _inspect(capsys, path, base)
    assert not changed["report_cache"]["hit"]
    assert changed["memory_flush"]["compaction_threshold"] \
        == first["memory_flush"]["compaction_threshold"] - 20_000
    store = path.parent / "sessions.json"
    store.write_text(json.dumps({"agent:main:main": {"sessionFile": str(path),
                                                     "contextTokens": 100_000}}))
    with_store = _inspect(capsys, path, base)
    assert not with_store["report_cache"]["hit"]
    assert with_store["memory_flush"]["context_window"] == 100_000
    assert _inspect(capsys, path, base)["report_cache"]["hit"]
    store.write_text(json.dumps({"agent:main:main": {"sessionFile": str(path),
                                                     "contextTokens": 90_000}}))
    edited = _inspect(capsys, path, base)
    assert not edited["report_cache"]["hit"]
    assert edited["memory_flush"]["context_window"] == 90_000


def test_a_file_that_changed_after_the_key_was_made_is_not_kept(tmp_path: Path) -> None:
    path = _session(tmp_path / "s")
    kept = ReportCache(tmp_path / "cache", path, {}, "settings")
    size = path.stat().st_size
    with path.open("ab") as fh:  # written to while it loaded
        fh.write(path.read_bytes().splitlines(keepends=True)[-1])
    kept.put("0" * 64, size, "openclaw-v3", {"summary": {}})
    assert not (tmp_path / "cache" / FOLDER_NAME).exists()
    fresh = ReportCache(tmp_path / "cache", path, {}, "settings")
    fresh.put("0" * 64, path.stat().st_size, "openclaw-v3", {"summary": {}})
    assert len(list((tmp_path / "cache" / FOLDER_NAME).glob("*.json"))) == 1


def test_a_run_that_warned_keeps_nothing(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    path, base = _session(tmp_path / "s"), tmp_path / "base"
    (path.parent / "sessions.json").write_text("{not json")
    for _ in range(2):
        assert main(["inspect", str(path), "--json", "--basedir", str(base)]) == 0
        out = capsys.readouterr()
        assert "session store beside the transcript was not read" in out.err
        assert not json.loads(out.out)["report_cache"]["hit"]


def test_nothing_is_used_while_a_write_needs_finishing_and_other_formats_are_not_kept(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, base = _session(tmp_path / "s"), tmp_path / "base"
    _inspect(capsys, path, base)
    lock = path.parent / "other.jsonl.lock"
    lock.write_text("{}")
    assert not _inspect(capsys, path, base)["report_cache"]["hit"]
    lock.unlink()
    journal_path(path).write_text("{}")
    assert not _inspect(capsys, path, base)["report_cache"]["hit"]
    journal_path(path).unlink(missing_ok=True)
    cc = tmp_path / "cc" / "c.jsonl"
    cc.parent.mkdir()
    cc.write_text(json.dumps({"type": "user", "uuid": "u1", "parentUuid": None,
                              "sessionId": "s1", "timestamp": "2026-01-01T00:00:00Z",
                              "message": {"role": "user", "content": "hello"}}) + "\n")
    for _ in range(2):
        out = _inspect(capsys, cc, base)
        assert out["format"] == "claude-code" and not out["report_cache"]["hit"]


def test_a_corrupt_kept_answer_is_worked_out_again(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    path, base = _session(tmp_path / "s"), tmp_path / "base"
    first = _inspect(capsys, path, base)
    (kept,) = (base / "cache" / FOLDER_NAME).glob("*.json")
    kept.write_bytes(b"{torn")
    again = _inspect(capsys, path, base)
    assert not again["report_cache"]["hit"]
    assert _without_run_facts(again) == _without_run_facts(first)
    assert _inspect(capsys, path, base)["report_cache"]["hit"]


def test_the_code_digest_follows_the_engine_modules(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    source = tmp_path / "extra.py"
    source.write_text("x = 1\n")
    module = types.ModuleType("sessionlens.engine._digest_probe")
    module.__file__ = str(source)
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setattr(report_cache, "_code_digest", None)
    before = engine_code_digest()
    source.write_text("x = 12\n")
    monkeypatch.setattr(report_cache, "_code_digest", None)
    assert engine_code_digest() != before
