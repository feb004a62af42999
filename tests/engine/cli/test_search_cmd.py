"""``sessionlens search``: the agents' own folders (from discovery) indexed under --basedir."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fixtures.search_sessions import Machine, machine
from sessionlens.engine.cli import build_parser, main

__all__ = ["machine"]  # the fixture, shared with the engine search tests


@pytest.fixture
def at_home(machine: Machine, monkeypatch: pytest.MonkeyPatch) -> Machine:
    """The test machine's home is the user's home: discovery finds its agents' folders."""
    monkeypatch.setenv("HOME", str(machine.home))
    for var in ("OPENCLAW_STATE_DIR", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "PI_CODING_AGENT_DIR"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(Path, "home", lambda: machine.home)
    return machine


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:  # type: ignore[type-arg]
    assert main(["search", *argv, "--json"]) == 0
    out, err = capsys.readouterr()
    assert "indexing sessions" not in err  # no progress bar when stderr is not a terminal
    return json.loads(out)  # type: ignore[no-any-return]


def test_json_lists_hits_best_first_with_the_documented_keys(
        at_home: Machine, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = tmp_path / "base"
    got = _json(capsys, "ECONNRESET queue-worker-9f3a1c77", "--basedir", str(base))
    assert got["mode"] == "text" and got["index"]["files"] == 3
    first = got["results"][0]
    assert {"path", "entry_id", "score", "snippet", "agent", "timestamp"} <= set(first)
    path, entry = at_home.facts["error"]
    assert (first["path"], first["entry_id"], first["agent"]) == (str(path.resolve()), entry,
                                                                 "ops")
    assert first["compaction"]["status"] == "live"
    scores = [r["score"] for r in got["results"]]
    assert scores == sorted(scores, reverse=True)
    assert (base / "cache" / "search" / "index.sqlite3").is_file()  # --basedir moved it
    again = _json(capsys, "zebra_canary_rollout", "--agent", "claude-code", "--basedir",
                  str(base))
    assert again["index"]["updated"] == 0  # nothing changed since the first run
    assert [r["agent"] for r in again["results"]] == ["claude-code"]
    assert _json(capsys, "zebra_canary_rollout", "--agent", "main", "--basedir",
                 str(base))["results"] == []


def test_paths_limit_and_since_narrow_the_search(at_home: Machine, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    base = str(tmp_path / "base")
    folder = at_home.facts["db"][0].parent
    got = _json(capsys, "build", str(folder), "--limit", "2", "--basedir", base)
    assert len(got["results"]) == 2
    assert all(r["path"].startswith(str(folder.resolve())) for r in got["results"])
    late = _json(capsys, "build", "--since", "2026-03-01", "--basedir", base)
    assert {r["agent"] for r in late["results"]} == {"claude-code"}


def test_text_output_marks_matches_and_says_what_compaction_did(
        at_home: Machine, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search", "pgbouncer-eu7", "--basedir", str(tmp_path / "b")]) == 0
    out = capsys.readouterr().out
    assert "«pgbouncer»-«eu7»" in out or "«pgbouncer-eu7»" in out
    assert "not compacted yet" in out and "main" in out


def test_bad_arguments_are_refused(at_home: Machine, tmp_path: Path,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["search", "q", "--since", "last tuesday"])
    assert main(["search", "q", str(tmp_path / "missing"), "--basedir", str(tmp_path)]) == 1
    assert "no such file or folder" in capsys.readouterr().err
